"""The DeepSeek-V2 and V3 derivations against transformers' classes: total and every node (the dense and the expert
layers apart), on the meta device; the router's correction bias is a buffer there; the active count measured by
running one token."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import deepseek_v2, deepseek_v3
from test_reference_llama import runs

check = reference.check
FAMILIES = {"deepseek_v2": deepseek_v2, "deepseek_v3": deepseek_v3}
CAUSAL = {"deepseek_v2": "DeepseekV2ForCausalLM", "deepseek_v3": "DeepseekV3ForCausalLM"}
SMALL = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 48, "moe_intermediate_size": 16,
         "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "n_shared_experts": 2, "first_k_dense_replace": 1, "q_lora_rank": 24,
         "kv_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 12, "v_head_dim": 10, "n_group": 1,
         "topk_group": 1}


@pytest.mark.parametrize("checkpoint", deepseek_v2.FAMILY.checkpoints + deepseek_v3.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    config = configs.load(checkpoint)
    check(CAUSAL[config["model_type"]], config)


@pytest.mark.parametrize("model_type, architecture", [(t, a) for t, f in FAMILIES.items() for a in f.ARCHITECTURES])
def test_every_class(model_type: str, architecture: str) -> None:
    check(architecture, SMALL | {"model_type": model_type})


@pytest.mark.parametrize("model_type", FAMILIES)
@pytest.mark.parametrize("extra", [{"q_lora_rank": None}, {"attention_bias": True}, {"tie_word_embeddings": True},
                                   {"first_k_dense_replace": 0}, {"first_k_dense_replace": 5},
                                   {"num_experts_per_tok": 0}, {"qk_nope_head_dim": 0}],
                         ids=["no-q-lora", "bias", "tied", "no-dense", "all-dense", "top-0", "no-nope"])
def test_layouts(model_type: str, extra: dict) -> None:
    check(CAUSAL[model_type], SMALL | {"model_type": model_type} | extra)


def test_v2_mlp_bias() -> None:
    check("DeepseekV2ForCausalLM", SMALL | {"model_type": "deepseek_v2", "mlp_bias": True})


def test_the_router_bias_is_a_buffer_in_transformers() -> None:
    model = reference.build("DeepseekV3ForCausalLM", SMALL | {"model_type": "deepseek_v3"})
    buffers = {name for name, _ in model.named_buffers() if name.endswith("e_score_correction_bias")}
    assert buffers == {f"model.layers.{i}.mlp.gate.e_score_correction_bias" for i in (1, 2)}
    assert not any(name.endswith("e_score_correction_bias") for name, _ in model.named_parameters())


REFUSED = [
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
    ({"qk_rope_head_dim": 7}, "qk_rope_head_dim"),
    ({"first_k_dense_replace": None}, "first_k_dense_replace"),
]


@pytest.mark.parametrize("model_type", FAMILIES)
@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(model_type: str, config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | {"model_type": model_type} | config)
    assert not runs(SMALL | {"model_type": model_type} | config)


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_active_count_is_what_one_token_reads(model_type: str) -> None:
    # One token through a small model with real weights: the parameters with a gradient are the ones it used; of
    # the stacked experts, the rows the router picked. The embedding table counts whole (the convention).
    torch, transformers = reference.torch, reference.transformers
    config = SMALL | {"model_type": model_type}
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
        else:
            used += p.numel()
    assert used == FAMILIES[model_type].ACTIVE[CAUSAL[model_type]].count(registry.resolve(config).values)


@st.composite
def deepseek_configs(draw: st.DrawFn) -> dict:
    experts = draw(st.integers(1, 5))
    layers = draw(st.integers(1, 4))
    heads = draw(st.integers(1, 4))
    config = {"model_type": draw(st.sampled_from(sorted(FAMILIES))), "vocab_size": draw(st.integers(1, 3000)),
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


@settings(max_examples=30, deadline=None)
@given(config=deepseek_configs(), data=st.data())
def test_random_configs(config: dict, data: st.DataObject) -> None:
    check(data.draw(st.sampled_from(sorted(FAMILIES[config["model_type"]].ARCHITECTURES))), config)
