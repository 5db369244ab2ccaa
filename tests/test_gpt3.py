"""GPT-3: Table 2.1's rows counted exactly, the table's inconsistencies, Kaplan's N as a limit."""

import pytest
import sympy

from derivations import configs, registry

from derivations.families import gpt3
from derivations.symbols import D, F, L

# Brown et al. 2020, Table 2.1 as printed: (n_layers, d_model, n_heads, d_head).
PRINTED = {
    "gpt3-small": (12, 768, 12, 64), "gpt3-medium": (24, 1024, 16, 64), "gpt3-large": (24, 1536, 16, 96),
    "gpt3-xl": (24, 2048, 24, 128), "gpt3-2.7b": (32, 2560, 32, 80), "gpt3-6.7b": (32, 4096, 32, 128),
    "gpt3-13b": (40, 5140, 40, 128), "gpt3-175b": (96, 12288, 96, 128),
}
# Where the bundled configs depart from it, and why: XL has the 16 heads of 128 that cover 2,048;
# 13B has the width 5,120 that its 40 heads of 128 cover.
DEPARTURES = {"gpt3-xl": {"n_head": 16}, "gpt3-13b": {"n_embd": 5120}}


@pytest.mark.parametrize("checkpoint", PRINTED)
def test_configs_hold_the_table(checkpoint):
    layers, width, heads, head = PRINTED[checkpoint]
    expected = {"n_layer": layers, "n_embd": width, "n_head": heads} | DEPARTURES.get(checkpoint, {})
    config = configs.load(checkpoint)
    assert {k: config[k] for k in expected} == expected
    assert config["n_embd"] // config["n_head"] == head  # the printed head size, in every row
    assert config["n_positions"] == 2048 and config["vocab_size"] == 50257


# Hand-computed from Table 2.1's sizes [cite: brown2020, Table 2.1] in GPT-2's layout [cite: hub-openai-community];
# transformers recomputes every row on the meta device (tests/specs/gpt3.py).
TOTALS = {"gpt3-small": 125_226_240, "gpt3-13b": 12_853_386_240, "gpt3-175b": 174_604_259_328}


@pytest.mark.parametrize("checkpoint", TOTALS)
def test_totals(checkpoint):
    assert registry.checkpoint(checkpoint).total == TOTALS[checkpoint]


def test_13b_with_the_printed_width():
    # Shared reference A6: 12,952,938,780 with d_model 5,140 (and d_ff four times it).
    values = registry.checkpoint("gpt3-13b").values | {D: 5140, F: 4 * 5140}
    assert gpt3.model.count(values) == 12_952_938_780


# Which printed figures the exact counts round to (Table 2.1 prints 125M, 350M, 760M, 1.3B, 2.7B, 6.7B,
# 13.0B and 175.0B).
ROUNDS = {"small": True, "medium": False, "large": True, "xl": True, "b2_7": True, "b6_7": True, "b13": False,
          "b175": False, "b13_width_as_printed": True, "b13_heads_as_printed": False, "xl_heads_as_printed": False}


@pytest.mark.parametrize("claim", gpt3.FAMILY.rounded, ids=lambda c: c.name)
def test_which_rows_round_to_the_table(claim):
    exact = claim.exact()
    assert claim.rounds() == ROUNDS[claim.name]
    # Rounded half up at the claim's precision, with Python's integers.
    assert claim.rounds() == ((exact + claim.precision // 2) // claim.precision * claim.precision == claim.claim)


def test_heads_as_printed_for_13b():
    # d_model 5,140, d_ff 20,560, and query, key and value maps of 40 x 128 = 5,120 (with biases), the
    # output map back from 5,120: in plain Python, over 40 blocks, with GPT-2's embeddings and norms.
    d, f, inner = 5140, 4 * 5140, 5120
    block = 3 * (d * inner + inner) + (inner * d + d) + (2 * d * f + f + d) + 4 * d
    expected = (50257 + 2048) * d + 40 * block + 2 * d
    assert gpt3.AS_PRINTED[1].exact() == expected == 12_936_488_380


def test_heads_as_printed_for_xl_would_make_it_1_5b():
    # 24 heads of 128 = 3,072 wide maps in a 2,048-wide model: the query, key and value maps grow from
    # 2048 x 2048 to 2048 x 3072 and the output from 2048 x 2048 to 3072 x 2048, in every block.
    claim = gpt3.AS_PRINTED[2]
    widening = 24 * (4 * 2048 * (3072 - 2048) + 3 * (3072 - 2048))
    assert claim.exact() == registry.checkpoint("gpt3-xl").total + widening


# ---------------------------------------------------------------------------------------------
# Kaplan et al. 2020, equation 2.1: N = 2 d_model n_layer (2 d_attn + d_ff) = 12 n_layer d_model^2
# ---------------------------------------------------------------------------------------------

def test_kaplan_n_is_12_l_d2_under_the_standard_shapes():
    assert sympy.expand(gpt3.kaplan - 12 * L * D**2) == 0


def test_kaplan_leaves_out_only_lower_order_terms():
    # What N omits is linear in the width, so the ratio tends to 1: the biases (3D + D + 4D + D per
    # block: Q, K, V, O and the two feed-forward maps, with F = 4D) and the LayerNorms (4D per block, 2D final).
    assert sympy.expand(gpt3.kaplan_gap - (L * (3 * D + D + 4 * D + D) + L * 4 * D + 2 * D)) == 0
    assert gpt3.kaplan_limit.rhs == 1


def test_relative_error_falls_with_the_rows():
    errors = [gpt3.kaplan_error.subs(registry.checkpoint(name).values) for name in gpt3.FAMILY.checkpoints]
    assert all(0 < later < earlier for earlier, later in zip(errors, errors[1:]))


def test_the_leading_term_is_the_error_to_first_order():
    for name in gpt3.FAMILY.checkpoints:
        values = registry.checkpoint(name).values
        error, leading = gpt3.kaplan_error.subs(values), gpt3.kaplan_error_leading.subs(values)
        assert abs(error - leading) < leading**2  # the next term is of the order of the square


def test_non_embedding_rows_match_the_pythia_cards():
    # Pythia-160M / 1.4B / 2.8B / 6.9B cards print 85,056,000 / 1,208,602,624 / 2,517,652,480 /
    # 6,444,163,072 non-embedding parameters for the same (layers, width) as these GPT-3 rows.
    cards = {"gpt3-small": 85_056_000, "gpt3-xl": 1_208_602_624, "gpt3-2.7b": 2_517_652_480,
             "gpt3-6.7b": 6_444_163_072}
    for name, card in cards.items():
        assert gpt3.non_embedding.count(registry.checkpoint(name).values) == card
