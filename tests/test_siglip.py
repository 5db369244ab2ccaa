"""SigLIP: the counts and FLOPs against OpenCLIP's model profile, and SiglipConfig's defaults.

Expected values come from outside the project: OpenCLIP's docs/model_profile.csv (commit 3b37473b: mparams,
image_mparams, text_mparams, image_gflops and text_gflops of ViT-B-16-SigLIP and ViT-SO400M-14-SigLIP-384, at 64
text tokens), the released configs, and transformers (tests/specs/siglip.py, run by the reference harness,
recomputes every total and FLOP count on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.families import siglip
from derivations.symbols import D, E_p, N_p, P, V


def test_openclips_profile_rounds_from_the_exact_counts():
    assert all(claim.rounds(0) for claim in siglip.PROFILED)


@pytest.mark.parametrize("checkpoint, image, text", [("siglip-base-patch16-224", "35.42", "11.02"),
                                                     ("siglip-so400m-patch14-384", "670.35", "53.13")])
def test_openclips_gflops(checkpoint, image, text):
    # The vision tower with its pooling head (the probe's attention over the patches included), and 64 tokens
    # through the text tower and its head.
    vision = api.flop_count(checkpoint, None, "SiglipVisionModel").forward
    words = api.flop_count(checkpoint, 64, "SiglipTextModel").forward
    assert (f"{vision / 1e9:.2f}", f"{words / 1e9:.2f}") == (image, text)


def test_no_class_token_and_the_so400m_tower():
    base, so400m = (registry.checkpoint(name).values for name in siglip.FAMILY.checkpoints)
    assert (base[N_p], base[V], base[P], base[E_p]) == (196, 32000, 64, 768)
    assert (so400m[N_p], so400m[D]) == (27 * 27, 1152)
    assert siglip.vision_tower.find("embeddings.positions").count(base) == 196 * 768  # a row a patch, no more


def test_without_the_head():
    config = configs.load("siglip-so400m-patch14-384")
    config["vision_config"] = config["vision_config"] | {"vision_use_head": False}
    with_head = api.count("siglip-so400m-patch14-384", "SiglipVisionModel").total
    head = siglip.pooling_head.count(registry.checkpoint("siglip-so400m-patch14-384").values)
    assert api.count(config, "SiglipVisionModel").total == with_head - head


@pytest.mark.parametrize("config, architecture, message", [
    ({"model_type": "siglip", "text_config": {"projection_size": 512}}, "SiglipModel", "compares the two"),
    ({"model_type": "siglip", "vision_config": {"vision_use_head": "yes"}}, None, "true or false"),
    ({"model_type": "siglip", "vision_config": {"patch_size": 300}}, None, "no patch"),
])
def test_bad_configs(config, architecture, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config, architecture)
