"""Qwen3: what the reference harness checks (tests/test_reference_families.py). Nothing is Qwen3's alone: it has no
tests/test_reference_qwen3.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags, maybe_labels, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "qwen3", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": draw(st.integers(1, 128)),
              "head_dim": draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="qwen3",
    small={"model_type": "qwen3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16},
    real=[("qwen3-0.6b", {"num_hidden_layers": 1})],
    # Qwen3Config's defaults: 32 heads and 32 key/value heads of 128.
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "no-token-bias": {"token_classification_bias": False},
             "bias": {"attention_bias": True}, "head-dim": {"head_dim": 2}, "null-kv": {"num_key_value_heads": None},
             "window": {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim")],
    # The head size is head_dim: the width need not be a multiple of the heads.
    accepted=[{"hidden_size": 66}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows("use_sliding_window", "max_window_layers", "layer_types"),
)
