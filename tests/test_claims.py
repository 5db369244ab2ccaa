"""Reconciling published figures: rounding, the values a figure implies, hypotheses, decompositions."""

from dataclasses import replace

import pytest

from derivations import components as c, registry
from derivations.claims import Hypothesis, Miscount, Rounded, rounds_to, sizes
from derivations.sources import Citation
from derivations.symbols import D, V


def test_rounds_half_up():
    assert rounds_to(124_439_808, 124_000_000, 10**6)
    assert rounds_to(124_500_000, 125_000_000, 10**6)
    assert not rounds_to(124_500_000, 124_000_000, 10**6)
    assert rounds_to(1_315_723_264, 1_300_000_000, 10**8)


# A model of one table: V rows of D on bert-base-uncased (D = 768), claimed as "20M".
TABLE = c.group("model", "a table", c.embedding("table", "table", V, D))


def figure(claim: int, **overrides) -> Rounded:
    return Rounded("figure", claim, "a table", Citation("devlin2019"), "bert-base-uncased", (TABLE,),
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
    wrong = Miscount("wrong", 0, "nothing", Citation("devlin2019"), "bert-base-uncased", TABLE,
                     terms=(c.leaf("half", "half the table", V * D / 2),))
    with pytest.raises(AssertionError, match="difference"):
        wrong.check()


def _classes_in(claim) -> list:
    """The parts a claim counts with: a miscount's correct model, a rounded figure's candidates."""
    return [claim.correct] if isinstance(claim, Miscount) else list(claim.candidates)


def test_a_claim_counts_its_checkpoint_as_its_config_builds_it():
    # A claim evaluates its parts on its checkpoint's sizes. A class of the plain layout on a checkpoint
    # that builds another (Llama 3.2 ties its head, T5 1.1 gates its feed-forward) would be another model.

    checked = 0
    for family in registry.families().values():
        for claim in (*family.miscounts, *family.rounded):
            for part in _classes_in(claim):
                built = registry.as_built(family, part.name, claim.checkpoint)
                if built is not None and part == family.architectures[part.name]:
                    assert built == part, (claim.name, part.name, claim.checkpoint)
                    checked += 1
    assert checked > 20


def test_a_claim_cites_its_source_by_key():
    with pytest.raises(AssertionError, match="cite a source by its key"):
        Rounded("figure", 110_000_000, "a table", "a paper, somewhere", "bert-base-uncased", (TABLE,))


def test_every_published_miscount_has_its_verdict_data():
    # The common-mistakes summary and each entry's verdict are written from these two phrases.

    seen = 0
    for name, family in registry.families().items():
        for claim in family.miscounts:
            seen += 1
            assert claim.model.strip() and claim.cause.strip(), f"{name}.{claim.name}: model and cause"
            assert not claim.cause.rstrip().endswith("."), f"{name}.{claim.name}: the verdict adds the full stop"
    assert seen


def test_a_miscount_is_right_only_when_the_claim_is_the_exact_count():
    right = Miscount("right", 2 * 768, "the two LayerNorm vectors", Citation("devlin2019"), "bert-base-uncased",
                     c.leaf("norm", "LayerNorm", 2 * D))
    assert right.right and not replace(right, claim=768).right
