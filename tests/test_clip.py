"""CLIP: the counts and FLOPs against OpenCLIP's model profile, and CLIPConfig's defaults.

Expected values come from outside the project: OpenCLIP's docs/model_profile.csv (commit 3b37473b: mparams,
image_mparams, text_mparams, gflops, image_gflops, text_gflops of ViT-B-32, ViT-B-16 and ViT-L-14, OpenAI's CLIP
architectures), third-party printouts of OpenAI's models (151,277,313 and 427,616,513 parameters: `clip.load` and
a sum over `model.parameters()`), the released configs, and transformers (tests/specs/clip.py, run by the reference
harness, recomputes every total and FLOP count on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.families import clip
from derivations.symbols import D, D_t, E_p, N_p, P, V


@pytest.mark.parametrize("checkpoint, total", [("clip-vit-base-patch32", 151_277_313),
                                               ("clip-vit-large-patch14", 427_616_513)])
def test_openais_models_as_printed(checkpoint, total):
    assert api.count(checkpoint).total == total


def test_openclips_profile_rounds_from_the_exact_counts():
    assert all(claim.rounds(0) for claim in clip.PROFILED)


# OpenCLIP's image_gflops and text_gflops (fvcore's count at 77 text tokens and one 224-pixel image, two FLOPs a
# multiply-add as printed), to the two decimals it prints.
@pytest.mark.parametrize("checkpoint, image, text", [("clip-vit-base-patch32", "8.82", "5.96"),
                                                     ("clip-vit-base-patch16", "35.13", "5.96"),
                                                     ("clip-vit-large-patch14", "162.03", "13.3")])
def test_openclips_gflops(checkpoint, image, text):
    vision = api.flop_count(checkpoint, None, "CLIPVisionModelWithProjection").forward
    words = api.flop_count(checkpoint, 77, "CLIPTextModelWithProjection").forward
    assert f"{vision / 1e9:.2f}" == image and f"{words / 1e9:.2f}".rstrip("0") == text


def test_each_tower_has_its_sizes():
    values = registry.checkpoint("clip-vit-base-patch32").values
    assert (values[V], values[P], values[D_t], values[D], values[E_p], values[N_p]) == (49408, 77, 512, 768, 512, 49)


def test_a_tower_alone_reads_its_own_input():
    # The vision tower reads one image (no length); the pair reads a text beside it.
    with pytest.raises(configs.ConfigError, match="leave out --seq"):
        api.flop_count("clip-vit-base-patch32", 77, "CLIPVisionModel")
    with pytest.raises(configs.ConfigError, match="required"):
        api.flop_count("clip-vit-base-patch32", None, "CLIPModel")


def test_minimal_config_takes_the_sub_configs_defaults():
    values = registry.resolve({"model_type": "clip"}).values
    assert (values[V], values[D_t], values[D], values[N_p]) == (49408, 512, 768, 49)


@pytest.mark.parametrize("config, architecture, message", [
    ({"model_type": "clip", "vision_config": {"image_size": [224, 224]}}, None, "one integer"),
    ({"model_type": "clip", "text_config": {"hidden_size": 500}}, None, "not a multiple"),
    ({"model_type": "clip", "text_config": []}, None, "must be an object"),
    ({"model_type": "clip", "projection_dim": 768}, "CLIPTextModelWithProjection", "differs"),
])
def test_bad_configs(config, architecture, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config, architecture)
