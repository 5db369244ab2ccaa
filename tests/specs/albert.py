"""ALBERT: what the reference harness checks (tests/test_reference_families.py). What only ALBERT has is in
tests/test_reference_albert.py."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_labels

TINY = {"model_type": "albert", "vocab_size": 100, "embedding_size": 8, "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 32, "num_hidden_layers": 3, "max_position_embeddings": 16}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 8))
    # The width need not be a multiple of the heads (each head is the floor), nor equal to E.
    hidden = draw(st.integers(heads, 96))
    config = {"model_type": "albert", "vocab_size": draw(st.integers(1, 5000)),
              "embedding_size": draw(st.integers(1, 64)), "hidden_size": hidden, "num_attention_heads": heads,
              "intermediate_size": draw(st.integers(1, 128)), "num_hidden_layers": draw(st.integers(1, 6)),
              "num_hidden_groups": draw(st.integers(1, 3)), "inner_group_num": draw(st.integers(1, 2)),
              "max_position_embeddings": draw(st.integers(1, 600)), "type_vocab_size": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        config["tie_word_embeddings"] = draw(st.booleans())
    maybe_labels(draw, config)
    return config


def grouped(groups: int, inner: int, layers: int) -> dict:
    return {"num_hidden_groups": groups, "inner_group_num": inner, "num_hidden_layers": layers}


SPEC = Spec(
    family="albert",
    small=TINY,
    every_class_on_checkpoints=True,
    # A config with no sizes is AlbertConfig's defaults: the xxlarge shape.
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False},
             # Groups that divide the depth, that do not, and more groups than steps: transformers builds all.
             "groups-2-1-4": grouped(2, 1, 4), "groups-3-2-5": grouped(3, 2, 5), "groups-5-1-2": grouped(5, 1, 2),
             "groups-1-3-1": grouped(1, 3, 1),
             # Heads that do not divide the width: each head has the floor.
             "heads-5": {"num_attention_heads": 5}},
    configs=configs(),
    # Meta-device builds take ~20 ms each.
    examples=50,
)
