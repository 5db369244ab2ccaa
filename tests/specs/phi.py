"""Phi (Phi-1, 1.5, 2): what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """Grouped-query configs whose rotary part (int(d_h partial_rotary_factor)) is even, q/k LayerNorm drawn."""
    kv_heads = draw(st.integers(1, 4))
    heads, head = kv_heads * draw(st.integers(1, 4)), 8 * draw(st.integers(1, 4))
    config = {"model_type": "phi", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": draw(st.sampled_from([kv_heads, None])), "hidden_size": heads * head,
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)),
              "partial_rotary_factor": draw(st.sampled_from([0.5, 1.0, 0.25]))}
    if config["num_key_value_heads"] is None:
        del config["num_key_value_heads"]
    maybe_flags(draw, config, "qk_layernorm", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="phi",
    small={"model_type": "phi", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("phi-2", {"num_hidden_layers": 1})],
    # PhiConfig's defaults: Phi-1's sizes.
    defaults={"num_hidden_layers": 1},
    layouts={"qk-layernorm": {"qk_layernorm": True}, "tied": {"tie_word_embeddings": True},
             "no-token-bias": {"token_classification_bias": False},
             "all": {"qk_layernorm": True, "tie_word_embeddings": True, "token_classification_bias": False},
             "null-kv": {"num_key_value_heads": None}, "head-dim": {"head_dim": 12},
             "rotary-in-parameters": {"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim"),
             ({"partial_rotary_factor": 0.375}, "partial_rotary_factor"),  # 3 of 8 coordinates
             ({"qk_layernorm": True, "head_dim": 12}, "qk_layernorm"),  # the norms are of D // H = 8
             ({"qk_layernorm": 1}, "qk_layernorm")],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
