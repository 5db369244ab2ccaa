"""Qwen2-MoE: what the reference harness checks (tests/test_reference_families.py). Qwen3-MoE
(tests/specs/qwen3_moe.py) takes its sizes, layouts, refused configs and random configs from here. What only the
two have (the active count, measured by running one token) is in tests/test_reference_qwen_moe.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels, windows

# The small config of the two families, without its model_type: three layers, so that dense and expert layers mix.
SIZES = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 48, "moe_intermediate_size": 16,
         "shared_expert_intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 8,
         "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2}
# The layouts of the two families: every class with dense and expert layers, and each switch of the layers.
LAYOUTS = {"dense-and-expert": {"mlp_only_layers": [1]},
           "plain": {}, "step": {"decoder_sparse_step": 2}, "only": {"mlp_only_layers": [0, 2]},
           "no-experts": {"num_experts": 0}, "tied": {"tie_word_embeddings": True},
           "no-token-bias": {"token_classification_bias": False}, "top-0": {"num_experts_per_tok": 0},
           "head-dim": {"head_dim": 4}}
REFUSED = [({"num_experts_per_tok": 5}, "num_experts_per_tok"),
           ({"decoder_sparse_step": 0}, "decoder_sparse_step"),
           ({"mlp_only_layers": "1"}, "mlp_only_layers"),
           ({"num_key_value_heads": 3}, "num_key_value_heads"),
           ({"num_key_value_heads": None}, "num_key_value_heads")]


@st.composite
def configs(draw: st.DrawFn, model_type: str) -> dict:
    kv_heads = draw(st.integers(1, 3))
    heads = kv_heads * draw(st.integers(1, 3))
    experts = draw(st.integers(0, 5))
    layers = draw(st.integers(1, 4))
    config = {"model_type": model_type, "vocab_size": draw(st.integers(1, 3000)),
              "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "hidden_size": heads * 2 * draw(st.integers(1, 8)), "intermediate_size": draw(st.integers(1, 64)),
              "moe_intermediate_size": draw(st.integers(1, 32)), "shared_expert_intermediate_size": draw(st.integers(1, 32)),
              "num_hidden_layers": layers, "num_experts": experts, "num_experts_per_tok": draw(st.integers(0, experts)),
              "decoder_sparse_step": draw(st.integers(1, 3)),
              "mlp_only_layers": draw(st.lists(st.integers(0, layers), max_size=2))}
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="qwen2_moe",
    small=SIZES | {"model_type": "qwen2_moe"},
    defaults={"num_hidden_layers": 1},
    # qkv_bias false drops the biases; Qwen2MoeConfig does not read num_local_experts (num_experts stays 4).
    layouts=LAYOUTS | {"no-qkv-bias": {"qkv_bias": False}, "num-local-experts": {"num_local_experts": 3}},
    refused=REFUSED,
    configs=configs("qwen2_moe"),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows("use_sliding_window", "max_window_layers", "layer_types"),
)
