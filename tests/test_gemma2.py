"""Gemma 2: the paper's exact counts, the released vocabulary, symbolic identities.

Expected values come from outside the project: the paper's Table 2 [cite: gemma2-2024, Table 2], the released
configs [cite: hub-google-gemma], and transformers (tests/specs/gemma2.py, run by tests/test_reference_families.py).
"""

import sympy

from derivations import registry
from derivations.families import gemma, gemma2
from derivations.symbols import D, L, V

TABLE_2 = {"gemma-2-2b": (590_118_912, 2_024_517_888), "gemma-2-9b": (917_962_752, 8_324_201_984),
           "gemma-2-27b": (1_180_237_824, 26_047_480_320)}


def test_the_papers_table_2_at_its_vocabulary():
    for name, (embedding, rest) in TABLE_2.items():
        values = registry.checkpoint(name).values
        assert gemma2.embedding_parameters.count(values | {V: 256_128}) == embedding
        assert gemma2.non_embedding.count(values) == rest
        assert registry.checkpoint(name).total == embedding + rest - 128 * values[D]


def test_the_papers_feedforward_dims_are_twice_the_configs():
    # Table 1: "Feedforward dim" 18,432, 28,672 and 73,728.
    dims = [gemma2.feedforward_hidden_dims.count(registry.checkpoint(n).values) for n in TABLE_2]
    assert dims == [18_432, 28_672, 73_728]


def test_four_norms_a_layer():
    assert sympy.expand(gemma2.layer.total - gemma.layer.total - 2 * D) == 0
    assert sympy.expand(gemma2.non_embedding.total - (L * gemma2.layer.total + D)) == 0
