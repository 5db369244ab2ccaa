"""DeepSeek-V2: what the reference harness checks (tests/test_reference_families.py). DeepSeek-V3
(tests/specs/deepseek_v3.py) takes its sizes, layouts, refused and random configs from here. What only the two have
(the router's correction bias, a buffer in transformers; the active count, measured by running one token) is in
tests/test_reference_deepseek.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels

# The small config of the two families, without its model_type: one dense layer, then two with experts.
SIZES = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 48, "moe_intermediate_size": 16,
         "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "n_shared_experts": 2, "first_k_dense_replace": 1, "q_lora_rank": 24,
         "kv_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 12, "v_head_dim": 10, "n_group": 1,
         "topk_group": 1}
# The layouts of the two families: every class on the small config, and each switch.
LAYOUTS = {"small": {}, "no-q-lora": {"q_lora_rank": None}, "bias": {"attention_bias": True},
           "tied": {"tie_word_embeddings": True}, "no-dense": {"first_k_dense_replace": 0},
           "all-dense": {"first_k_dense_replace": 5}, "top-0": {"num_experts_per_tok": 0},
           "no-nope": {"qk_nope_head_dim": 0}}
REFUSED = [({"num_experts_per_tok": 5}, "num_experts_per_tok"),
           ({"qk_rope_head_dim": 7}, "qk_rope_head_dim"),
           ({"first_k_dense_replace": None}, "first_k_dense_replace")]


@st.composite
def configs(draw: st.DrawFn, model_type: str) -> dict:
    experts = draw(st.integers(1, 5))
    layers = draw(st.integers(1, 4))
    heads = draw(st.integers(1, 4))
    config = {"model_type": model_type, "vocab_size": draw(st.integers(1, 3000)),
              "hidden_size": heads * draw(st.integers(1, 16)), "intermediate_size": draw(st.integers(1, 64)),
              "moe_intermediate_size": draw(st.integers(1, 32)), "num_hidden_layers": layers,
              "num_attention_heads": heads, "n_routed_experts": experts,
              "num_experts_per_tok": draw(st.integers(0, experts)), "n_shared_experts": draw(st.integers(1, 3)),
              "first_k_dense_replace": draw(st.integers(0, layers + 1)),
              "q_lora_rank": draw(st.one_of(st.none(), st.integers(1, 32))), "kv_lora_rank": draw(st.integers(1, 32)),
              "qk_rope_head_dim": 2 * draw(st.integers(1, 6)), "qk_nope_head_dim": draw(st.integers(0, 12)),
              "v_head_dim": draw(st.integers(1, 12)), "n_group": 1, "topk_group": 1}
    config["num_key_value_heads"] = config["num_attention_heads"]
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="deepseek_v2",
    small=SIZES | {"model_type": "deepseek_v2"},
    defaults={"num_hidden_layers": 1},
    layouts=LAYOUTS | {"mlp-bias": {"mlp_bias": True}},
    refused=REFUSED,
    configs=configs("deepseek_v2"),
    examples=30,
    runs=reference.builds_and_runs,
)
