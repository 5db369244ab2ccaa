"""What only DeepSeek-V2 and V3 have, against transformers (the checks every family shares are
tests/specs/deepseek_v2.py's and tests/specs/deepseek_v3.py's): the router's correction bias is a buffer there; the
active count, measured by running one token."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import registry
from derivations.families import deepseek_v2, deepseek_v3
from specs.deepseek_v2 import SIZES

FAMILIES = {"deepseek_v2": deepseek_v2, "deepseek_v3": deepseek_v3}
CAUSAL = {"deepseek_v2": "DeepseekV2ForCausalLM", "deepseek_v3": "DeepseekV3ForCausalLM"}


def test_the_router_bias_is_a_buffer_in_transformers() -> None:
    model = reference.build("DeepseekV3ForCausalLM", SIZES | {"model_type": "deepseek_v3"})
    buffers = {name for name, _ in model.named_buffers() if name.endswith("e_score_correction_bias")}
    assert buffers == {f"model.layers.{i}.mlp.gate.e_score_correction_bias" for i in (1, 2)}
    assert not any(name.endswith("e_score_correction_bias") for name, _ in model.named_parameters())


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_active_count_is_what_one_token_reads(model_type: str) -> None:
    # One token through a small model with real weights: the parameters with a gradient are the ones it used; of
    # the stacked experts, the rows the router picked. The embedding table counts whole (the convention).
    torch, transformers = reference.torch, reference.transformers
    config = SIZES | {"model_type": model_type}
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
