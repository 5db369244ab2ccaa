"""BART: the published totals, and what BART adds to the original Transformer's layout.

Every class against transformers on the meta device is tests/specs/bart.py's (the reference harness)."""

import sympy

from derivations import registry
from derivations.families import bart, transformer
from derivations.symbols import D, P


def test_published_totals():
    # [cite: transformers-11574] quotes transformers' pretrained models page: bart-large "406M parameters", bart-base
    # "139M parameters"; [cite: promptlayer-bart]: bart-large-cnn "406M"; [cite: vips-bart-large]: bart-large "~400M".
    assert round(registry.checkpoint("bart-base", "BartForConditionalGeneration").total, -6) == 139_000_000
    assert round(registry.checkpoint("bart-large-cnn", "BartForConditionalGeneration").total, -6) == 406_000_000
    assert round(registry.checkpoint("bart-large", "BartForConditionalGeneration").total, -6) == 406_000_000
    assert round(registry.checkpoint("bart-large", "BartForConditionalGeneration").total, -8) == 400_000_000
    assert all(claim.rounds() for claim in bart.ROUNDED)


def test_bart_large_and_cnn_are_one_shape():
    # The summarizer is bart-large fine-tuned: the same sizes, the same count.
    assert registry.checkpoint("bart-large").values == registry.checkpoint("bart-large-cnn").values


def test_over_the_transformer_layout():
    # Against Marian's layout at the same sizes: per stack, a learned table of P + 2 rows
    # (BartLearnedPositionalEmbedding: offset 2) and the embedding LayerNorm; the layers are the same tensors.
    assert sympy.expand(bart.over_marian - 2 * ((P + 2) * D + 2 * D)) == 0
    assert sympy.expand(bart.layer.total - transformer.layer.total) == 0
    assert sympy.expand(bart.cross_layer.total - transformer.cross_layer.total) == 0


def test_final_logits_bias_is_not_a_parameter():
    # BartForConditionalGeneration registers final_logits_bias with nn.Buffer: the tied head adds nothing.
    generation = bart.ARCHITECTURES["BartForConditionalGeneration"]
    assert sympy.expand(generation.total - bart.ARCHITECTURES["BartModel"].total) == 0
