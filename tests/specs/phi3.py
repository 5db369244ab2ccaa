"""Phi-3: what the reference harness checks (tests/test_reference_families.py). What only Phi-3 has is in
tests/test_reference_phi3.py."""

import reference
from spec import Spec
from strategies import grouped_query, windows

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
    configs=grouped_query("phi3", head_dim=False, pad_token_id=0),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows(),
)
