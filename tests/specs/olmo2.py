"""OLMo 2: what the reference harness checks (tests/test_reference_families.py). Nothing is OLMo 2's alone: it has no
tests/test_reference_olmo2.py."""

import reference
from spec import Spec
from strategies import grouped_query, windows

SPEC = Spec(
    family="olmo2",
    small={"model_type": "olmo2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("olmo-2-32b", {"num_hidden_layers": 1})],  # grouped keys and values: k_norm of K d_h
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "bias": {"attention_bias": True},
             "both": {"tie_word_embeddings": True, "attention_bias": True},
             "head-dim": {"head_dim": 24},  # getattr finds it: q_norm of H d_h = 192, not the width
             "floor": {"hidden_size": 68},  # not a multiple of the heads: each head has the floor, 8
             "null-kv": {"num_key_value_heads": None},  # null: as many as the heads
             "mlp-bias": {"mlp_bias": True}},  # not a field of Olmo2Config: ignored
    # transformers 5.23 refuses each or builds a model whose forward pass fails.
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
             ({"head_dim": None}, "head_dim"),  # getattr finds None: the projections cannot be sized
             ({"head_dim": 0}, "head_dim"),  # the rotary embedding divides by it
             ({"hidden_size": 4}, "head size of 0"),
             ({"attention_bias": 1}, "attention_bias"),  # Olmo2Config is strict about bools
             ({"vocab_size": 1}, "pad_token_id")],  # the default pad_token_id 1 is outside a vocabulary of 1
    accepted=[{"num_labels": 0}],
    # Olmo2Config's pad_token_id is 1, which a random vocabulary of 1 would not hold: the random configs pad with 0.
    configs=grouped_query("olmo2", pad_token_id=0),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows(),  # a sliding_window in config.json makes the cache keep a window (the attention never slides)
)
