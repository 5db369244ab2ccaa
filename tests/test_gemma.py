"""Gemma: the paper's exact counts, the released vocabulary, symbolic identities.

Expected values come from outside the project: the paper's Table 2 [cite: gemma2024, Table 2], the released
configs [cite: hub-google-gemma], and transformers (tests/specs/gemma.py, run by tests/test_reference_families.py).
"""

import sympy

from derivations import registry
from derivations.families import gemma, llama
from derivations.symbols import D, F, V

# Table 2: embedding and non-embedding parameters, exact.
TABLE_2 = {"gemma-2b": (524_550_144, 1_981_884_416), "gemma-7b": (786_825_216, 7_751_248_896)}


def test_the_papers_table_2_at_its_vocabulary():
    for name, (embedding, rest) in TABLE_2.items():
        values = registry.checkpoint(name).values
        assert gemma.embedding_parameters.count(values | {V: 256_128}) == embedding
        assert gemma.non_embedding.count(values) == rest


def test_the_released_models_hold_128_rows_fewer():
    # config.json: vocab_size 256,000; the paper: 256,128.
    for name, (embedding, rest) in TABLE_2.items():
        resolved = registry.checkpoint(name)
        assert resolved.total == embedding + rest - 128 * resolved.values[D]


def test_the_papers_feedforward_dims_are_twice_the_configs():
    # Table 1: "Feedforward hidden dims" 32,768 and 49,152.
    assert [gemma.feedforward_hidden_dims.count(registry.checkpoint(n).values) for n in TABLE_2] == [32_768, 49_152]


def test_the_layer_is_llamas_with_its_own_head_size():
    assert sympy.expand(gemma.layer.total - llama.layer.total) == 0
    assert sympy.expand(gemma.ARCHITECTURES["GemmaForCausalLM"].total - gemma.ARCHITECTURES["GemmaModel"].total) == 0  # tied
    assert F in gemma.layer.total.free_symbols
