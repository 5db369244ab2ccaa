"""Qwen2: what the reference harness checks (tests/test_reference_families.py). What only Qwen2 has is in
tests/test_reference_qwen2.py."""

import reference
from spec import Spec
from strategies import grouped_query, windows

SPEC = Spec(
    family="qwen2",
    small={"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("qwen2.5-0.5b", {"num_hidden_layers": 1})],
    # Qwen2Config's defaults: 32 heads and 32 key/value heads of 128.
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "no-token-bias": {"token_classification_bias": False},
             "bias-flags": {"attention_bias": False, "mlp_bias": True},  # no such options: ignored
             "window": {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1},
             "head-dim": {"head_dim": 16}, "floor": {"hidden_size": 68},  # the floor: 8 heads of 8
             "null-kv": {"num_key_value_heads": None}},  # null: as many as the heads
    # transformers 5.23 refuses each or builds a model whose forward pass fails.
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
             ({"head_dim": None}, "head_dim"),  # getattr finds None: the projections cannot be sized
             ({"head_dim": 0}, "head_dim"),
             ({"hidden_size": 4}, "head size of 0"),
             ({"num_attention_heads": 4, "num_key_value_heads": 8}, "num_key_value_heads")],
    configs=grouped_query("qwen2"),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows("use_sliding_window", "max_window_layers", "layer_types"),
)
