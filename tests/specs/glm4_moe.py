"""GLM-4.5 (glm4_moe): what the reference harness checks (tests/test_reference_families.py). Nothing is its alone:
the router's correction bias is a buffer, as DeepSeek-V3's (tests/test_reference_deepseek.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags

# One dense layer, then two with experts; grouped-query attention with a head size of its own.
SIZES = {"model_type": "glm4_moe", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 48,
         "moe_intermediate_size": 16, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 16, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1,
         "first_k_dense_replace": 1, "attention_bias": True}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    experts = draw(st.integers(1, 5))
    layers = draw(st.integers(1, 4))
    kv_heads = draw(st.integers(1, 3))
    config = {"model_type": "glm4_moe", "vocab_size": draw(st.integers(1, 3000)),
              "hidden_size": draw(st.integers(1, 96)), "intermediate_size": draw(st.integers(1, 64)),
              "moe_intermediate_size": draw(st.integers(1, 32)), "num_hidden_layers": layers,
              "num_attention_heads": kv_heads * draw(st.integers(1, 3)), "num_key_value_heads": kv_heads,
              "head_dim": draw(st.integers(1, 24)), "n_routed_experts": experts,
              "num_experts_per_tok": draw(st.integers(0, experts)), "n_shared_experts": draw(st.integers(0, 2)),
              "first_k_dense_replace": draw(st.integers(0, layers + 1))}
    maybe_flags(draw, config, "attention_bias", "use_qk_norm", "tie_word_embeddings")
    return config


SPEC = Spec(
    family="glm4_moe",
    small=SIZES,
    real=[("glm-4.5", {"num_hidden_layers": 4}), ("glm-4.5-air", {"num_hidden_layers": 2})],
    # Glm4MoeConfig's defaults: GLM-4.5-Air's sizes, heads of 4096 // 96 = 42.
    defaults={"num_hidden_layers": 2},
    layouts={"small": {}, "no-bias": {"attention_bias": False}, "qk-norm": {"use_qk_norm": True},
             "tied": {"tie_word_embeddings": True}, "no-dense": {"first_k_dense_replace": 0},
             "all-dense": {"first_k_dense_replace": 5}, "top-0": {"num_experts_per_tok": 0},
             "no-shared": {"n_shared_experts": 0}, "odd-head": {"head_dim": 7}},
    refused=[({"num_experts_per_tok": 5}, "num_experts_per_tok"),
             ({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": None}, "head_dim"),
             ({"first_k_dense_replace": None}, "first_k_dense_replace"),
             # An odd head turned whole: the rotary width (8) exceeds the head (7).
             ({"head_dim": 7, "partial_rotary_factor": 1.0}, "rotary")],
    # A partial rotation runs on an odd head; the heads need not divide the width.
    accepted=[{"head_dim": 7}, {"num_attention_heads": 6}, {"n_shared_experts": 0}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
