"""StableLM: the cards' exact counts.

Expected values come from outside the project: the model cards [cite: hub-stabilityai]; every class is checked against
transformers by the reference harness (tests/specs/stablelm.py).
"""

from derivations import registry

from derivations.families import stablelm


def test_3b_card_is_exact():
    # StableLM-3B-4E1T's card, Model Architecture: "Parameters 2,795,443,200".
    assert registry.checkpoint("stablelm-3b-4e1t").total == 2_795_443_200


def test_2_1_6b_card_is_2dl_short():
    # Stable LM 2 1.6B's card: "Parameters 1,644,417,024", hidden size 2048, 24 layers.
    total = registry.checkpoint("stablelm-2-1_6b").total
    assert total - 1_644_417_024 == 2 * 2048 * 24
    stablelm.stablelm_2_card.check()


def test_names():
    # "a 3 billion parameter" and "a 1.6 billion parameter" decoder-only language model (the cards).
    assert all(r.rounds() for r in stablelm.NAMES)


def test_parallel_layers_drop_a_norm():
    # StableLmDecoderLayer: post_attention_layernorm is None with use_parallel_residual.
    base = {"model_type": "stablelm", "num_hidden_layers": 3, "hidden_size": 64, "num_attention_heads": 4,
            "num_key_value_heads": 4, "intermediate_size": 32, "vocab_size": 10}
    assert (registry.resolve(base).total - registry.resolve(base | {"use_parallel_residual": True}).total
            == 3 * 2 * 64)
