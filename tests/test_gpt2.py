"""GPT-2: published totals, symbolic identities, the paper's retracted counts and reconciled claims.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/gpt2.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import registry

from derivations.families import gpt2
from derivations.symbols import D, L, P, V

# Exact figures printed by someone who loaded the real checkpoint:
PUBLISHED = {
    # [cite: transformers-14960]: "Whole model: 124439808" for GPT2LMHeadModel on gpt2
    ("gpt2", "GPT2LMHeadModel"): 124_439_808,
}
# Exact figures that only arithmetic gives, hand-computed from the released configs [cite: hub-openai-community];
# transformers recomputes each on the meta device (tests/specs/gpt2.py), which is their outside check.
PUBLISHED |= {
    ("gpt2-medium", "GPT2LMHeadModel"): 354_823_168,
    ("gpt2-large", "GPT2LMHeadModel"): 774_030_080,
    ("gpt2-xl", "GPT2LMHeadModel"): 1_557_611_200,
}


@pytest.mark.parametrize("checkpoint, architecture", PUBLISHED)
def test_published_totals(checkpoint, architecture):
    assert registry.checkpoint(checkpoint, architecture).total == PUBLISHED[checkpoint, architecture]


def test_gpt2_small_breakdown():
    # Shared reference A5: token embeddings 38,597,376, positions 786,432, one block 7,087,872,
    # non-embedding 85,056,000.
    values = registry.checkpoint("gpt2").values
    assert gpt2.embeddings.child("token").count(values) == 38_597_376
    assert gpt2.embeddings.child("position").count(values) == 786_432
    assert gpt2.layer.count(values) == 7_087_872
    assert gpt2.non_embedding.count(values) == 85_056_000


# The Pythia model cards print exact non-embedding counts. Pythia is GPT-NeoX, whose block holds the same
# tensors as GPT-2's (a fused D x 3D query-key-value map and an output map, both with bias; a 4D-wide
# feed-forward with biases; two LayerNorms; a final LayerNorm; rotary positions learn nothing), so
# GPT-2's non-embedding formula must give every one of them. (layers, width) -> the card's figure.
PYTHIA_NON_EMBEDDING = {
    (6, 512): 18_915_328,  # Pythia-70M
    (12, 768): 85_056_000,  # Pythia-160M
    (24, 1024): 302_311_424,  # Pythia-410M
    (16, 2048): 805_736_448,  # Pythia-1B
    (24, 2048): 1_208_602_624,  # Pythia-1.4B
    (32, 2560): 2_517_652_480,  # Pythia-2.8B
    (32, 4096): 6_444_163_072,  # Pythia-6.9B
    (36, 5120): 11_327_027_200,  # Pythia-12B
}


@pytest.mark.parametrize("layers, width", PYTHIA_NON_EMBEDDING)
def test_non_embedding_formula_gives_the_pythia_cards(layers, width):
    assert gpt2.non_embedding_standard.count({L: layers, D: width}) == PYTHIA_NON_EMBEDDING[layers, width]


def test_block_is_12d2_plus_13d():
    assert gpt2.layer_standard.total == 12 * D**2 + 13 * D


def test_gpt2model_closed_form():
    expected = (V + P) * D + L * (12 * D**2 + 13 * D) + 2 * D
    assert sympy.expand(gpt2.GPT2Model_standard.total - expected) == 0


def test_the_tied_head_adds_nothing():
    assert gpt2.ARCHITECTURES["GPT2LMHeadModel"].total == gpt2.ARCHITECTURES["GPT2Model"].total
    assert sympy.expand(gpt2.VARIANTS["untied"]["GPT2LMHeadModel"].total - gpt2.ARCHITECTURES["GPT2Model"].total) == V * D


def test_cross_attention_is_another_attention_block():
    # q_attn (D x D) and c_attn (D x 2D) and c_proj (D x D), with biases: 4D^2 + 4D, plus a LayerNorm.
    extra = gpt2.cross_attention_layer.total - gpt2.layer.total
    assert sympy.expand(extra) == 4 * D**2 + 4 * D + 2 * D


# ---------------------------------------------------------------------------------------------
# The paper's counts
# ---------------------------------------------------------------------------------------------

# Radford et al. 2019, Table 2: 117M, 345M, 762M, 1542M for 12, 24, 36 and 48 layers.
PAPER = {"gpt2": 117_000_000, "gpt2-medium": 345_000_000, "gpt2-large": 762_000_000, "gpt2-xl": 1_542_000_000}
GPT1_VOCABULARY = 40_478  # openai-gpt's config.json, vocab_size


def test_the_claims_are_the_papers():
    assert {c.checkpoint: c.claim for c in gpt2.paper_counts.claims} == PAPER


def half_up(count: int) -> int:
    return (count + 500_000) // 10**6 * 10**6


# GPT-2 in plain Python, from the paper's description (and not from the package): token and position
# tables, L pre-LN blocks of 12 D^2 + 13 D (attention and a 4D feed-forward with biases, two LayerNorms),
# a final LayerNorm, the head tied. (layers, width) per size.
SIZES = {"gpt2": (12, 768), "gpt2-medium": (24, 1024), "gpt2-large": (36, 1280), "gpt2-xl": (48, 1600)}


def gpt2_count(vocabulary: int, layers: int, width: int, positions: int = 1024) -> int:
    return (vocabulary + positions) * width + layers * (12 * width**2 + 13 * width) + 2 * width


@pytest.mark.parametrize("checkpoint", PAPER)
def test_gpt1_vocabulary_reproduces_each_paper_figure(checkpoint):
    values = registry.checkpoint(checkpoint).values | {V: GPT1_VOCABULARY}
    assert gpt2.ARCHITECTURES["GPT2LMHeadModel"].count(values) == gpt2_count(GPT1_VOCABULARY, *SIZES[checkpoint])
    assert half_up(gpt2_count(GPT1_VOCABULARY, *SIZES[checkpoint])) == PAPER[checkpoint]


@pytest.mark.parametrize("checkpoint", PAPER)
def test_gpt2_vocabulary_does_not(checkpoint):
    assert half_up(gpt2_count(50_257, *SIZES[checkpoint])) != PAPER[checkpoint]


def test_gpt1s_context_would_not_either():
    # GPT-1's 512 positions with its vocabulary: medium, large and xl miss their figures.
    missed = [c for c in PAPER if half_up(gpt2_count(GPT1_VOCABULARY, *SIZES[c], positions=512)) != PAPER[c]]
    assert missed == ["gpt2-medium", "gpt2-large", "gpt2-xl"]


def test_the_window_is_the_plain_python_one():
    fits = [v for v in range(30_000, 60_001)
            if all(half_up(gpt2_count(v, *SIZES[c])) == PAPER[c] for c in PAPER)]
    assert gpt2.paper_counts.common == (fits[0], fits[-1])
    assert fits[0] <= GPT1_VOCABULARY <= fits[-1] < 50_257
    gpt2.paper_counts.check()
    assert gpt2.paper_counts.holds


def test_no_other_convention_reproduces_the_four():
    for i, convention in enumerate(gpt2.CONVENTIONS[1:], start=1):
        assert not all(claim.rounds(i) for claim in gpt2.paper_conventions), convention.name


def test_released_names_are_the_exact_counts_rounded():
    # openai/gpt-2 download names 124M, 355M, 774M, 1558M.
    assert all(claim.rounds() for claim in gpt2.RELEASED)


# ---------------------------------------------------------------------------------------------
# Reconciled claims
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("item", gpt2.FAMILY.miscounts, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(item):
    item.check()


def test_the_book_prints_both_figures_and_their_difference_is_the_head():
    # LLMs-from-scratch ch04 prints 163,009,536 and, after subtracting its out_head, 124,412,160.
    assert gpt2.tied_head_counted_twice.claim - gpt2.attention_biases_left_out.claim == 50_257 * 768
    # ... and "621.83 MB" for 163,009,536 * 4 / 1024^2.
    assert round(gpt2.tied_head_counted_twice.claim * 4 / 2**20, 2) == 621.83


def test_transformerlens_n_params_is_kaplans_n():
    # HookedTransformerConfig: n_layers * (d_model * d_head * n_heads * 4) + n_layers * d_model * d_mlp * 2,
    # which with d_head * n_heads = d_model and d_mlp = 4 d_model is 12 n_layers d_model^2.
    values = registry.checkpoint("gpt2").values
    assert gpt2.non_embedding_as_total.reconstruction.count(values) == 12 * 12 * 768**2


def test_small_117m_rounding_keeps_the_vocabulary_rows_and_the_norm_apart():
    # GPT-1's config.json has vocab_size 40478; the final LayerNorm adds 2D of its own, not 2 more rows.
    from derivations import render
    term = gpt2.small_117m.terms[1]
    assert sympy.expand(term.total - (gpt2.ARCHITECTURES["GPT2LMHeadModel"].total.subs(V, 40478) - 117_000_000)) == 0
    tex = render.latex(term.total)
    assert "40{,}478 D" in tex and "2 D" in tex and "40{,}480" not in tex
