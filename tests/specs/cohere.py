"""Command R (cohere): what the reference harness checks (tests/test_reference_families.py). Nothing is its alone: it
has no tests/test_reference_cohere.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "cohere", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "attention_bias", "use_qk_norm", "tie_word_embeddings")
    return config


SPEC = Spec(
    family="cohere",
    small={"model_type": "cohere", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("command-r-plus", {"num_hidden_layers": 1})],
    # CohereConfig's defaults: Command R's sizes, as many key/value heads as heads.
    defaults={"num_hidden_layers": 1},
    layouts={"untied": {"tie_word_embeddings": False}, "bias": {"attention_bias": True},
             "qk-norm": {"use_qk_norm": True}, "head-dim": {"head_dim": 4}, "null-kv": {"num_key_value_heads": None}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"head_dim": 7}, "head size"),  # rotary embeddings turn pairs of coordinates
             ({"head_dim": None}, "head_dim")],
    # CohereConfig does not require the heads to divide the width.
    accepted=[{"hidden_size": 68}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
