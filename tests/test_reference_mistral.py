"""What only Mistral has, against transformers (the checks every family shares are tests/specs/mistral.py's): its
bias flags are ignored, a minimal config with few heads is refused, and its tensors are LLaMA's."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from specs.mistral import SPEC

SMALL = SPEC.small


def test_bias_flags_are_ignored() -> None:
    # MistralAttention and MistralMLP build their projections without bias whatever the config says.
    config = SMALL | {"attention_bias": True, "mlp_bias": True}
    reference.check("MistralForCausalLM", config)
    assert registry.resolve(config).total == registry.resolve(SMALL).total


def test_minimal_config_with_few_heads_is_refused() -> None:
    # MistralConfig defaults num_key_value_heads to 8: with 4 query heads the attention cannot run.
    config = {"model_type": "mistral", "num_attention_heads": 4, "hidden_size": 64, "num_hidden_layers": 1,
              "vocab_size": 100, "intermediate_size": 8}
    with pytest.raises(configs.ConfigError, match="num_key_value_heads"):
        registry.resolve(config)
    assert not reference.builds_and_runs(config)


def test_same_tensors_as_llama() -> None:
    # The page's claim: Mistral's classes hold LLaMA's tensors. transformers' two causal LMs on the same
    # sizes, parameter by parameter.
    sizes = SMALL | {"num_hidden_layers": 1}
    shapes = {family: {name: tuple(p.shape) for name, p in
                       reference.build(f"{family}ForCausalLM", sizes | {"model_type": family.lower()}).named_parameters()}
              for family in ("Llama", "Mistral")}
    assert shapes["Llama"] == shapes["Mistral"]
