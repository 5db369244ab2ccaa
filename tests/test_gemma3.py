"""Gemma 3 with its vision encoder: the counts against KerasHub's presets and the report's Table 1, the text model
reached alone, and the refusals.

Expected values come from outside the project: KerasHub's gemma3_presets.py (commit 00d9f10a: each preset's
"params", exact), the Gemma 3 report's Table 1 (the vision encoder's 417M, and the language models' embedding and
non-embedding parameters), the released configs, and transformers (tests/specs/gemma3.py, run by the reference
harness, recomputes every total, node and FLOP count).
"""

import pytest

from derivations import api, configs, registry
from derivations.families import gemma3, gemma3_text
from derivations.symbols import D, N_i, N_p, V


def test_kerashubs_presets_are_the_exact_counts():
    # MedGemma's presets at the hub's vocabulary; Gemma 3's own at the tokenizer's 262,144 rows.
    assert all(claim.rounds(0) for claim in gemma3.KERASHUB)


def test_the_kerashub_difference_is_64_rows_of_the_table():
    for size, medgemma, keras in (("4b", 4_300_079_472, 4_299_915_632), ("27b", 27_432_406_640, 27_432_062_576)):
        values = registry.checkpoint(f"gemma-3-{size}-pt").values
        assert values[V] - 262_144 == 64
        assert medgemma - keras == 64 * values[D] == gemma3.keras_rows.count(values)


def test_table_1s_vision_encoder_is_the_tower_without_the_projector():
    claim = gemma3.paper_vision_encoder
    assert claim.rounds(0) and not claim.rounds(1)
    values = registry.checkpoint("gemma-3-4b-pt").values
    assert round(gemma3.vision_tower.count(values), -6) == 417_000_000
    assert round(gemma3.vision_encoder.count(values), -6) == 420_000_000


def test_one_vision_encoder_for_the_three_sizes():
    towers = {gemma3.vision_tower.count(registry.checkpoint(name).values) for name in gemma3.FAMILY.checkpoints}
    assert len(towers) == 1
    values = registry.checkpoint("gemma-3-4b-pt").values
    assert (values[N_p], values[N_i]) == (64 * 64, 256)  # 896 / 14 = 64 patches a side, pooled by 4 x 4


@pytest.mark.parametrize("size", ["4b", "12b", "27b"])
def test_the_whole_is_its_three_parts(size):
    # The language model is the gemma3_text count of the same text_config (Table 1's embedding and non-embedding
    # parameters, reconciled there), the head tied to its table.
    whole = api.count(f"gemma-3-{size}-pt").total
    text = api.count(f"gemma-3-{size}", "Gemma3ForCausalLM").total
    values = registry.checkpoint(f"gemma-3-{size}-pt").values
    assert whole == text + gemma3.vision_tower.count(values) + gemma3.projector.count(values)
    assert api.count(f"gemma-3-{size}-pt", "Gemma3ForCausalLM").total == text
    assert gemma3_text.FAMILY.rounded  # the text model's Table 1 rows stand on its own page


@pytest.mark.parametrize("config, architecture, message", [
    ({"model_type": "gemma3", "mm_tokens_per_image": 5}, None, "not what the projector pools"),
    ({"model_type": "gemma3", "vision_config": {"model_type": "clip_vision_model"}}, None, "not derived"),
    ({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 30}}, None,
     "text_config: hidden_size"),
    ({"model_type": "gemma3", "text_config": {"num_hidden_layers": 2}, "vision_config": {"image_size": 256}},
     "Gemma3ForCausalLM", "names no model_type"),
    ({"model_type": "gemma3", "tie_word_embeddings": False, "vision_config": {"image_size": 256},
      "text_config": {"model_type": "gemma3_text"}}, "Gemma3ForCausalLM", "differs from tie_word_embeddings"),
    ({"model_type": "gemma3", "num_labels": 3, "vision_config": {"image_size": 256},
      "text_config": {"model_type": "gemma3_text"}}, "Gemma3TextForSequenceClassification", "labels"),
])
def test_bad_configs(config, architecture, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config, architecture)


def test_a_sequence_holds_the_images_tokens():
    # The image is 256 of the language model's tokens: a shorter sequence is refused for the classes that read one,
    # not for the language model alone.
    with pytest.raises(configs.ConfigError, match="cannot hold it"):
        api.flop_count("gemma-3-4b-pt", 255)
    assert api.flop_count("gemma-3-4b-pt", 256).forward > api.flop_count("gemma-3-4b-pt", 256, "Gemma3ForCausalLM").forward
    assert api.flop_count("gemma-3-4b-pt", 100, "Gemma3ForCausalLM").forward > 0
