"""GPTBigCode (SantaCoder, StarCoder): the published sizes, symbolic identities, and the names reconciled.

Expected values come from outside the project: the model cards and tensor shapes named below, and transformers
(tests/specs/gpt_bigcode.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import registry
from derivations.families import gpt2, gpt_bigcode
from derivations.symbols import D, H, K, d_h


def test_multi_query_c_attn_is_the_checkpoints_shape():
    # SantaCoder's checkpoint stores transformer.h.0.attn.c_attn.weight as [2304, 2048]: 2,048 query rows and one
    # key head and one value head of 128 (lablup's mlxcel quotes the shape in its GPTBigCode loader's tests).
    values = registry.checkpoint("santacoder").values
    qkv = gpt_bigcode.attention.child("qkv")
    assert qkv.count(values) == 2304 * 2048 + 2304


# Plain Python from the architecture as described (not from the package): token and position tables, L blocks of
# two LayerNorms (4D), c_attn D x (D + 2 d_h) with bias, c_proj D x D with bias, a feed-forward of F with biases,
# and a final LayerNorm; the head is the token table.
def bigcode_count(vocabulary: int, positions: int, layers: int, width: int, heads: int, inner: int) -> int:
    head = width // heads
    block = 4 * width + (width * (width + 2 * head) + width + 2 * head) + (width * width + width) \
        + (2 * width * inner + inner + width)
    return (vocabulary + positions) * width + layers * block + 2 * width


@pytest.mark.parametrize("checkpoint", gpt_bigcode.CHECKPOINTS)
def test_plain_python_agrees(checkpoint):
    resolved = registry.checkpoint(checkpoint)
    v = {str(k): n for k, n in resolved.values.items()}
    assert resolved.architecture == "GPTBigCodeForCausalLM"
    assert resolved.total == bigcode_count(v["V"], v["P"], v["L"], v["D"], v["H"], v["F"])


@pytest.mark.parametrize("claim", gpt_bigcode.NAMES, ids=lambda c: c.name)
def test_the_cards_names_round_from_the_totals(claim):
    # "The StarCoder models are 15.5B parameter models" and "a series of 1.1B parameter models" (the cards).
    assert claim.rounds(0)


def test_multi_query_saves_two_d_squared_less_two_d_dh_a_layer():
    # Against GPT-2's block (K = H), one key/value head saves 2 D (D - d_h) weights and 2 (D - d_h) biases.
    saved = sympy.expand((gpt2.layer.total - gpt_bigcode.layer.total).subs(K, 1).subs(H, D / d_h))
    assert sympy.expand(saved - 2 * (D + 1) * (D - d_h)) == 0


def test_the_cache_is_one_head():
    # Multi-query: each token leaves one key head and one value head per layer, 2 d_h (GPT-2: 2D).
    assert gpt_bigcode.attention.cache == 2 * K * d_h
    assert registry.checkpoint("starcoder").values[K] == 1
