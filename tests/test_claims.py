"""Reconciling published figures: rounding, the values a figure implies, hypotheses, decompositions."""

import pytest

from derivations import components as c
from derivations.claims import Hypothesis, Miscount, Rounded, rounds_to, sizes
from derivations.symbols import D, V


def test_rounds_half_up():
    assert rounds_to(124_439_808, 124_000_000, 10**6)
    assert rounds_to(124_500_000, 125_000_000, 10**6)
    assert not rounds_to(124_500_000, 124_000_000, 10**6)
    assert rounds_to(1_315_723_264, 1_300_000_000, 10**8)


# A model of one table: V rows of D on bert-base-uncased (D = 768), claimed as "20M".
TABLE = c.group("model", "a table", c.embedding("table", "table", V, D))


def figure(claim: int, **overrides) -> Rounded:
    return Rounded("figure", claim, "a table", "nowhere", "bert-base-uncased", (TABLE,),
                   overrides=sizes(**overrides))


def test_implied_range_is_every_value_that_rounds():
    claim = figure(20_000_000)
    lo, hi = claim.implied(V)
    # Brute force over the neighbourhood: exactly the values in [lo, hi] round to 20M.
    for vocabulary in range(lo - 50, hi + 50):
        assert (lo <= vocabulary <= hi) == rounds_to(vocabulary * 768, 20_000_000, 10**6)


def test_implied_range_may_be_empty():
    # With D = 10^7 every count is a multiple of 10M: none lies within half a million of 15M.
    assert figure(15_000_000, D=10**7).implied(V) is None


def test_hypothesis_with_and_without_a_value():
    claims = (figure(20_000_000), figure(21_000_000))
    assert Hypothesis("h", "one table", claims, V, None).common is None  # 20M and 21M cannot both hold
    single = Hypothesis("h", "one table", claims[:1], V, 26_042)
    single.check()
    assert single.holds  # 26,042 * 768 = 20,000,256
    assert not Hypothesis("h", "one table", claims[:1], V, 30_000).holds


def test_miscount_check_catches_a_wrong_decomposition():
    wrong = Miscount("wrong", 0, "nothing", "nowhere", "bert-base-uncased", TABLE,
                     terms=(c.leaf("half", "half the table", V * D / 2),))
    with pytest.raises(AssertionError, match="difference"):
        wrong.check()
