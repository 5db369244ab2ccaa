"""The Mistral derivation against transformers' Mistral classes: total and every node, on the meta device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import mistral
from test_reference_llama import runs

check = reference.check
SMALL = {"model_type": "mistral", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2}


def test_mistral_7b() -> None:
    check("MistralForCausalLM", configs.load("mistral-7b"))


@pytest.mark.parametrize("architecture", mistral.ARCHITECTURES)
def test_every_class(architecture: str) -> None:
    check(architecture, configs.load("mistral-7b") | {"num_hidden_layers": 1})


@pytest.mark.parametrize("architecture", mistral.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # MistralConfig's defaults: Mistral-7B's sizes with 8 key/value heads.
    check(architecture, {"model_type": "mistral", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"tie_word_embeddings": True}, {"token_classification_bias": False},
                                   {"tie_word_embeddings": True, "token_classification_bias": False}],
                         ids=["tied", "no-token-bias", "both"])
@pytest.mark.parametrize("architecture", mistral.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, SMALL | flags)


def test_bias_flags_are_ignored() -> None:
    # MistralAttention and MistralMLP build their projections without bias whatever the config says.
    config = SMALL | {"attention_bias": True, "mlp_bias": True}
    check("MistralForCausalLM", config)
    assert registry.resolve(config).total == registry.resolve(SMALL).total


@pytest.mark.parametrize("window", [8, 4096, None])
def test_sliding_window_adds_nothing(window: int | None) -> None:
    # The window is a mask: transformers' count, and the derivation's (which has no window symbol), agree.
    check("MistralModel", SMALL | {"sliding_window": window})


# Each refused config, with the words of the reader's one-line message; transformers 5.23 refuses each
# or builds a model whose forward pass fails (test_reference_llama.runs).
REFUSED = [
    ({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
    ({"num_key_value_heads": None}, "num_key_value_heads"),  # a plain int in MistralConfig: null is refused
    ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
    ({"hidden_size": 24}, "head size"),  # 24 / 8 = 3
    ({"hidden_size": 4}, "head size of 0"),  # the rotary embedding divides by the head size
    ({"tie_word_embeddings": 1}, "tie_word_embeddings"),  # MistralConfig is strict about bools
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


def test_minimal_config_with_few_heads_is_refused() -> None:
    # MistralConfig defaults num_key_value_heads to 8: with 4 query heads the attention cannot run.
    config = {"model_type": "mistral", "num_attention_heads": 4, "hidden_size": 64, "num_hidden_layers": 1,
              "vocab_size": 100, "intermediate_size": 8}
    with pytest.raises(configs.ConfigError, match="num_key_value_heads"):
        registry.resolve(config)
    assert not runs(config)


# Edges the reader accepts because transformers builds and runs them, unlike LLaMA's.
ACCEPTED = [
    {"head_dim": 0},  # MistralAttention reads 0 as unset: hidden_size // num_attention_heads
    {"hidden_size": 66, "num_attention_heads": 4},  # not a multiple: each head has the floor, 16
    {"hidden_size": 70, "head_dim": 12},  # head_dim set: the heads need not cover the width
    {"attention_bias": 1, "mlp_bias": "yes"},  # not fields of MistralConfig: ignored
]


@pytest.mark.parametrize("config", ACCEPTED, ids=str)
def test_accepted_by_both(config: dict) -> None:
    assert runs(SMALL | config)
    check("MistralForCausalLM", SMALL | config)


def test_same_tensors_as_llama() -> None:
    # The page's claim: Mistral's classes hold LLaMA's tensors. transformers' two causal LMs on the same
    # sizes, parameter by parameter.
    sizes = SMALL | {"num_hidden_layers": 1}
    shapes = {family: {name: tuple(p.shape) for name, p in
                       reference.build(f"{family}ForCausalLM", sizes | {"model_type": family.lower()}).named_parameters()}
              for family in ("Llama", "Mistral")}
    assert shapes["Llama"] == shapes["Mistral"]


head_sizes = st.integers(1, 32).filter(lambda size: size == 1 or size % 2 == 0)


@st.composite
def mistral_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "mistral", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=60, deadline=None)
@given(architecture=st.sampled_from(sorted(mistral.ARCHITECTURES)), config=mistral_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
