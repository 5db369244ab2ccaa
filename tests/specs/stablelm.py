"""StableLM: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """Grouped-query configs whose rotary part (int(d_h partial_rotary_factor)) is even; every switch drawn."""
    kv_heads = draw(st.integers(1, 4))
    heads, head = kv_heads * draw(st.integers(1, 4)), 8 * draw(st.integers(1, 4))
    config = {"model_type": "stablelm", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * head,
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)),
              "partial_rotary_factor": draw(st.sampled_from([0.25, 0.5, 1.0]))}
    maybe_flags(draw, config, "use_qkv_bias", "qk_layernorm", "use_parallel_residual", "tie_word_embeddings",
                "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="stablelm",
    small={"model_type": "stablelm", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2},
    real=[("stablelm-2-1_6b", {"num_hidden_layers": 1})],
    # StableLmConfig's defaults: StableLM-3B-4E1T's sizes.
    defaults={"num_hidden_layers": 1},
    layouts={"qkv-bias": {"use_qkv_bias": True}, "qk-layernorm": {"qk_layernorm": True},
             "parallel": {"use_parallel_residual": True}, "tied": {"tie_word_embeddings": True},
             "no-token-bias": {"token_classification_bias": False},
             "all": {"use_qkv_bias": True, "qk_layernorm": True, "use_parallel_residual": True,
                     "tie_word_embeddings": True, "token_classification_bias": False},
             "head-dim-same": {"head_dim": 16}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"num_key_value_heads": None}, "num_key_value_heads"),  # typed int in StableLmConfig
             ({"hidden_size": 66}, "not a multiple"),  # StableLmAttention requires the heads to divide the width
             ({"partial_rotary_factor": 0.1875}, "partial_rotary_factor"),  # 3 of 16 coordinates
             ({"head_dim": 8}, "head_dim"),  # the rotary embedding would turn heads of 8
             ({"use_parallel_residual": 1}, "use_parallel_residual")],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
