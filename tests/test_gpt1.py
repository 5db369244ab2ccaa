"""GPT-1: its total, the identity of its block with GPT-2's, and the 117M the GPT-2 paper gives it."""

import sympy

from derivations import registry

from derivations.families import gpt1, gpt2
from derivations.symbols import D, L, P, V


def test_openai_gpt_total():
    # Hand-computed from the released config [cite: hub-openai-community]: 116,534,784 for OpenAIGPTModel (vocab 40,478, 512 positions,
    # no final LayerNorm); transformers recomputes it (tests/specs/gpt1.py).
    assert registry.checkpoint("openai-gpt", "OpenAIGPTModel").total == 116_534_784
    assert registry.checkpoint("openai-gpt").total == 116_534_784  # the tied LM head adds nothing


def test_closed_form():
    expected = (V + P) * D + L * (12 * D**2 + 13 * D)
    assert sympy.expand(gpt1.ARCHITECTURES["OpenAIGPTModel"].total - expected) == 0


def test_gpt2_moved_the_norms_and_added_one():
    # The same tensors in a block (GPT-2 moved the LayerNorms, it did not add any inside the block) ...
    assert sympy.expand(gpt1.layer.total - gpt2.layer_standard.total) == 0
    # ... and GPT-2 adds the final LayerNorm after the last block.
    assert sympy.expand(gpt2.GPT2Model_standard.total - gpt1.ARCHITECTURES["OpenAIGPTModel"].total) == 2 * D


def test_the_gpt2_papers_117m_holds_for_gpt1():
    # Radford et al. 2019: "The smallest model is equivalent to the original GPT", 117M.
    assert round(registry.checkpoint("openai-gpt", "OpenAIGPTModel").total, -6) == 117_000_000
    assert gpt1.original_117m.rounds()
