"""Gemma 3's language model: the report's counts, symbolic identities.

Expected values come from outside the project: the report's Table 1 [cite: gemma3-2025, Table 1], the released
configs [cite: hub-google-gemma], and transformers (tests/specs/gemma3_text.py, run by tests/test_reference_families.py).
"""

import sympy

from derivations import registry
from derivations.families import gemma2, gemma3_text
from derivations.symbols import d_h

# Table 1, millions: non-embedding parameters of the 1B, 4B, 12B and 27B; the 1B's embedding parameters.
NON_EMBEDDING = {"gemma-3-1b": 698, "gemma-3-4b": 3_209, "gemma-3-12b": 10_759, "gemma-3-27b": 25_600}


def test_every_non_embedding_figure_rounds_from_the_exact_count():
    for name, millions in NON_EMBEDDING.items():
        assert round(gemma3_text.non_embedding.count(registry.checkpoint(name).values) / 10**6) == millions


def test_the_1b_embedding():
    assert round(gemma3_text.embedding_parameters.count(registry.checkpoint("gemma-3-1b").values) / 10**6) == 302


def test_the_layer_is_gemma_2s_with_two_head_norms():
    assert sympy.expand(gemma3_text.layer.total - gemma2.layer.total - 2 * d_h) == 0
