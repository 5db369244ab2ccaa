"""Published counts that are wrong or rounded, and the exact reconciliation of each.

A :class:`Miscount` states the claim as published, where it was published, the part it should
have counted, and the difference decomposed into named terms. :meth:`Miscount.check` asserts that
the decomposition is exact; the site build calls it for every miscount it shows, and so do the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .components import Part, group


@dataclass(frozen=True)
class Miscount:
    """``correct - claim = sum(terms)``, evaluated on ``checkpoint``."""

    name: str
    claim: int
    what: str  # what the source says it counted, in its words
    source: str  # markdown: who published it, with a link
    checkpoint: str  # bundled config the numbers are evaluated on
    correct: Part
    terms: tuple[Part, ...] = ()
    # The published arithmetic, rebuilt as an expression, where the source shows it.
    reconstruction: Part | None = None

    @property
    def difference(self) -> Part | None:
        """The terms as one part (None when the claim is right and only its labels are not)."""
        return group("difference", "difference", *self.terms) if self.terms else None

    def values(self) -> dict[sympy.Symbol, int]:
        from .configs import checkpoint
        return checkpoint(self.checkpoint).values

    def check(self) -> None:
        """The reconciliation is exact: the terms add up, and the rebuilt formula gives the claim."""
        values = self.values()
        gap = self.correct.count(values) - self.claim
        explained = sum(t.count(values) for t in self.terms)
        assert gap == explained, f"{self.name}: difference {gap:,} but the terms add up to {explained:,}"
        if self.reconstruction is not None:
            rebuilt = self.reconstruction.count(values)
            assert rebuilt == self.claim, f"{self.name}: the rebuilt formula gives {rebuilt:,}, not {self.claim:,}"


@dataclass(frozen=True)
class Rounded:
    """A rounded published figure, set against every exact count it could have meant."""

    name: str
    claim: int
    what: str
    source: str
    checkpoint: str
    candidates: tuple[Part, ...]

    @property
    def gaps(self) -> tuple[sympy.Expr, ...]:
        """claim - exact, for each candidate."""
        return tuple(self.claim - c.total for c in self.candidates)
