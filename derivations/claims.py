"""Published counts that are wrong or rounded, and the exact reconciliation of each.

A :class:`Miscount` states the claim as published, where it was published, the part it should
have counted, and the difference decomposed into named terms. :meth:`Miscount.check` asserts that
the decomposition is exact; the site build calls it for every miscount it shows, and so do the tests.

A :class:`Rounded` figure ("110M", "1.3B") is set against every exact count it could have meant, and
can say which values of one size make a count round to it. A :class:`Hypothesis` gathers several
rounded figures and asks whether one value of one size explains them all (GPT-2's paper counts and
GPT-1's vocabulary; the Transformer's Table 3 and its vocabulary).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import sympy

from . import configs, symbols
from .components import Part, group
from .sources import Citation


def _checkpoint_values(name: str) -> dict[sympy.Symbol, int]:
    """The sizes of a bundled checkpoint, as its reader reads them."""
    return symbols.valued(configs.sizes(configs.load(name)))


@dataclass(frozen=True)
class Miscount:
    """``correct - claim = sum(terms)``, evaluated on ``checkpoint``."""

    name: str
    claim: int
    what: str  # what the source says it counted, in its words
    source: Citation  # who published it, and where in it
    checkpoint: str  # bundled config the numbers are evaluated on
    correct: Part
    terms: tuple[Part, ...] = ()
    # The published arithmetic, rebuilt as an expression, where the source shows it.
    reconstruction: Part | None = None
    # How the source prints the claim when it rounds it ("85M"); empty when it prints it exactly.
    printed: str = ""
    # The verdict, for the common-mistakes pages (html): the model as a reader knows it, the subject of
    # "... has N parameters, not M" ("T5-Large (<code>t5-large</code>)"), and the cause, one clause that
    # follows that sentence's colon. Every miscount a family's record lists (miscounts) has both.
    model: str = ""
    cause: str = ""

    def __post_init__(self) -> None:
        assert isinstance(self.source, Citation), f"{self.name}: cite a source by its key (sources.Citation)"

    @property
    def difference(self) -> Part | None:
        """The terms as one part (None when the claim is right and only its labels are not)."""
        return group("difference", "difference", *self.terms) if self.terms else None

    def values(self) -> dict[sympy.Symbol, int]:
        return _checkpoint_values(self.checkpoint)

    @property
    def right(self) -> bool:
        """The published number is the exact count, and only what the source says of it is wrong."""
        return self.correct.count(self.values()) == self.claim

    def check(self) -> None:
        """The reconciliation is exact: the terms add up, and the rebuilt formula gives the claim."""
        values = self.values()
        gap = self.correct.count(values) - self.claim
        explained = sum(t.count(values) for t in self.terms)
        assert gap == explained, f"{self.name}: difference {gap:,} but the terms add up to {explained:,}"
        if self.reconstruction is not None:
            rebuilt = self.reconstruction.count(values)
            assert rebuilt == self.claim, f"{self.name}: the rebuilt formula gives {rebuilt:,}, not {self.claim:,}"


def rounds_to(exact: int, claim: int, precision: int) -> bool:
    """``exact`` rounds (half up) to ``claim`` at ``precision``: 124,439,808 rounds to 124M at 10^6."""
    return claim - Fraction(precision, 2) <= exact < claim + Fraction(precision, 2)


@dataclass(frozen=True)
class Rounded:
    """A rounded published figure, set against every exact count it could have meant.

    The counts are evaluated on ``checkpoint``'s config with ``overrides`` on top (a row of a paper's
    table that changes one size of a bundled model). ``precision`` is the unit the figure is rounded
    to: 10^6 for "110M", 10^8 for "1.3B"; ``printed`` is the figure as the source prints it.
    """

    name: str
    claim: int
    what: str
    source: Citation
    checkpoint: str
    candidates: tuple[Part, ...]
    precision: int = 10**6
    overrides: Mapping[sympy.Symbol, int] = field(default_factory=dict)
    printed: str = ""

    def __post_init__(self) -> None:
        assert isinstance(self.source, Citation), f"{self.name}: cite a source by its key (sources.Citation)"

    @classmethod
    def of_name(cls, name: str, printed: str, what: str, source: Citation, checkpoint: str,
                candidates: tuple[Part, ...]) -> Rounded:
        """A size printed in a model's name ("160M", "1.4B"): the number it says, rounded at the last nonzero digit
        printed ("160M" to ten millions, "1.4B" to a hundred millions)."""
        number, unit = float(printed[:-1]), printed[-1]
        scale = {"M": 10**6, "B": 10**9}[unit]
        claim = round(number * scale)
        precision = scale if "." not in printed[:-1] else scale // 10
        while precision < claim and claim % (precision * 10) == 0:
            precision *= 10
        return cls(name, claim, what, source, checkpoint, candidates, precision=precision, printed=printed)

    def values(self) -> dict[sympy.Symbol, int]:
        return _checkpoint_values(self.checkpoint) | dict(self.overrides)

    @property
    def gaps(self) -> tuple[sympy.Expr, ...]:
        """claim - exact, for each candidate."""
        return tuple(self.claim - c.total for c in self.candidates)

    def exact(self, candidate: int = 0, **substitutions: int) -> int:
        """A candidate's exact count, optionally with sizes substituted by name (V=40478)."""
        values = self.values() | sizes(**substitutions)
        return self.candidates[candidate].count(values)

    def rounds(self, candidate: int = 0, **substitutions: int) -> bool:
        """The candidate's exact count rounds to the claim."""
        return rounds_to(self.exact(candidate, **substitutions), self.claim, self.precision)

    def implied(self, symbol: sympy.Symbol, candidate: int = 0) -> tuple[int, int] | None:
        """The values of ``symbol`` (the others as in :meth:`values`) for which the candidate rounds to
        the claim, as an inclusive range; None when there is none. The count must grow with ``symbol``,
        as every count does with every size."""
        expr = self.candidates[candidate].total.subs({s: v for s, v in self.values().items() if s != symbol})
        assert expr.free_symbols <= {symbol}, f"{self.name}: {expr.free_symbols - {symbol}} left free"
        polynomial = sympy.Poly(expr, symbol)

        def count(at: int) -> sympy.Rational:
            return polynomial.eval(at)  # exact

        def first(at_least: Fraction) -> int:
            """The smallest positive value with count >= at_least (bisection on an increasing count)."""
            low, high = 1, 2
            while count(high) < at_least:
                low, high = high, 2 * high
            if count(low) >= at_least:
                return low
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (low, middle) if count(middle) >= at_least else (middle, high)
            return high

        half = Fraction(self.precision, 2)
        lo, hi = first(self.claim - half), first(self.claim + half) - 1
        return (lo, hi) if lo <= hi else None


