"""The gpt-oss derivation against transformers' GptOss classes: total and every node, on the meta device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import gpt_oss
from test_reference_llama import head_sizes, runs

check = reference.check
SMALL = {"model_type": "gpt_oss", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 8,
         "num_local_experts": 4, "num_experts_per_tok": 2}


@pytest.mark.parametrize("checkpoint", gpt_oss.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    check("GptOssForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", gpt_oss.ARCHITECTURES)
def test_every_class(architecture: str) -> None:
    check(architecture, SMALL)


def test_defaults() -> None:
    check("GptOssForCausalLM", {"model_type": "gpt_oss", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"attention_bias": False}, {"tie_word_embeddings": True},
                                   {"token_classification_bias": False}, {"num_experts": 3}, {"hidden_size": 66}],
                         ids=["no-bias", "tied", "no-token-bias", "alias", "odd-width"])
def test_layouts(flags: dict) -> None:
    check("GptOssForCausalLM", SMALL | flags)
    check("GptOssForTokenClassification", SMALL | flags)


REFUSED = [
    ({"num_key_value_heads": 3}, "num_key_value_heads"),
    ({"head_dim": 7}, "head size"),
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
    ({"head_dim": None}, "head_dim"),
    ({"num_key_value_heads": None}, "num_key_value_heads"),
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


def test_top_0_runs() -> None:
    # The router may pick no expert: transformers builds and runs it, and the experts add nothing.
    assert runs(SMALL | {"num_experts_per_tok": 0})
    check("GptOssForCausalLM", SMALL | {"num_experts_per_tok": 0})


@st.composite
def gpt_oss_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    experts = draw(st.integers(1, 6))
    config = {"model_type": "gpt_oss", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": draw(st.integers(1, 96)), "head_dim": draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 64)), "num_hidden_layers": draw(st.integers(1, 3)),
              "num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=30, deadline=None)
@given(architecture=st.sampled_from(sorted(gpt_oss.ARCHITECTURES)), config=gpt_oss_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
