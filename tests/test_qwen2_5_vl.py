"""Qwen2.5-VL: the counts against the hub's and other tools' exact figures, the names' sizes, the language model's
two places in a config, and the refusals.

Expected values come from outside the project: the hub's parameter count of Qwen/Qwen2.5-VL-7B-Instruct
(numParameters, 8,292,166,656), MTEB's model metadata for GVE-3B (Alibaba-NLP, adapted from
Qwen/Qwen2.5-VL-3B-Instruct without a change of shape: n_parameters 3,754,622,976, n_embedding_parameters
311,164,928), a public fine-tuning script's printout of Qwen2.5-VL-7B-Instruct's `model.visual` (676,550,144),
the models' names, and transformers (tests/specs/qwen2_5_vl.py, run by the reference harness, recomputes every
total and node of every class on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.__main__ import EXIT_BAD_INPUT, run
from derivations.families import qwen2_5_vl
from derivations.symbols import D, V


def test_the_hubs_count_of_the_7b_is_exact():
    assert qwen2_5_vl.hub_7b.rounds(0)
    assert api.count("qwen2.5-vl-7b-instruct").total == 8_292_166_656


def test_gve_3b_the_3b_architecture_is_exact():
    # MTEB's GVE-3B (adapted from Qwen2.5-VL-3B-Instruct): the whole, and its embedding table (tied head).
    assert api.count("qwen2.5-vl-3b-instruct").total == 3_754_622_976
    values = registry.checkpoint("qwen2.5-vl-3b-instruct").values
    assert values[V] * values[D] == 311_164_928


def test_the_7b_vision_transformer_with_its_merger():
    # model.visual of Qwen2.5-VL-7B-Instruct, as a script that freezes it prints its parameters.
    assert api.count("qwen2.5-vl-7b-instruct", "Qwen2_5_VisionTransformerPretrainedModel").total == 676_550_144
    values = registry.checkpoint("qwen2.5-vl-7b-instruct").values
    assert qwen2_5_vl.vision_encoder.count(values) == 676_550_144


def test_the_names():
    # 3B and 7B are their language models without the head (3.09B and 7.07B), not the whole (3.75B and 8.29B); 72B
    # rounds neither (73.4B, and 71.5B for its language model).
    for claim in (qwen2_5_vl.name_3b, qwen2_5_vl.name_7b):
        assert claim.rounds(1) and not claim.rounds(0)
    assert not qwen2_5_vl.name_72b.rounds(0) and not qwen2_5_vl.name_72b.rounds(1)


@pytest.mark.parametrize("size", ["3b", "7b", "72b"])
def test_the_whole_is_its_three_parts(size):
    name = f"qwen2.5-vl-{size}-instruct"
    whole = api.count(name).total
    text = api.count(name, "Qwen2_5_VLTextModel").total
    vision = api.count(name, "Qwen2_5_VisionTransformerPretrainedModel").total
    values = registry.checkpoint(name).values
    head = 0 if size == "3b" else values[V] * values[D]  # only the 3B ties its head to the table
    assert whole == text + vision + head


def test_one_tower_for_the_three_sizes_but_the_merger_output():
    towers = {qwen2_5_vl.vision_tower.count(registry.checkpoint(name).values)
              for name in qwen2_5_vl.FAMILY.checkpoints}
    assert len(towers) == 1


def test_text_config_wins_over_the_top_level():
    # Qwen2_5_VLConfig builds the language model from text_config where given, ignoring the top-level fields.
    text = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
            "num_attention_heads": 8, "num_key_value_heads": 2}
    vision = {"depth": 1, "hidden_size": 32, "num_heads": 4, "out_hidden_size": 64}
    flat = {"model_type": "qwen2_5_vl", **text, "vision_config": vision}
    nested = {"model_type": "qwen2_5_vl", "hidden_size": 128, "text_config": text, "vision_config": vision}
    assert api.count(flat).total == api.count(nested).total


def test_the_flops_of_a_class_that_reads_an_image_are_refused_in_one_line():
    ran = run(["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024"])
    assert ran.status == EXIT_BAD_INPUT and "\n" not in ran.output and "not in a config" in ran.output
    assert len(ran.output) <= 100
    assert run(["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024", "--arch", "Qwen2_5_VLTextModel"]).status == 0


@pytest.mark.parametrize("config, message", [
    ({"model_type": "qwen2_5_vl", "hidden_size": 68, "num_attention_heads": 8}, "not a multiple"),
    ({"model_type": "qwen2_5_vl", "text_config": {"model_type": "qwen2"}}, "not derived"),
    ({"model_type": "qwen2_5_vl", "vision_config": {"hidden_size": 8, "num_heads": 16}}, "a head size of 0"),
    ({"model_type": "qwen2_5_vl", "vision_config": {"patch_size": [14, 14]}}, "vision_config: patch_size"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config, None)
