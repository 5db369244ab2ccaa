"""The model families: one module each, composed from :mod:`derivations.components`.

A module here is a family with a page of its own (``docs/<module>.md``): it lays out every class
transformers defines for it, names its bundled checkpoints and reconciles the figures published about
it. Pages name its contents in the short form ``bert.layer`` (see :mod:`derivations.references`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Headline:
    """A count a family is known by, for the home page's table: a name in the family module (a class,
    or ``ACTIVE.<class>``) on a bundled checkpoint, and what distinguishes the row (``"XL"``)."""

    name: str
    checkpoint: str
    note: str = ""
