"""The Qwen3 derivation against transformers' Qwen3 classes: total and every node, on the meta device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import qwen3
from test_reference_llama import head_sizes, runs

check = reference.check
SMALL = {"model_type": "qwen3", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16}


@pytest.mark.parametrize("checkpoint", qwen3.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    check("Qwen3ForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", qwen3.ARCHITECTURES)
def test_every_class(architecture: str) -> None:
    check(architecture, configs.load("qwen3-0.6b") | {"num_hidden_layers": 1})


def test_defaults() -> None:
    # Qwen3Config's defaults: 32 heads and 32 key/value heads of 128.
    check("Qwen3ForCausalLM", {"model_type": "qwen3", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"tie_word_embeddings": True}, {"token_classification_bias": False},
                                   {"attention_bias": True}, {"head_dim": 2}, {"num_key_value_heads": None},
                                   {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1}],
                         ids=["tied", "no-token-bias", "bias", "head-dim", "null-kv", "window"])
@pytest.mark.parametrize("architecture", ["Qwen3ForCausalLM", "Qwen3ForTokenClassification"])
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, SMALL | flags)


REFUSED = [
    ({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
    ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
    ({"head_dim": None}, "head_dim"),
    ({"head_dim": 0}, "head_dim"),
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


def test_a_width_the_heads_do_not_divide_runs() -> None:
    # The head size is head_dim: the width need not be a multiple of the heads.
    assert runs(SMALL | {"hidden_size": 66})
    check("Qwen3ForCausalLM", SMALL | {"hidden_size": 66})


@st.composite
def qwen3_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "qwen3", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": draw(st.integers(1, 128)),
              "head_dim": draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=30, deadline=None)
@given(architecture=st.sampled_from(sorted(qwen3.ARCHITECTURES)), config=qwen3_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
