"""Phi-3: what the reference harness checks (tests/test_reference_families.py). What only Phi-3 has is in
tests/test_reference_phi3.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags, maybe_labels, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "phi3", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)),
              "pad_token_id": 0}
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="phi3",
    small={"model_type": "phi3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "pad_token_id": 0},
    defaults={"num_hidden_layers": 1},
    layouts={"small": {}, "tied": {"tie_word_embeddings": True}, "no-token-bias": {"token_classification_bias": False},
             "head-dim": {"head_dim": 4}, "null-kv": {"num_key_value_heads": None}, "floor": {"hidden_size": 68}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim"),
             ({"hidden_size": 4}, "head size of 0")],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows(),
)
