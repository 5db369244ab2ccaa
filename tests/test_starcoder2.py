"""StarCoder2: published sizes.

Expected values come from outside the project: the paper's names [cite: lozhkov2024], the hub's counts; every class is
checked against transformers by the reference harness (tests/specs/starcoder2.py).
"""

from derivations import registry

from derivations.families import starcoder2


def test_3b_is_3_03_billion():
    # promptlayer's page for bigcode/starcoder2-3b (from the hub's count): "Parameter Count 3.03B".
    assert round(registry.checkpoint("starcoder2-3b").total / 10**7) == 303


def test_names():
    # [cite: lozhkov2024]: "3B, 7B, and 15B". 3.03 and 7.17 billion round to theirs; 15.96 billion truncates to 15.
    assert starcoder2.ROUNDED[0].rounds() and starcoder2.ROUNDED[1].rounds()
    assert not starcoder2.ROUNDED[2].rounds()
    assert registry.checkpoint("starcoder2-15b").total // 10**9 == 15


def test_only_15b_unties_its_head():
    # The 15B's config.json sets tie_word_embeddings false; the 3B's and 7B's leave Starcoder2Config's true.
    untied = registry.checkpoint("starcoder2-15b")
    values = {str(k): v for k, v in untied.values.items()}
    tied_total = starcoder2.ARCHITECTURES["Starcoder2ForCausalLM"].count(untied.values)
    assert untied.total - tied_total == values["V"] * values["D"]
