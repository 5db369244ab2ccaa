"""The original Transformer: the paper's totals, Table 3 reconciled, nn.Transformer's extra norms,
and the "60M" formula.

Expected values come from the paper (Table 3's printed counts, section 3.4's sharing), the exact totals
with 37,000 tokens computed by hand from the paper's sizes, PyTorch's own count of nn.MultiheadAttention, and
transformers' Marian on the meta device (tests/specs/transformer.py).
"""

import pytest
import sympy

from derivations import registry

from derivations.families import transformer
from derivations.symbols import D, F, F_d, L, L_d, V


def test_totals_with_37000_tokens():
    # 63,082,496 and 214,245,376, non-embedding 44,138,496 and 176,357,376, computed by hand from the sizes of
    # [cite: vaswani2017, Table 3 and sections 3.4 and 5.1]; tests/specs/transformer.py builds both in Marian on the meta device.
    assert registry.checkpoint("transformer-base").total == 63_082_496
    assert registry.checkpoint("transformer-big").total == 214_245_376
    assert transformer.body.count(registry.checkpoint("transformer-base").values) == 44_138_496
    assert transformer.body.count(registry.checkpoint("transformer-big").values) == 176_357_376


def test_counts_as_functions_of_the_vocabulary():
    assert sympy.expand(transformer.base_by_vocabulary.rhs - (512 * V + 44_138_496)) == 0
    assert sympy.expand(transformer.big_by_vocabulary.rhs - (1024 * V + 176_357_376)) == 0


def test_one_matrix_for_source_target_and_output():
    # Section 3.4: one V x D matrix in all, whatever the depth.
    assert sympy.expand(transformer.Transformer.total - transformer.body.total) == V * D


def test_attention_block_is_nn_multiheadattention():
    # [cite: pytorch-60853]: nn.MultiheadAttention(512, h) has 1,050,624 parameters for any h.
    assert transformer.layer.child("self_attention").count({D: 512, transformer.H: 8}) == 1_050_624


def test_nn_transformer_adds_two_final_layernorms():
    assert transformer.torch_minus_paper == 4 * D


def test_layers_closed_form():
    encoder = 4 * D**2 + 4 * D + 2 * D + 2 * D * F + F + D + 2 * D
    decoder = 2 * (4 * D**2 + 4 * D) + 3 * 2 * D + 2 * D * F_d + F_d + D
    assert sympy.expand(transformer.layer.total - encoder) == 0
    assert sympy.expand(transformer.cross_layer.total - decoder) == 0
    assert transformer.body.total.free_symbols == {D, F, L}
    assert sympy.expand(transformer.body.total - L * (encoder + decoder.subs(F_d, F))) == 0
    assert L_d not in transformer.Transformer.total.free_symbols


# ---------------------------------------------------------------------------------------------
# Table 3
# ---------------------------------------------------------------------------------------------

# Vaswani et al. 2017, Table 3, the params x 10^6 column: base, (B) d_k 16 / 32, (C) N 2 / 4 / 8,
# d_model 256 / 1024, d_ff 1024 / 4096, big.
PRINTED = [65, 58, 60, 36, 50, 80, 28, 168, 53, 90, 213]


