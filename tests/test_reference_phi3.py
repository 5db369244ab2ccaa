"""The Phi-3 derivation against transformers' Phi3 classes: total and every node, on the meta device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import phi3
from test_reference_llama import head_sizes, runs

check = reference.check
SMALL = {"model_type": "phi3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "pad_token_id": 0}


@pytest.mark.parametrize("checkpoint", phi3.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    check("Phi3ForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", phi3.ARCHITECTURES)
def test_every_class(architecture: str) -> None:
    check(architecture, SMALL)


def test_the_default_padding_row_must_be_in_the_table() -> None:
    # Phi3Config's pad_token_id is 32000: a smaller vocabulary without a pad_token_id cannot be built.
    config = {k: v for k, v in SMALL.items() if k != "pad_token_id"}
    with pytest.raises(configs.ConfigError, match="pad_token_id"):
        registry.resolve(config)
    assert not runs(config)


def test_defaults() -> None:
    check("Phi3ForCausalLM", {"model_type": "phi3", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"tie_word_embeddings": True}, {"token_classification_bias": False},
                                   {"head_dim": 4}, {"num_key_value_heads": None}, {"hidden_size": 68}],
                         ids=["tied", "no-token-bias", "head-dim", "null-kv", "floor"])
def test_layouts(flags: dict) -> None:
    check("Phi3ForCausalLM", SMALL | flags)
    check("Phi3ForTokenClassification", SMALL | flags)


REFUSED = [
    ({"num_key_value_heads": 3}, "num_key_value_heads"),
    ({"head_dim": None}, "head_dim"),
    ({"head_dim": 0}, "head_dim"),
    ({"hidden_size": 4}, "head size of 0"),
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


@st.composite
def phi3_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "phi3", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)),
              "pad_token_id": 0}
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=30, deadline=None)
@given(architecture=st.sampled_from(sorted(phi3.ARCHITECTURES)), config=phi3_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
