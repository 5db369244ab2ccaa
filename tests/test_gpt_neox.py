"""GPT-NeoX / Pythia: the model cards' exact counts, symbolic identities, and the reconciled claims.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/gpt_neox.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import registry

from derivations.families import gpt2, gpt_neox
from derivations.symbols import D, F, L, V

# The Pythia model cards, section "Naming convention and parameter count" (for example
# huggingface.co/EleutherAI/pythia-12b-deduped; the non-embedding column is also in Biderman et al.
# 2023, Table 1): checkpoint -> (total params, non-embedding params), exact integers as printed.
PYTHIA_CARD = {
    "pythia-70m": (70_426_624, 18_915_328),
    "pythia-160m": (162_322_944, 85_056_000),
    "pythia-410m": (405_334_016, 302_311_424),
    "pythia-1b": (1_011_781_632, 805_736_448),
    "pythia-1.4b": (1_414_647_808, 1_208_602_624),
    "pythia-2.8b": (2_775_208_960, 2_517_652_480),
    "pythia-6.9b": (6_857_302_016, 6_444_163_072),
    "pythia-12b": (11_846_072_320, 11_327_027_200),
}
# The GPT-NeoX-20B model card (huggingface.co/EleutherAI/gpt-neox-20b, "Model details": n_parameters).
NEOX_20B_CARD = 20_554_567_680


def test_the_cards_cover_the_bundled_pythia_sizes():
    assert tuple(PYTHIA_CARD) == gpt_neox.PYTHIA


@pytest.mark.parametrize("checkpoint", PYTHIA_CARD)
def test_card_total(checkpoint):
    resolved = registry.checkpoint(checkpoint)
    assert resolved.architecture == "GPTNeoXForCausalLM"  # the class each config.json names
    assert resolved.total == PYTHIA_CARD[checkpoint][0]


@pytest.mark.parametrize("checkpoint", PYTHIA_CARD)
def test_card_non_embedding(checkpoint):
    values = registry.checkpoint(checkpoint).values
    assert gpt_neox.non_embedding.count(values) == PYTHIA_CARD[checkpoint][1]


@pytest.mark.parametrize("checkpoint", PYTHIA_CARD)
def test_the_cards_subtract_both_tables(checkpoint):
    # "Non-embedding" on the cards is the total minus embed_in and embed_out, not minus embed_in alone.
    values = registry.checkpoint(checkpoint).values
    total, non_embedding = PYTHIA_CARD[checkpoint]
    table = gpt_neox.embed_in.count(values)
    assert table == gpt_neox.embed_out.count(values) == values[V] * values[D]
    assert total - 2 * table == non_embedding
    assert total - table != non_embedding


def test_gpt_neox_20b_card():
    assert registry.checkpoint("gpt-neox-20b").total == NEOX_20B_CARD


# The same numbers in plain Python, from the description of the architecture (not from the package):
# two V x D tables, L layers of two LayerNorms (4D), Q/K/V (3D^2 + 3D), output (D^2 + D), a 4D-wide
# feed-forward (8D^2 + 5D), and a final LayerNorm (2D).
def pythia_count(vocabulary: int, layers: int, width: int) -> int:
    return 2 * vocabulary * width + layers * (12 * width**2 + 13 * width) + 2 * width


@pytest.mark.parametrize("checkpoint", PYTHIA_CARD)
def test_plain_python_agrees_with_the_card(checkpoint):
    values = registry.checkpoint(checkpoint).values
    assert pythia_count(values[V], values[L], values[D]) == PYTHIA_CARD[checkpoint][0]


# ---------------------------------------------------------------------------------------------
# Identities
# ---------------------------------------------------------------------------------------------

def test_layer_is_12d2_plus_13d():
    assert gpt_neox.block_standard.total == 12 * D**2 + 13 * D


def test_attention_bias_off_removes_4d_per_layer():
    with_bias = gpt_neox.VARIANTS[""]["GPTNeoXModel"].total
    without = gpt_neox.VARIANTS["no_attention_bias"]["GPTNeoXModel"].total
    assert sympy.expand(with_bias - without) == 4 * D * L


def test_tying_removes_one_table():
    untied = gpt_neox.ARCHITECTURES["GPTNeoXForCausalLM"].total
    assert sympy.expand(untied - gpt_neox.GPTNeoXForCausalLM_tied.total) == V * D
    assert gpt_neox.GPTNeoXForCausalLM_tied.total == gpt_neox.ARCHITECTURES["GPTNeoXModel"].total


def test_non_embedding_is_the_total_minus_both_tables():
    assert sympy.expand(gpt_neox.ARCHITECTURES["GPTNeoXForCausalLM"].total - gpt_neox.non_embedding.total) == 2 * V * D
    assert sympy.expand(gpt_neox.embeddings.total) == 2 * V * D


def test_non_embedding_is_gpt2s():
    # The same tensors per layer as GPT-2's block and the same final LayerNorm: one formula (and
    # tests/test_gpt2.py checks the cards' non-embedding figures through GPT-2's).
    assert sympy.expand(gpt_neox.non_embedding.total - gpt2.non_embedding.total) == 0


def test_causal_lm_closed_form():
    assert sympy.expand(gpt_neox.CausalLM_standard.total - (2 * V * D + L * (12 * D**2 + 13 * D) + 2 * D)) == 0


def test_no_position_table():
    # Rotary positions: nothing in the count depends on the context length.
    assert not any(s.name == "P" for s in gpt_neox.ARCHITECTURES["GPTNeoXForCausalLM"].total.free_symbols)
    assert F in gpt_neox.ARCHITECTURES["GPTNeoXModel"].total.free_symbols


# ---------------------------------------------------------------------------------------------
# Reconciled claims
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("item", gpt_neox.FAMILY.miscounts, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(item):
    item.check()


# [cite: pythia-68]: the tokenizer has 50,277 entries; [cite: outlines-236] prints the same
# len(tokenizer.get_vocab()).
TOKENIZER = 50_277


@pytest.mark.parametrize("checkpoint, printed", [("pythia-70m", 70_398_976), ("pythia-160m", 162_281_472)])
def test_the_benchmark_counted_tables_cut_to_the_tokenizer(checkpoint, printed):
    # CiphemonJY/LISA_FTM BENCHMARK_RESULTS.md prints these after resize_token_embeddings(len(tokenizer)).
    values = registry.checkpoint(checkpoint).values
    assert pythia_count(TOKENIZER, values[L], values[D]) == printed
    assert PYTHIA_CARD[checkpoint][0] - printed == 2 * (values[V] - TOKENIZER) * values[D]
    claim = {c.checkpoint: c for c in gpt_neox.FAMILY.miscounts if c.name.startswith("tokenizer")}[checkpoint]
    assert claim.claim == printed


def test_kaplan_n_is_the_card_non_embedding():
    claim = gpt_neox.kaplan_n_as_chinchilla_n
    assert (claim.claim, registry.checkpoint("pythia-70m").total) == PYTHIA_CARD["pythia-70m"][::-1]


@pytest.mark.parametrize("checkpoint", PYTHIA_CARD)
def test_non_embedding_share_is_the_cards(checkpoint):
    # The last column of the checkpoint table: the card's non-embedding count over its total, exactly.
    values = registry.checkpoint(checkpoint).values
    total, non_embedding = PYTHIA_CARD[checkpoint]
    assert gpt_neox.non_embedding_share.subs(values) == sympy.Rational(non_embedding, total)


def test_current_names_are_the_totals():
    # Every name since January 2023 is the total rounded at its last printed digit.
    assert all(claim.rounds(0) for claim in gpt_neox.NAMES)
    assert [c.printed for c in gpt_neox.NAMES] == ["70M", "160M", "410M", "1B", "1.4B", "2.8B", "6.9B", "12B"]


def test_old_names():
    # The cards' table of former names: 19M and 800M are the non-embedding counts; 125M, 1.3B, 2.7B and
    # 6.7B are GPT-3's counts at the same depth and width (GPT-3's own names for those shapes); 350M and
    # 13B fit none of the three.
    fits = {c.printed: [i for i in range(3) if c.rounds(i)] for c in gpt_neox.OLD_NAMES}
    assert fits == {"19M": [1], "125M": [2], "350M": [], "800M": [1], "1.3B": [2], "2.7B": [2], "6.7B": [2],
                    "13B": []}


def test_tokenizer_sized_reconstruction_shows_the_norm_apart():
    # The tokenizer has 50,277 entries ([cite: pythia-68]); the final LayerNorm's 2D is not two more rows.
    from derivations import render
    tex = render.terms(gpt_neox.tokenizer_vocabulary_70m.reconstruction)
    assert tex.count("50{,}277 D") == 2 and "2 D" in tex and "50{,}279" not in tex
