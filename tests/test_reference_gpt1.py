"""The GPT-1 derivation against transformers' OpenAI GPT classes: total and every node."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs
from derivations.families import gpt1

check = reference.check


@pytest.mark.parametrize("architecture", gpt1.ARCHITECTURES)
def test_checkpoint(architecture: str) -> None:
    check(architecture, configs.load("openai-gpt"))


@pytest.mark.parametrize("architecture", gpt1.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    check(architecture, {"model_type": "openai-gpt"})


@pytest.mark.parametrize("flags", [
    {"tie_word_embeddings": False}, {"summary_proj_to_labels": False}, {"summary_use_proj": False},
], ids=["untied", "summary-hidden", "no-summary"])
@pytest.mark.parametrize("architecture", gpt1.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, {"model_type": "openai-gpt", "n_layer": 2, **flags})


def test_double_heads_tie_the_other_way() -> None:
    # OpenAIGPTDoubleHeadsModel declares the tie from the embedding to the head; parameters() still
    # yields the one tensor once, under the name met first.
    model = reference.build("OpenAIGPTDoubleHeadsModel", configs.load("openai-gpt"))
    assert model.lm_head.weight is model.transformer.tokens_embed.weight
    check("OpenAIGPTDoubleHeadsModel", configs.load("openai-gpt"))


@st.composite
def gpt1_configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 12)), draw(st.integers(1, 48))
    config = {"model_type": "openai-gpt", "vocab_size": draw(st.integers(1, 60000)),
              "n_layer": draw(st.integers(1, 4)), "n_positions": draw(st.integers(1, 1024))}
    width, count = ("hidden_size", "num_attention_heads") if draw(st.booleans()) else ("n_embd", "n_head")
    config[width], config[count] = heads * head_size, heads
    maybe_flags(draw, config, "tie_word_embeddings", "summary_use_proj", "summary_proj_to_labels")
    maybe_labels(draw, config)
    return config


@settings(max_examples=60, deadline=None)
@given(architecture=st.sampled_from(sorted(gpt1.ARCHITECTURES)), config=gpt1_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
