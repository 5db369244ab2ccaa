"""The Qwen2 derivation against transformers' Qwen2 classes: total and every node, on the meta device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import qwen2
from test_reference_llama import head_sizes, runs

check = reference.check
SMALL = {"model_type": "qwen2", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2}


@pytest.mark.parametrize("checkpoint", qwen2.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    check("Qwen2ForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", qwen2.ARCHITECTURES)
def test_every_class(architecture: str) -> None:
    check(architecture, configs.load("qwen2.5-0.5b") | {"num_hidden_layers": 1})


def test_defaults() -> None:
    # Qwen2Config's defaults: 32 heads and 32 key/value heads of 128.
    check("Qwen2ForCausalLM", {"model_type": "qwen2", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"tie_word_embeddings": True}, {"token_classification_bias": False},
                                   {"attention_bias": False, "mlp_bias": True},  # no such options: ignored
                                   {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1},
                                   {"head_dim": 16}, {"hidden_size": 68},  # the floor: 8 heads of 8
                                   {"num_key_value_heads": None}],  # null: as many as the heads
                         ids=["tied", "no-token-bias", "bias-flags", "window", "head-dim", "floor", "null-kv"])
@pytest.mark.parametrize("architecture", ["Qwen2ForCausalLM", "Qwen2ForTokenClassification"])
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, SMALL | flags)


# Each refused config, with the words of the reader's one-line message; transformers 5.23 refuses each or
# builds a model whose forward pass fails (test_reference_llama.runs).
REFUSED = [
    ({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
    ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates
    ({"head_dim": None}, "head_dim"),  # getattr finds None: the projections cannot be sized
    ({"head_dim": 0}, "head_dim"),
    ({"hidden_size": 4}, "head size of 0"),
    ({"num_attention_heads": 4, "num_key_value_heads": 8}, "num_key_value_heads"),
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


def test_a_minimal_config_has_32_key_value_heads() -> None:
    # Qwen2Config's default num_key_value_heads is 32, not "as many as the heads": 16 heads cannot share them.
    config = {"model_type": "qwen2", "num_attention_heads": 16, "hidden_size": 64, "num_hidden_layers": 1,
              "vocab_size": 100, "intermediate_size": 8}
    with pytest.raises(configs.ConfigError, match="num_key_value_heads"):
        registry.resolve(config)
    assert not runs(config)


@st.composite
def qwen2_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": "qwen2", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=30, deadline=None)
@given(architecture=st.sampled_from(sorted(qwen2.ARCHITECTURES)), config=qwen2_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
