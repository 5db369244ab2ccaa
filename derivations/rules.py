"""The conditions transformers puts on a family's sizes, each stated once: the reader refuses a config that breaks
one, the calculator refuses the same sizes (and says the rule beside the inputs), and the tests hold both to
transformers.

A :class:`Rule` is plain data over sizes named as in the notation (``"H"``, ``"D"``): what must hold, the words
the pages and the calculator show (sizes written ``{D}``, code in backticks) and the one line the reader prints
when a config breaks it (``{D}`` the value, ``{D_field}`` the config field it was read from). A reader declares
its rules in its ``Reader`` (:mod:`derivations.reading`) and checks each where it reads the sizes it concerns;
the site's calculator prints the same conditions as JavaScript (``derivations/site/calculator.py``).

Plain Python: the command line reads configs without SymPy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from .reading import ConfigError

# What a rule can say of its sizes, and how many sizes each test reads.
TESTS = {"divides": 2, "at_most": 2, "even_or_one": 1}


class Rule(NamedTuple):
    """A condition on sizes: ``test`` over ``sizes`` (``divides``: the first divides the second; ``at_most``: the
    first is at most the second; ``even_or_one``: the size is even, or 1). The first size is the one the calculator
    marks when the rule fails. ``refuse`` False makes it a note: the count stands (BERT's widths that the heads do
    not divide, which transformers builds when the config sets embedding_size)."""

    test: str
    sizes: tuple[str, ...]
    text: str
    refusal: str = ""
    refuse: bool = True

    @property
    def field(self) -> str:
        """The size the calculator marks when the rule fails."""
        return self.sizes[0]

    def holds(self, values: Mapping[str, int]) -> bool:
        """Whether the rule holds at these sizes (by name)."""
        first = values[self.sizes[0]]
        if self.test == "divides":
            return values[self.sizes[1]] % first == 0
        if self.test == "at_most":
            return first <= values[self.sizes[1]]
        return first == 1 or first % 2 == 0

    def check(self, values: Mapping[str, int], fields: Mapping[str, str | tuple[str, ...]] = {}) -> None:
        """The reader's refusal: :class:`ConfigError` with the rule's line, naming each size by the config field
        ``fields`` gives for it (the first, where it gives several), when the sizes break the rule."""
        assert self.refusal, f"{self.text!r}: a rule the reader checks says what it refuses"
        if not self.holds(values):
            named = {f"{size}_field": field if isinstance(field, str) else field[0] for size, field in fields.items()}
            raise ConfigError(self.refusal.format(**values, **named))


def _rule(test: str, sizes: tuple[str, ...], text: str, refusal: str, refuse: bool) -> Rule:
    assert len(sizes) == TESTS[test], (test, sizes)
    assert all(re.fullmatch(r"[A-Za-z]\w*", size) for size in sizes), sizes
    return Rule(test, sizes, text, refusal, refuse)


# The refusals most readers print, with the config's own field names.
NOT_A_MULTIPLE = "{{{1}_field}} ({{{1}}}) is not a multiple of {{{0}_field}} ({{{0}}})"
MORE_THAN = "{{{0}_field}} ({{{0}}}) is more than {{{1}_field}} ({{{1}}})"


def divides(divisor: str, multiple: str, text: str, refusal: str | None = None, refuse: bool = True) -> Rule:
    """``divisor`` must divide ``multiple``; the reader says "hidden_size (66) is not a multiple of
    num_attention_heads (8)" unless told otherwise."""
    return _rule("divides", (divisor, multiple), text,
                 NOT_A_MULTIPLE.format(divisor, multiple) if refusal is None else refusal, refuse)


def at_most(size: str, bound: str, text: str, refusal: str | None = None) -> Rule:
    """``size`` can be at most ``bound``; the reader says "num_experts_per_tok (9) is more than
    num_local_experts (8)" unless told otherwise ("" where no config can break it: the reader derives the size)."""
    return _rule("at_most", (size, bound), text, MORE_THAN.format(size, bound) if refusal is None else refusal, True)


def even_or_one(size: str, text: str, refusal: str) -> Rule:
    """``size`` must be even, or 1."""
    return _rule("even_or_one", (size,), text, refusal, True)
