"""What only GPT-NeoX has, against transformers (the checks every family shares are tests/specs/gpt_neox.py's): the
head tied when asked and untied by default, and the old names' GPT-3 layout candidate."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import registry
from derivations.families import gpt_neox
from specs.gpt_neox import SPEC

SMALL = SPEC.small


def test_tying_is_real() -> None:
    model = reference.build("GPTNeoXForCausalLM", {**SMALL, "tie_word_embeddings": True})
    assert model.lm_head.weight is model.gpt_neox.embed_in.weight


def test_untied_by_default() -> None:
    # GPTNeoXConfig's tie_word_embeddings defaults to false, unlike GPT-2's.
    model = reference.build("GPTNeoXForCausalLM", SMALL)
    assert model.lm_head.weight is not model.gpt_neox.embed_in.weight
    assert registry.resolve(SMALL, "GPTNeoXForCausalLM").part == gpt_neox.ARCHITECTURES["GPTNeoXForCausalLM"]


@pytest.mark.parametrize("index", range(len(gpt_neox.PYTHIA)))
def test_gpt3_layout_candidate_is_gpt2lmheadmodel(index: int) -> None:
    # The old names' third candidate: GPT2LMHeadModel with GPT-2's 50,257 tokens, 2,048 learned
    # positions and the Pythia size's depth and width (GPT-3's layout), counted by transformers.
    claim = gpt_neox.OLD_NAMES[index]
    values = registry.checkpoint(claim.checkpoint).values
    config = {"model_type": "gpt2", "vocab_size": 50257, "n_positions": 2048, "n_embd": values[gpt_neox.D],
              "n_layer": values[gpt_neox.L], "n_head": values[gpt_neox.H]}
    assert claim.exact(2) == reference.total(reference.build("GPT2LMHeadModel", config))
