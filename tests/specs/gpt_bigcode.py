"""GPTBigCode (SantaCoder, StarCoder): what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    config = {"model_type": "gpt_bigcode", "vocab_size": draw(st.integers(1, 60000)),
              "n_layer": draw(st.integers(1, 3)), "n_positions": draw(st.integers(1, 2048))}
    # The width and heads under their own names or under the names attribute_map gives them.
    width, count = ("hidden_size", "num_attention_heads") if draw(st.booleans()) else ("n_embd", "n_head")
    config[width], config[count] = heads * head_size, heads
    config["n_inner"] = draw(st.one_of(st.none(), st.integers(1, 1024)))  # null: four times the width
    config["multi_query"] = draw(st.booleans())
    if not config["multi_query"]:  # cross-attention exists only without multi-query
        maybe_flags(draw, config, "add_cross_attention")
    maybe_flags(draw, config, "tie_word_embeddings")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gpt_bigcode",
    small={"model_type": "gpt_bigcode", "n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 128,
           "vocab_size": 500},
    every_class_on_checkpoints=True,
    defaults={"n_layer": 1},
    layouts={"multi-head": {"multi_query": False}, "untied": {"tie_word_embeddings": False},
             "cross": {"multi_query": False, "add_cross_attention": True},
             "all": {"multi_query": False, "add_cross_attention": True, "tie_word_embeddings": False,
                     "n_inner": 100}},
    refused=[({"n_head": 5}, "not a multiple"), ({"add_cross_attention": True}, "multi_query false"),
             ({"multi_query": "yes"}, "multi_query"),
             ({"tie_word_embeddings": "no"}, "tie_word_embeddings")],
    accepted=[{"n_inner": None}, {"multi_query": False}, {"n_head": 1}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
