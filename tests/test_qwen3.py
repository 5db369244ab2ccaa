"""Qwen3: the model cards' figures, symbolic identities.

Expected values come from outside the project: the model cards, and transformers
(tests/specs/qwen3.py: every total recomputed on the meta device).
"""

import sympy

from derivations import configs, registry
from derivations.families import llama, qwen3
from derivations.symbols import K, d_h

# The model cards [cite: hub-qwen, Qwen3-0.6B to -32B]: "Number of Parameters", "... (Non-Embedding)".
CARDS = {"qwen3-0.6b": ("0.6", "0.44"), "qwen3-1.7b": ("1.7", "1.4"), "qwen3-4b": ("4.0", "3.6"),
         "qwen3-8b": ("8.2", "6.95"), "qwen3-14b": ("14.8", "13.2"), "qwen3-32b": ("32.8", "31.2")}


def test_every_card_line_is_the_exact_count_rounded():
    for name, printed in CARDS.items():
        resolved = registry.checkpoint(name)
        for count, figure in zip((resolved.total, qwen3.non_embedding.count(resolved.values)), printed):
            decimals = len(figure.split(".")[1])
            assert f"{count / 10**9:.{decimals}f}" == figure, (name, count, figure)


def test_the_head_size_is_its_own():
    # Qwen3-0.6B's config.json: head_dim 128 with 16 heads in a width of 1,024.
    values = registry.checkpoint("qwen3-0.6b").values
    assert values[d_h] * 16 == 2 * 1024


def test_the_layer_is_llamas_with_two_head_norms():
    assert sympy.expand(qwen3.layer.total - llama.layer.total - 2 * d_h) == 0
    assert K in qwen3.layer.total.free_symbols


def test_tied_checkpoints_build_the_tied_layout():
    for name in qwen3.FAMILY.checkpoints:
        assert configs.load(name)["tie_word_embeddings"] == (name in qwen3.TIED_CHECKPOINTS)
