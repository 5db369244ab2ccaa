"""Every shortcode a page may write, in one table: ``<!-- NAME:TEXT -->`` -> the HTML it expands to.

The MkDocs hook (hooks/shortcodes.py) finds the shortcodes (:data:`derivations.site.syntax.SHORTCODE`) and calls
:func:`expand` with a function that typesets TeX; anything unknown is a ``LookupError``, which fails the build. A
shortcode's TEXT is a reference (:mod:`derivations.site.references`) or, where :class:`Shortcode` says so, text of
its own (a symbol's name, a family's, a picture's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from . import expanders as x
from . import families, figures, glance, peers, splitting
from .references import UnknownReference, reference

Tex = Callable[[str, bool], str]


class Shortcode(NamedTuple):
    """What a shortcode expands with: ``expand(argument, tex)``, its argument the parsed reference when
    ``reference``, else the text as written; ``what``, the words the README and the tests use for it."""

    reference: bool
    expand: Callable[..., str]
    what: str


def _families(text: str, tex: Tex) -> str:
    listed = {"table": families.table, "mistakes": families.mistakes, "derived": families.derived,
              "not-derived": families.not_derived, "others": families.others, "transient": families.transient,
              "transient-sdpa": families.transient_sdpa}
    if text.strip() not in listed:
        raise UnknownReference(f"families:{text}: no such list (known: {', '.join(listed)})")
    return listed[text.strip()]()


SHORTCODES: dict[str, Shortcode] = {
    "eq": Shortcode(True, lambda ref, tex: x.expand_eq(ref, tex, True), "a displayed formula"),
    "math": Shortcode(True, lambda ref, tex: x.expand_eq(ref, tex, False), "an inline formula"),
    "sym": Shortcode(False, x.expand_sym, "a symbol of the notation, by name"),
    "num": Shortcode(True, lambda ref, tex: x.number(ref), "a number"),
    "parts": Shortcode(True, x.expand_parts, "a part's children, one row each"),
    "leaves": Shortcode(True, x.expand_leaves, "every leaf of a model, as the command line lists them"),
    "checkpoints": Shortcode(False, x.expand_checkpoints, "a family's checkpoint table"),
    "architectures": Shortcode(False, x.expand_architectures, "a family's classes on one checkpoint"),
    "compute": Shortcode(False, x.expand_compute, "what a family's checkpoints compute"),
    "memory": Shortcode(False, x.expand_memory, "what models hold"),
    "notation": Shortcode(True, x.expand_notation, "the notation table"),
    "sizes": Shortcode(False, x.expand_sizes, "the sizes a family's formulas are written in"),
    "miscount": Shortcode(True, x.expand_miscount, "a miscount reconciled, term by term"),
    "verdict": Shortcode(True, x.expand_verdict, "the sentence that opens a miscount's entry"),
    "rounded": Shortcode(True, x.expand_rounded, "a rounded figure against what it could mean"),
    "published": Shortcode(True, x.expand_published, "rounded figures as published against the exact counts"),
    "hypothesis": Shortcode(True, x.expand_hypothesis, "does one value of one size reproduce several figures?"),
    "calculator": Shortcode(False, x.expand_calculator, "a family's calculator"),
    "cite": Shortcode(False, x.expand_cite, "a source, by key"),
    "sources": Shortcode(False, x.expand_sources, "the sources page's list"),
    "accelerators": Shortcode(False, x.expand_accelerators, "the accelerators' memory, bf16 peak and bandwidth"),
    "peers": Shortcode(False, lambda text, tex: peers.render_shortcode(text),
                       "public calculators' figures beside the package's, the differences taken apart"),
    "split": Shortcode(False, splitting.expand, "a model split over devices: its largest layer, tensor parallelism, ZeRO"),
    "figure": Shortcode(False, lambda text, tex: figures.render_figure(text), "a picture"),
    "glance": Shortcode(False, lambda text, tex: glance.render(text.strip()), "a family page's at-a-glance box"),
    "families": Shortcode(False, _families,
                          "the home page's table, the mistakes page's summary, the coverage page's lists, or the "
                          "memory page's families whose transient peak is derived"),
}


def expand(shortcode: str, text: str, tex: Tex) -> str:
    """The HTML for a shortcode (its name, and the text after the colon); ``LookupError`` for an unknown
    shortcode or reference."""
    if shortcode not in SHORTCODES:
        raise UnknownReference(f"unknown shortcode {shortcode!r} (known: {', '.join(SHORTCODES)})")
    found = SHORTCODES[shortcode]
    return found.expand(reference(text) if found.reference else text, tex)
