"""Qwen3-VL: the counts against the hub's and other tools' exact figures, the names' sizes, where the config holds the
language model and its head's tie, DeepStack's mergers, and the refusals.

Expected values come from outside the project: the hub's parameter counts (its model API's safetensors total) of
Qwen/Qwen3-VL-8B-Instruct (8,767,123,696, quoted with the API's answer in a public audit of hub models) and of
Qwen/Qwen3-VL-2B-Instruct (2,127,532,032, asserted against the API's answer by a public pipeline), a public
evaluation report's `total_parameters` of Qwen3-VL-4B-Instruct loaded with transformers (4,437,815,808), the models'
names, and transformers (tests/specs/qwen3_vl.py, run by the reference harness, recomputes every total and node of
every class on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.__main__ import EXIT_BAD_INPUT, run
from derivations.families import qwen3_vl
from derivations.symbols import D, V

TEXT = {"model_type": "qwen3_vl_text", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 8}
TOWER = {"depth": 2, "hidden_size": 32, "num_heads": 4, "out_hidden_size": 64, "num_position_embeddings": 16}


def small(**top) -> dict:
    return {"model_type": "qwen3_vl", "text_config": TEXT, "vision_config": TOWER} | top


def test_the_hubs_counts_are_exact():
    assert qwen3_vl.hub_8b.rounds(0) and qwen3_vl.hub_2b.rounds(0)
    assert api.count("qwen3-vl-8b-instruct").total == 8_767_123_696
    assert api.count("qwen3-vl-2b-instruct").total == 2_127_532_032


def test_the_4b_as_transformers_loads_it():
    assert api.count("qwen3-vl-4b-instruct").total == 4_437_815_808


def test_the_names():
    # 2B and 4B round the whole (2.13B and 4.44B, heads tied); 8B rounds its language model (7.57B), not the whole
    # (8.77B).
    for claim in (qwen3_vl.name_2b, qwen3_vl.name_4b):
        assert claim.rounds(0)
    assert not qwen3_vl.name_8b.rounds(0) and qwen3_vl.name_8b.rounds(1)


@pytest.mark.parametrize("size", ["2b", "4b", "8b"])
def test_the_whole_is_its_three_parts(size):
    name = f"qwen3-vl-{size}-instruct"
    whole = api.count(name).total
    text = api.count(name, "Qwen3VLTextModel").total
    vision = api.count(name, "Qwen3VLVisionModel").total
    values = registry.checkpoint(name).values
    head = 0 if size != "8b" else values[V] * values[D]  # the 2B and 4B tie their heads to the table
    assert whole == text + vision + head


def test_one_tower_for_the_2b_and_4b():
    towers = {name: qwen3_vl.vision_tower.count(registry.checkpoint(name).values)
              for name in qwen3_vl.FAMILY.checkpoints}
    assert towers["qwen3-vl-2b-instruct"] == towers["qwen3-vl-4b-instruct"] != towers["qwen3-vl-8b-instruct"]


def test_one_deepstack_merger_for_each_listed_block():
    # Each is the main merger's size, its norm over the S_m^2 joined patches instead of one patch.
    none = api.count(small(vision_config=TOWER | {"deepstack_visual_indexes": []})).total
    two = api.count(small(vision_config=TOWER | {"deepstack_visual_indexes": [0, 1]})).total
    joined = 4 * 32
    assert two - none == 2 * (2 * joined + joined * joined + joined + joined * 64 + 64)


def test_the_language_model_is_read_from_text_config_alone():
    # Qwen3VLConfig ignores top-level sizes: without text_config, the language model is Qwen3VLTextConfig's defaults.
    flat = {"model_type": "qwen3_vl", "hidden_size": 64, "vision_config": TOWER}
    plain = {"model_type": "qwen3_vl", "vision_config": TOWER}
    assert api.count(flat).total == api.count(plain).total
    assert registry.resolve(plain, None).values[D] == 4096


def test_a_sub_configs_model_type_is_not_read():
    # Qwen3VLConfig builds Qwen3VLTextConfig and Qwen3VLVisionConfig whatever model_type the sub-configs name.
    named = small(text_config=TEXT | {"model_type": "qwen3"}, vision_config=TOWER | {"model_type": "qwen3_vl"})
    assert api.count(named).total == api.count(small()).total


def test_the_head_is_tied_by_the_whole_config_alone():
    # text_config's tie_word_embeddings is not read (transformers reads the whole config's).
    whole = "Qwen3VLForConditionalGeneration"
    untied = api.count(small(), whole).total
    assert api.count(small(text_config=TEXT | {"tie_word_embeddings": True}), whole).total == untied
    assert untied - api.count(small(tie_word_embeddings=True), whole).total == 1000 * 64


def test_the_flops_of_a_class_that_reads_an_image_are_refused_in_one_line():
    for arch in (None, "Qwen3VLVisionModel"):
        ran = run(["flops", "qwen3-vl-8b-instruct", "--seq", "1024", *(["--arch", arch] if arch else [])])
        assert ran.status == EXIT_BAD_INPUT and "\n" not in ran.output and "not in a config" in ran.output
        assert len(ran.output) <= 100
    assert run(["flops", "qwen3-vl-8b-instruct", "--seq", "1024", "--arch", "Qwen3VLTextModel"]).status == 0


@pytest.mark.parametrize("config, message", [
    ({"model_type": "qwen3_vl", "text_config": {"num_attention_heads": 8, "num_key_value_heads": 3}},
     "text_config: num_attention_heads"),
    ({"model_type": "qwen3_vl", "vision_config": {"hidden_size": 8, "num_heads": 16}}, "a head size of 0"),
    ({"model_type": "qwen3_vl", "vision_config": {"patch_size": [16, 16]}}, "vision_config: patch_size"),
    ({"model_type": "qwen3_vl", "vision_config": {"deepstack_visual_indexes": None}}, "deepstack_visual_indexes"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config, None)
