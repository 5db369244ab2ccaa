"""What only Qwen2-MoE and Qwen3-MoE have, against transformers (the checks every family shares are
tests/specs/qwen2_moe.py's and tests/specs/qwen3_moe.py's): the active count, measured by running one token."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import registry
from derivations.families import qwen2_moe, qwen3_moe
from specs.qwen2_moe import SIZES

FAMILIES = {"qwen2_moe": qwen2_moe, "qwen3_moe": qwen3_moe}
CAUSAL = {"qwen2_moe": "Qwen2MoeForCausalLM", "qwen3_moe": "Qwen3MoeForCausalLM"}


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_active_count_is_what_one_token_reads(model_type: str) -> None:
    # One token through a small model with real weights: the parameters whose gradient is not zero are the ones it
    # used. The router's top-k picks X_a experts in each expert layer; the rest of the model is used whole except
    # the embedding rows of the other tokens (the convention counts the table whole, so add them back).
    torch, transformers = reference.torch, reference.transformers
    config = SIZES | {"model_type": model_type, "mlp_only_layers": [1], "norm_topk_prob": True}
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
