"""StarCoder2: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import grouped_query, maybe_flags, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """LLaMA-style grouped-query configs (head_dim drawn or not: Starcoder2Attention reads it), the biases drawn."""
    config = draw(grouped_query("starcoder2"))
    maybe_flags(draw, config, "use_bias")
    return config


SPEC = Spec(
    family="starcoder2",
    small={"model_type": "starcoder2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("starcoder2-3b", {"num_hidden_layers": 1})],
    # Starcoder2Config's defaults: StarCoder2-3B's sizes, tied.
    defaults={"num_hidden_layers": 1},
    layouts={"no-bias": {"use_bias": False}, "untied": {"tie_word_embeddings": False},
             "no-token-bias": {"token_classification_bias": False},
             "all": {"use_bias": False, "tie_word_embeddings": False, "token_classification_bias": False},
             # The window is a mask: no parameter.
             "window-8": {"sliding_window": 8}, "head-dim": {"head_dim": 4}},
    # transformers 5.23 refuses each or builds a model whose forward pass fails.
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # repeat_kv cannot pair the heads
             ({"num_key_value_heads": None}, "num_key_value_heads"),  # typed int in Starcoder2Config
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
             ({"hidden_size": 24}, "head size"),  # 24 / 8 = 3
             ({"hidden_size": 4}, "head size of 0"),
             ({"use_bias": 1}, "use_bias"), ({"tie_word_embeddings": "no"}, "tie_word_embeddings")],
    accepted=[{"head_dim": 0},  # read as unset: hidden_size // num_attention_heads
              {"hidden_size": 66, "num_attention_heads": 4},  # not a multiple: each head has the floor, 16
              {"hidden_size": 70, "head_dim": 12}],  # head_dim set: the heads need not cover the width
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows(),
)
