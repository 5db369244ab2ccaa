"""Llama 4 with its vision tower: the whole checkpoints against the model cards, the language model reached alone, and
the refusals.

Expected values come from outside the project: the Llama 4 model cards ("17B (Activated) 109B (Total)", "17B
(Activated) 400B (Total)"), Meta's released configs (336-pixel images in patches of 14, a pixel shuffle of 0.5), and
transformers 5.23 on the meta device (Llama4ForConditionalGeneration: Scout 108,641,793,536 parameters, Maverick
401,583,781,376; its vision_model and multi_modal_projector 871,932,416 in both). tests/specs/llama4.py, run by the
reference harness, recomputes every total, node and FLOP count.
"""

import pytest

from derivations import api, configs, registry
from derivations.families import llama4
from derivations.symbols import N_i, N_p

# transformers 5.23, Llama4ForConditionalGeneration on the meta device with the bundled configs:
# sum(p.numel() for p in model.parameters()), and that of vision_model and multi_modal_projector.
TRANSFORMERS = {"llama-4-scout-17b-16e": 108_641_793_536, "llama-4-maverick-17b-128e": 401_583_781_376}
VISION_SIDE = 871_932_416


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_the_whole_checkpoint_is_transformers_count(name):
    assert api.count(name).total == TRANSFORMERS[name]
    assert llama4.vision_encoder.count(registry.checkpoint(name).values) == VISION_SIDE


def test_the_cards_totals_are_the_whole_checkpoints():
    # "109B (Total)" and "400B (Total)": with the vision side; Scout's language model alone is under 108B.
    for claim in (llama4.scout_total, llama4.maverick_total):
        assert claim.rounds(0)
    assert not llama4.scout_total.rounds(1)
    # "400B" holds to the hundred billion, not to the billion (the exact count is 401.6B).
    assert round(llama4.maverick_total.exact(0), -9) == 402 * 10**9


def test_17b_activated_is_the_language_models():
    for claim in (llama4.scout_active, llama4.maverick_active):
        assert claim.rounds(1) and not claim.rounds(0)  # the whole's, vision side included, is nearer 18B
        assert round(claim.exact(0), -9) == 18 * 10**9


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_the_whole_is_its_three_parts(name):
    # The language model is the llama4_text count of the same text_config, reached alone by --arch.
    whole = api.count(name).total
    text = api.count(f"{name}-text", "Llama4ForCausalLM").total
    assert api.count(name, "Llama4ForCausalLM").total == text
    assert whole == text + VISION_SIDE
    assert api.count(name, "Llama4VisionModel").total == VISION_SIDE - llama4.projector.count(
        registry.checkpoint(name).values)


def test_an_image_is_144_tokens():
    # 336 pixels in patches of 14: 24 x 24 patches, folded 2 x 2 by the pixel shuffle (ratio 0.5).
    values = registry.checkpoint("llama-4-scout-17b-16e").values
    assert (values[N_p], values[N_i]) == (24 * 24, 12 * 12)
    with pytest.raises(configs.ConfigError, match="cannot hold it"):
        api.flop_count("llama-4-scout-17b-16e", 143)
    assert api.flop_count("llama-4-scout-17b-16e", 144).forward > 0
    assert api.flop_count("llama-4-scout-17b-16e", 100, "Llama4ForCausalLM").forward > 0


@pytest.mark.parametrize("config, message", [
    ({"model_type": "llama4", "vision_config": {"model_type": "clip_vision_model"}}, "not derived"),
    ({"model_type": "llama4", "text_config": {"model_type": "llama"}}, "not derived"),
    ({"model_type": "llama4", "vision_config": {"pixel_shuffle_ratio": "half"}}, "pixel_shuffle_ratio"),
    ({"model_type": "llama4", "vision_config": {"image_size": [336, 336]}}, "image_size must be an integer"),
    ({"model_type": "llama4", "vision_config": {"hidden_size": 770}}, "not a multiple"),
    ({"model_type": "llama4", "text_config": {"head_dim": None}}, "text_config: head_dim"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
