"""The GPT-2 derivation (and GPT-3's rows) against transformers' GPT-2 classes: total and every node.

The expected numbers are transformers' own, measured on the meta device (see reference.py); the
derivation is evaluated on the same config dict, through ``derivations.configs.resolve``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import gpt2, gpt3

check = reference.check


@pytest.mark.parametrize("architecture", gpt2.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", gpt2.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("checkpoint", gpt3.FAMILY.checkpoints)
def test_gpt3_rows(checkpoint: str) -> None:
    # GPT-3's rows are GPT-2's layout at other sizes: GPT2LMHeadModel builds each of them (175B too:
    # the meta device holds shapes, not weights).
    check("GPT2LMHeadModel", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", gpt2.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    check(architecture, {"model_type": "gpt2"})


@pytest.mark.parametrize("flags", [
    {"add_cross_attention": True},
    {"tie_word_embeddings": False},
    {"summary_proj_to_labels": False},
    {"summary_use_proj": False},
    {"add_cross_attention": True, "tie_word_embeddings": False, "summary_use_proj": False},
], ids=["cross", "untied", "summary-hidden", "no-summary", "all"])
@pytest.mark.parametrize("architecture", gpt2.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, {"model_type": "gpt2", "n_layer": 2, **flags})


def test_attribute_map_names_win() -> None:
    # GPT2Config maps hidden_size onto n_embd (and so on); given both, the mapped name wins.
    config = {"model_type": "gpt2", "hidden_size": 64, "n_embd": 128, "num_attention_heads": 4, "n_head": 8,
              "num_hidden_layers": 1, "max_position_embeddings": 16}
    check("GPT2LMHeadModel", config)
    assert registry.resolve(config).values[gpt2.D] == 64


def test_double_heads_refuse_attention_summary() -> None:
    config = {"model_type": "gpt2", "n_layer": 1, "summary_type": "attn"}
    with pytest.raises(NotImplementedError):
        reference.build("GPT2DoubleHeadsModel", config)
    with pytest.raises(configs.ConfigError, match="summary_type"):
        registry.resolve(config, "GPT2DoubleHeadsModel")
    check("GPT2LMHeadModel", config)  # the other classes ignore it


@st.composite
def gpt2_configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 12)), draw(st.integers(1, 48))
    config = {"model_type": "gpt2", "vocab_size": draw(st.integers(1, 60000)),
              "n_layer": draw(st.integers(1, 4)), "n_positions": draw(st.integers(1, 2048))}
    # The width and heads under their own names or under the names attribute_map gives them.
    width, count = ("hidden_size", "num_attention_heads") if draw(st.booleans()) else ("n_embd", "n_head")
    config[width], config[count] = heads * head_size, heads
    config["n_inner"] = draw(st.one_of(st.none(), st.integers(1, 4096)))  # null: four times the width
    maybe_flags(draw, config, "add_cross_attention", "tie_word_embeddings", "summary_use_proj", "summary_proj_to_labels")
    maybe_labels(draw, config)
    return config


# Meta-device builds take ~20 ms each. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(gpt2.ARCHITECTURES)), config=gpt2_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


def test_tying_is_real() -> None:
    # The head *is* the token embedding: [cite: transformers-14960] prints "Whole model: 124439808" and the
    # head's 38,597,376 inside it, not beside it.
    model = reference.build("GPT2LMHeadModel", configs.load("gpt2"))
    assert reference.total(model) == 124_439_808
    assert model.lm_head.weight is model.transformer.wte.weight
