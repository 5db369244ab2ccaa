"""Mistral: what the reference harness checks (tests/test_reference_families.py). What only Mistral has is in
tests/test_reference_mistral.py."""

import reference
from spec import Spec
from strategies import grouped_query, windows

SPEC = Spec(
    family="mistral",
    small={"model_type": "mistral", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("mistral-7b", {"num_hidden_layers": 1})],
    # MistralConfig's defaults: Mistral-7B's sizes with 8 key/value heads.
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "no-token-bias": {"token_classification_bias": False},
             "both": {"tie_word_embeddings": True, "token_classification_bias": False},
             # The window is a mask: transformers' count and the derivation's (no window symbol) agree.
             "window-8": {"sliding_window": 8}, "window-4096": {"sliding_window": 4096},
             "no-window": {"sliding_window": None}},
    # transformers 5.23 refuses each or builds a model whose forward pass fails.
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"num_key_value_heads": None}, "num_key_value_heads"),  # a plain int in MistralConfig: null refused
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
             ({"hidden_size": 24}, "head size"),  # 24 / 8 = 3
             ({"hidden_size": 4}, "head size of 0"),  # the rotary embedding divides by the head size
             ({"tie_word_embeddings": 1}, "tie_word_embeddings")],  # MistralConfig is strict about bools
    # Edges the reader accepts because transformers builds and runs them, unlike LLaMA's.
    accepted=[{"head_dim": 0},  # MistralAttention reads 0 as unset: hidden_size // num_attention_heads
              {"hidden_size": 66, "num_attention_heads": 4},  # not a multiple: each head has the floor, 16
              {"hidden_size": 70, "head_dim": 12},  # head_dim set: the heads need not cover the width
              {"attention_bias": 1, "mlp_bias": "yes"}],  # not fields of MistralConfig: ignored
    configs=grouped_query("mistral"),
    examples=60,
    runs=reference.builds_and_runs,
    windows=windows(),
)