def test_the_claims_are_the_tables():
    assert [c.claim // 10**6 for c in transformer.TABLE_3] == PRINTED


def half_up(count: int, precision: int = 10**6) -> int:
    """Rounded to the nearest multiple of ``precision``, halves up, as the pages round."""
    return (count + precision // 2) // precision * precision


def reproduces(vocabulary: int, rows) -> bool:
    return all(half_up(row.exact(V=vocabulary)) == row.claim for row in rows)


# The paper's model in plain Python, from its description and not from the package: one V x d_model
# matrix; per encoder layer an attention block (Q and K of h d_k, V and O of h d_v, with biases), a
# feed-forward with biases, two LayerNorms; per decoder layer two attention blocks and three LayerNorms.
def paper_count(vocabulary, N=6, d_model=512, d_ff=2048, h=8, d_k=None, d_v=None, bias=True):
    d_k, d_v = d_k or d_model // h, d_v or d_model // h
    b = 1 if bias else 0
    attention = 2 * (d_model * h * d_k + b * h * d_k) + (d_model * h * d_v + b * h * d_v) + (h * d_v * d_model + b * d_model)
    feed_forward = 2 * d_model * d_ff + b * (d_ff + d_model)
    return vocabulary * d_model + N * ((attention + feed_forward + 4 * d_model) + (2 * attention + feed_forward + 6 * d_model))


# Table 3's rows as printed: (changed sizes, params x 10^6).
ROWS = [({}, 65), ({"d_k": 16}, 58), ({"d_k": 32}, 60), ({"N": 2}, 36), ({"N": 4}, 50), ({"N": 8}, 80),
        ({"d_model": 256}, 28), ({"d_model": 1024}, 168), ({"d_ff": 1024}, 53), ({"d_ff": 4096}, 90),
        ({"d_model": 1024, "d_ff": 4096, "h": 16}, 213)]


def window(rows, bias=True, search=range(30_000, 50_001)) -> tuple[int, int] | None:
    """Every vocabulary (by brute force) for which the plain-Python model rounds to every printed figure."""
    fits = [v for v in search if all(half_up(paper_count(v, bias=bias, **sizes)) == m * 10**6 for sizes, m in rows)]
    return (fits[0], fits[-1]) if fits else None


def test_each_row_counts_as_the_plain_python_model():
    for row, (sizes, _) in zip(transformer.TABLE_3, ROWS):
        assert row.exact() == paper_count(37_000, **sizes), row.name
        assert row.exact(V=41_000) == paper_count(41_000, **sizes), row.name


def test_the_windows_are_the_plain_python_ones():
    assert transformer.base_rows.common == window(ROWS[:-1])
    assert transformer.vocabulary_37000.ranges[-1] == window(ROWS[-1:])
    assert transformer.base_rows_without_biases.common == window(ROWS[:-1], bias=False)
    assert window(ROWS) is None  # no vocabulary for all eleven


def test_37000_reproduces_no_row():
    assert not any(reproduces(37_000, [row]) for row in transformer.TABLE_3)
    assert not transformer.vocabulary_37000.holds


def test_one_vocabulary_reproduces_the_ten_base_rows():
    lo, hi = transformer.base_rows.common
    rows = transformer.TABLE_3[:-1]
    assert reproduces(lo, rows) and reproduces(hi, rows)
    assert not reproduces(lo - 1, rows) and not reproduces(hi + 1, rows)


def test_big_needs_another_vocabulary():
    lo, hi = transformer.vocabulary_37000.ranges[-1]
    assert reproduces(lo, [transformer.big_213m]) and not reproduces(lo - 1, [transformer.big_213m])
    assert reproduces(hi, [transformer.big_213m]) and not reproduces(hi + 1, [transformer.big_213m])
    base_lo, base_hi = transformer.base_rows.common
    assert hi < base_lo
    assert transformer.vocabulary_37000.common is None


def test_big_and_the_wide_row_differ_by_the_feed_forward_alone():
    # (C) d_model 1024 and big differ in d_ff, 2048 against 4096, over 6 + 6 layers with biases.
    assert transformer.big_over_width_1024 == 12 * (2 * 1024 * 2048 + 2048)
    assert transformer.printed_big_over_width_1024 == (213 - 168) * 10**6


def test_narrow_keys_shrink_queries_and_keys_only():
    # Rows B: d_k 16 against 64, in 18 attention blocks (6 encoder, 12 decoder): queries and keys only.
    values = registry.checkpoint("transformer-base").values | {transformer.d_k: 16}
    saved = transformer.Transformer.count(values) - transformer.Transformer_narrow_keys.count(values)
    assert saved == 18 * 2 * (512 * (512 - 8 * 16) + (512 - 8 * 16))


# ---------------------------------------------------------------------------------------------
# "60M"
# ---------------------------------------------------------------------------------------------

def test_the_60m_formula():
    # datascience.stackexchange q/120358: V d + V d + N (2 h 3 d d_k + 2 d d_ff) with V = 37000: "60M".
    item = transformer.stackexchange_60m
    item.check()
    assert item.claim == 2 * 37000 * 512 + 6 * (2 * 8 * 3 * 512 * 64 + 2 * 512 * 2048)
    assert round(item.claim, -6) == 60_000_000


@pytest.mark.parametrize("item", transformer.FAMILY.miscounts, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(item):
    item.check()