def sizes(**values: int) -> dict[sympy.Symbol, int]:
    """Values of sizes given by their names in the notation: sizes(L=2, D=256)."""
    unknown = set(values) - set(symbols.BY_NAME)
    assert not unknown, f"not sizes of the notation: {sorted(unknown)}"
    return symbols.valued(values)


@dataclass(frozen=True)
class Hypothesis:
    """Does one value of one size explain several rounded figures at once?

    ``claims`` are rounded figures, each with the candidate that the hypothesis says was counted
    first; ``symbol = value`` is the hypothesis (``value`` None asks only whether some value of the
    symbol explains them all). :attr:`ranges` gives, per claim, every value of the symbol that would
    reproduce it; :attr:`common` is where they all meet.
    """

    name: str
    statement: str  # html: what is supposed
    claims: tuple[Rounded, ...]
    symbol: sympy.Symbol
    value: int | None

    @cached_property
    def ranges(self) -> tuple[tuple[int, int] | None, ...]:
        return tuple(c.implied(self.symbol) for c in self.claims)

    @cached_property
    def common(self) -> tuple[int, int] | None:
        """The values of the symbol that reproduce every claim, or None."""
        if any(r is None for r in self.ranges):
            return None
        lo, hi = max(r[0] for r in self.ranges), min(r[1] for r in self.ranges)
        return (lo, hi) if lo <= hi else None

    def reproduces(self, claim: Rounded) -> bool:
        assert self.value is not None, f"{self.name} supposes no value"
        return claim.rounds(**{str(self.symbol): self.value})

    @property
    def holds(self) -> bool:
        """The value reproduces every claim (with no value: some value does)."""
        if self.value is None:
            return self.common is not None
        return all(self.reproduces(c) for c in self.claims)

    def check(self) -> None:
        """The ranges and the value agree: the value reproduces a claim exactly when it is in its range."""
        if self.value is None:
            return
        for claim, span in zip(self.claims, self.ranges):
            inside = span is not None and span[0] <= self.value <= span[1]
            assert inside == self.reproduces(claim), f"{self.name}: {claim.name} disagrees with its range {span}"
