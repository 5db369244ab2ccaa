"""The GPT-NeoX derivation against transformers' GPT-NeoX classes: total and every node.

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
from derivations.families import gpt_neox

check = reference.check
SMALL = {"model_type": "gpt_neox", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
         "intermediate_size": 96, "vocab_size": 500}


@pytest.mark.parametrize("checkpoint", gpt_neox.FAMILY.checkpoints)
def test_checkpoint_causal_lm(checkpoint: str) -> None:
    # The class every bundled config names; the meta device holds shapes, not weights (12B and 20B too).
    check("GPTNeoXForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", gpt_neox.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", ["pythia-70m", "pythia-1b"])
def test_checkpoint_every_class(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("architecture", gpt_neox.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # GPTNeoXConfig's defaults are GPT-NeoX-20B's sizes: the same count as the bundled gpt-neox-20b.
    check(architecture, {"model_type": "gpt_neox"})


@pytest.mark.parametrize("flags", [
    {"tie_word_embeddings": True},
    {"attention_bias": False},
    {"use_parallel_residual": False},
    {"tie_word_embeddings": True, "attention_bias": False, "use_parallel_residual": False, "rotary_pct": 1.0},
], ids=["tied", "no-attention-bias", "sequential-residual", "all"])
@pytest.mark.parametrize("architecture", gpt_neox.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, {**SMALL, **flags})


def test_tying_is_real() -> None:
    model = reference.build("GPTNeoXForCausalLM", {**SMALL, "tie_word_embeddings": True})
    assert model.lm_head.weight is model.gpt_neox.embed_in.weight


def test_untied_by_default() -> None:
    # GPTNeoXConfig's tie_word_embeddings defaults to false, unlike GPT-2's.
    model = reference.build("GPTNeoXForCausalLM", SMALL)
    assert model.lm_head.weight is not model.gpt_neox.embed_in.weight
    assert registry.resolve(SMALL, "GPTNeoXForCausalLM").part == gpt_neox.ARCHITECTURES["GPTNeoXForCausalLM"]


def test_heads_must_divide_the_width() -> None:
    config = {**SMALL, "num_attention_heads": 5}
    with pytest.raises(Exception):
        reference.build("GPTNeoXModel", config)
    with pytest.raises(configs.ConfigError, match="not a multiple"):
        registry.resolve(config)


@pytest.mark.parametrize("field, value", [("use_parallel_residual", 1), ("tie_word_embeddings", "no"),
                                          ("attention_bias", None), ("rotary_pct", "x"), ("rotary_pct", None),
                                          ("rotary_pct", -1), ("rotary_pct", float("nan")), ("rotary_pct", float("inf")),
                                          ("rotary_emb_base", None), ("rope_scaling", "x")])
def test_what_transformers_refuses_is_refused(field: str, value) -> None:
    config = {**SMALL, field: value}
    with pytest.raises(Exception):
        reference.build("GPTNeoXModel", config)
    with pytest.raises(configs.ConfigError, match=field):
        registry.resolve(config)


@pytest.mark.parametrize("field, value", [("rotary_pct", True), ("rotary_pct", -0.01), ("rotary_emb_base", True)])
def test_what_transformers_accepts_is_accepted(field: str, value) -> None:
    # A boolean is a number to transformers, and -0.01 of a head of 16 rounds to no rotary dimension.
    check("GPTNeoXModel", {**SMALL, field: value})


@st.composite
def gpt_neox_configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    config = {"model_type": "gpt_neox", "vocab_size": draw(st.integers(1, 60000)),
              "num_hidden_layers": draw(st.integers(1, 3)), "hidden_size": heads * head_size,
              "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 1024)),
              "rotary_pct": draw(st.sampled_from([0.25, 0.5, 1.0, 1]))}
    maybe_flags(draw, config, "tie_word_embeddings", "attention_bias", "use_parallel_residual")
    maybe_labels(draw, config)
    return config


# Meta-device builds take ~20 ms each. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(gpt_neox.ARCHITECTURES)), config=gpt_neox_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


@pytest.mark.parametrize("index", range(len(gpt_neox.PYTHIA)))
def test_gpt3_layout_candidate_is_gpt2lmheadmodel(index: int) -> None:
    # The old names' third candidate: GPT2LMHeadModel with GPT-2's 50,257 tokens, 2,048 learned
    # positions and the Pythia size's depth and width (GPT-3's layout), counted by transformers.
    claim = gpt_neox.OLD_NAMES[index]
    values = registry.checkpoint(claim.checkpoint).values
    config = {"model_type": "gpt2", "vocab_size": 50257, "n_positions": 2048, "n_embd": values[gpt_neox.D],
              "n_layer": values[gpt_neox.L], "n_head": values[gpt_neox.H]}
    assert claim.exact(2) == reference.total(reference.build("GPT2LMHeadModel", config))
