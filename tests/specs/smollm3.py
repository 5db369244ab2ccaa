"""SmolLM3: what the reference harness checks (tests/test_reference_families.py). Nothing is SmolLM3's alone: it has
no tests/test_reference_smollm3.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import grouped_query, maybe_flags, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    # SmolLM3Config's pad_token_id is 128004: the random vocabularies pad with 0.
    config = draw(grouped_query("smollm3", pad_token_id=0))
    maybe_flags(draw, config, "attention_bias", "mlp_bias")
    if draw(st.booleans()):
        config["no_rope_layer_interval"] = draw(st.integers(1, 4))
    return config


def draw_windows(data, config: dict, layers: int) -> None:
    """SmolLM3's windows: use_sliding_window and sliding_window slide the layers without rotary embeddings, or
    layer_types say which; which layers rotate (no_rope_layer_interval) drawn too."""
    windows("use_sliding_window", "layer_types")(data, config, layers)
    config.pop("no_rope_layers", None)
    config["no_rope_layer_interval"] = data.draw(st.integers(1, 4), label="no_rope_layer_interval")


SPEC = Spec(
    family="smollm3",
    small={"model_type": "smollm3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "pad_token_id": 0},
    real=[("smollm3-3b", {"num_hidden_layers": 4})],  # three rotary layers, then one without
    defaults={"num_hidden_layers": 1},
    layouts={"untied": {"tie_word_embeddings": False}, "attention-bias": {"attention_bias": True},
             "mlp-bias": {"mlp_bias": True}, "no-token-bias": {"token_classification_bias": False},
             "all": {"tie_word_embeddings": False, "attention_bias": True, "mlp_bias": True,
                     "token_classification_bias": False},
             "head-dim": {"head_dim": 24}, "floor": {"hidden_size": 68}, "null-kv": {"num_key_value_heads": None},
             "no-rope": {"no_rope_layers": [0, 0]},  # no layer rotates: the same tensors
             "window": {"use_sliding_window": True, "sliding_window": 3, "no_rope_layer_interval": 1}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim"),
             ({"no_rope_layers": [1]}, "no_rope_layers"),  # SmolLM3Attention indexes it by layer
             ({"no_rope_layer_interval": 0}, "no_rope_layer_interval"),  # the config takes it modulo
             ({"pad_token_id": 128004}, "pad_token_id")],
    accepted=[{"num_labels": 0}, {"no_rope_layers": [1, 0, 1]}],  # longer than the layers: the rest unread
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=draw_windows,
)
