"""Phi-3 and Phi-4: published sizes, the fused matrices, symbolic identities.

Expected values come from outside the project: the reports and model cards named beside each, and transformers
(tests/specs/phi3.py, run by the reference harness, recomputes every total on the meta device).
"""

import sympy

from derivations import configs, registry
from derivations.families import llama, phi3


def test_published_sizes():
    # "3.8 billion" (Phi-3-mini [cite: abdin2024phi3], Phi-3.5-mini [cite: hub-microsoft-phi], Phi-4-mini
    # [cite: microsoft2025phi4mini]) and "14B" (Phi-3-medium [cite: abdin2024phi3]) are the counts rounded.
    for name, tenths in (("phi-3-mini-4k", 38), ("phi-3.5-mini", 38), ("phi-4-mini", 38), ("phi-3-medium-4k", 140)):
        assert round(registry.checkpoint(name).total / 10**8) == tenths


def test_phi_4_is_14_billion_truncated():
    # [cite: abdin2024phi4]: "a 14-billion parameter language model".
    total = registry.checkpoint("phi-4").total
    assert total // 10**9 == 14 and round(total / 10**9) == 15


def test_fused_matrices_hold_the_separate_ones():
    assert sympy.expand(phi3.layer.total - llama.layer.total) == 0


def test_only_phi_4_mini_ties_its_head():
    assert [configs.load(n)["tie_word_embeddings"] for n in phi3.FAMILY.checkpoints] == [False, False, False, False, True]
