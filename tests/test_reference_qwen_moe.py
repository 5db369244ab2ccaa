"""The Qwen2-MoE and Qwen3-MoE derivations against transformers' classes: total and every node (the dense and the
expert layers apart), on the meta device; and the active count, measured by running one token."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import qwen2_moe, qwen3_moe
from test_reference_llama import runs

check = reference.check
FAMILIES = {"qwen2_moe": qwen2_moe, "qwen3_moe": qwen3_moe}
SMALL = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 48, "moe_intermediate_size": 16,
         "shared_expert_intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 8,
         "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2}
CAUSAL = {"qwen2_moe": "Qwen2MoeForCausalLM", "qwen3_moe": "Qwen3MoeForCausalLM"}


@pytest.mark.parametrize("checkpoint", qwen2_moe.FAMILY.checkpoints + qwen3_moe.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    config = configs.load(checkpoint)
    check(CAUSAL[config["model_type"]], config)


@pytest.mark.parametrize("model_type, architecture", [(t, a) for t, f in FAMILIES.items() for a in f.ARCHITECTURES])
def test_every_class_with_dense_and_expert_layers(model_type: str, architecture: str) -> None:
    check(architecture, SMALL | {"model_type": model_type, "mlp_only_layers": [1]})


@pytest.mark.parametrize("model_type", FAMILIES)
@pytest.mark.parametrize("extra", [{}, {"decoder_sparse_step": 2}, {"mlp_only_layers": [0, 2]}, {"num_experts": 0},
                                   {"tie_word_embeddings": True}, {"token_classification_bias": False},
                                   {"num_experts_per_tok": 0}, {"head_dim": 4}],
                         ids=["plain", "step", "only", "no-experts", "tied", "no-token-bias", "top-0", "head-dim"])
def test_layouts(model_type: str, extra: dict) -> None:
    check(CAUSAL[model_type], SMALL | {"model_type": model_type} | extra)


@pytest.mark.parametrize("extra", [{"qkv_bias": False}, {"num_local_experts": 3}])
def test_qwen2_moe_switches(extra: dict) -> None:
    # qkv_bias false drops the biases; Qwen2MoeConfig does not read num_local_experts (num_experts stays 4).
    check("Qwen2MoeForCausalLM", SMALL | {"model_type": "qwen2_moe"} | extra)


@pytest.mark.parametrize("extra", [{"attention_bias": True}, {"num_local_experts": 3}])
def test_qwen3_moe_switches(extra: dict) -> None:
    # attention_bias gives all four projections a bias; num_local_experts wins over num_experts.
    check("Qwen3MoeForCausalLM", SMALL | {"model_type": "qwen3_moe"} | extra)


REFUSED = [
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
    ({"decoder_sparse_step": 0}, "decoder_sparse_step"),
    ({"mlp_only_layers": "1"}, "mlp_only_layers"),
    ({"num_key_value_heads": 3}, "num_key_value_heads"),
    ({"num_key_value_heads": None}, "num_key_value_heads"),
]


@pytest.mark.parametrize("model_type", FAMILIES)
@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(model_type: str, config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | {"model_type": model_type} | config)
    assert not runs(SMALL | {"model_type": model_type} | config)


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_active_count_is_what_one_token_reads(model_type: str) -> None:
    # One token through a small model with real weights: the parameters whose gradient is not zero are the ones it
    # used. The router's top-k picks X_a experts in each expert layer; the rest of the model is used whole except
    # the embedding rows of the other tokens (the convention counts the table whole, so add them back).
    torch, transformers = reference.torch, reference.transformers
    config = SMALL | {"model_type": model_type, "mlp_only_layers": [1], "norm_topk_prob": True}
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config),
                                                          experts_implementation="eager")
    model(torch.tensor([[7]])).logits.sum().backward()
    used = 0
    for name, p in model.named_parameters():
        if p.grad is None:
            continue
        if name.endswith("experts.gate_up_proj") or name.endswith("experts.down_proj"):
            used += int((p.grad.flatten(1) != 0).any(dim=1).sum()) * p[0].numel()
        elif name.endswith("embed_tokens.weight"):
            used += p.numel()  # the table whole, as the convention counts it
        else:
            used += p.numel()
    resolved = registry.resolve(config)
    assert used == FAMILIES[model_type].ACTIVE[CAUSAL[model_type]].count(resolved.values)


@st.composite
def moe_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 3))
    heads = kv_heads * draw(st.integers(1, 3))
    experts = draw(st.integers(0, 5))
    layers = draw(st.integers(1, 4))
    config = {"model_type": draw(st.sampled_from(sorted(FAMILIES))), "vocab_size": draw(st.integers(1, 3000)),
              "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "hidden_size": heads * 2 * draw(st.integers(1, 8)), "intermediate_size": draw(st.integers(1, 64)),
              "moe_intermediate_size": draw(st.integers(1, 32)), "shared_expert_intermediate_size": draw(st.integers(1, 32)),
              "num_hidden_layers": layers, "num_experts": experts, "num_experts_per_tok": draw(st.integers(0, experts)),
              "decoder_sparse_step": draw(st.integers(1, 3)),
              "mlp_only_layers": draw(st.lists(st.integers(0, layers), max_size=2))}
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=30, deadline=None)
@given(config=moe_configs(), data=st.data())
def test_random_configs(config: dict, data: st.DataObject) -> None:
    check(data.draw(st.sampled_from(sorted(FAMILIES[config["model_type"]].ARCHITECTURES))), config)
