"""OLMo 3: what the reference harness checks (tests/test_reference_families.py). Nothing is OLMo 3's alone: it has no
tests/test_reference_olmo3.py."""

import reference
from spec import Spec
from strategies import grouped_query, windows


def draw_windows(data, config: dict, layers: int) -> None:
    """OLMo 3's windows: a sliding_window (null refused: the model always builds its sliding mask) and layer_types."""
    windows("layer_types")(data, config, layers)


SPEC = Spec(
    family="olmo3",
    small={"model_type": "olmo3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("olmo-3-7b", {"num_hidden_layers": 4})],  # three sliding layers, then a full one
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "bias": {"attention_bias": True},
             "head-dim": {"head_dim": 24}, "floor": {"hidden_size": 68}, "null-kv": {"num_key_value_heads": None},
             "window": {"sliding_window": 3},
             "types": {"layer_types": ["full_attention", "sliding_attention"]}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim"),
             ({"sliding_window": None}, "sliding_window"),  # Olmo3Model builds its sliding mask on every forward
             ({"layer_types": ["full_attention"]}, "layer_types"),  # one a layer
             ({"vocab_size": 1}, "pad_token_id")],
    accepted=[{"num_labels": 0}],
    configs=grouped_query("olmo3", pad_token_id=0),
    examples=30,
    runs=reference.builds_and_runs,
    windows=draw_windows,
)
