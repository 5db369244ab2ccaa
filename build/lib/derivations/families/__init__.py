"""The model families: one module each, composed from :mod:`derivations.components`.

A module here is a family with a page of its own (``docs/<module>.md``): it lays out every class
transformers defines for it, names its bundled checkpoints and reconciles the figures published about
it. Pages name its contents in the short form ``bert.layer`` (see :mod:`derivations.references`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Headline:
    """A count a family is known by, for the home page's table and the page's at-a-glance box: a name in
    the family module (a class, or ``ACTIVE.<class>``) on a bundled checkpoint, what distinguishes the
    row (``"XL"``), and for a count that depends on a convention (the active parameters of a mixture of
    experts) the convention, in one sentence."""

    name: str
    checkpoint: str
    note: str = ""
    convention: str = ""
