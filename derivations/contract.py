"""The family contract: the one record a family module declares, ``FAMILY = Family(...)``, checked when built.

Everything the rest of the project asks of a family is a field of its record: the command line and the
registry (:mod:`derivations.registry`) read its model_type, layouts and classes; the site reads its checkpoints,
headlines, running example, tables, rules and reconciled claims. Nothing reads a family module's names
otherwise, except a page's reference (``<!-- num:bert.layer @ bert-base-uncased -->``), which names an object of
the module for the page to show.

A family module is the difference a family makes (its trees, built from :mod:`derivations.components` and other
families' parts), then its record. Its reader (``derivations/readers/<name>.py``) gives the model_type, the
layouts and the size rules; a family that counts another's configs (GPT-3 counts GPT-2's) has none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy

from .claims import Hypothesis, Miscount, Rounded
from .components import Part
from .reading import Reader
from .rules import Rule
from .sources import Source
from .transient import Transient

# What a family's layers are, as the navigation groups them.
KINDS = ("encoder", "encoder-decoder", "decoder", "vision")


@dataclass(frozen=True)
class Headline:
    """A count a family is known by, for the home page's table and the page's at-a-glance box: a class (or
    ``ACTIVE.<class>``, its active count) on a bundled checkpoint, what distinguishes the row (``"XL"``), and for a
    count that depends on a convention (the active parameters of a mixture of experts) the convention, in one
    sentence. A count that is not a class's (what a checkpoint's files hold) names a part of the family's module
    and says what it counts (``label``) and in what (``unit``)."""

    name: str
    checkpoint: str
    note: str = ""
    convention: str = ""
    label: str = ""
    unit: str = "parameters"

    @property
    def active(self) -> bool:
        return self.name.startswith("ACTIVE.")

    @property
    def architecture(self) -> str:
        """The class the count is of."""
        return self.name.removeprefix("ACTIVE.")


# eq=False: a record is one family, compared (and hashed, as a cache key) by identity.
@dataclass(frozen=True, kw_only=True, eq=False)
class Family:
    """A model family: one module of ``derivations/families/``, one page ``docs/<name>.md``.

    ``variants`` lays out every class transformers defines for the model_type (by name) in every layout a config
    can ask for (by the reader's layout key; "" the plain one); ``active``, for a mixture of experts, the parameters
    one token uses, the same way. The site's tables evaluate ``table_columns`` (names in the module, or classes,
    with an optional unit: ``"kaplan_error | percent"``, to their headers) on every checkpoint, beside the sizes
    ``table_symbols``."""

    name: str
    # The reader of the model_type's configs; None for a family that counts another's (GPT-3: GPT-2's configs),
    # which names the model_type.
    reader: Reader | None
    model_type: str = ""
    variants: Mapping[str, Mapping[str, Part]]
    # The class a config without architectures builds (None: the other family's, whose configs these are).
    base: str | None
    checkpoints: tuple[str, ...]
    # The month of its first paper (or release): the site lists the families in this order.
    first_published: str
    # What it is (its layers' kind: "encoder", "decoder", "encoder-decoder"; "vision" for a model that reads images) and who published it (the organisation, as
    # readers know it: "Google", "Meta"): the navigation groups the families by both.
    kind: str
    maker: str
    headlines: tuple[Headline, ...]
    # The page's running example: every table on it is evaluated on this checkpoint unless its caption says not.
    example: str
    table_symbols: tuple[sympy.Symbol, ...]
    table_columns: Mapping[str, str]
    # Published figures, reconciled: wrong counts (each on a mistakes page), rounded ones, and hypotheses that
    # explain several rounded figures at once.
    miscounts: tuple[Miscount, ...] = ()
    rounded: tuple[Rounded, ...] = ()
    hypotheses: tuple[Hypothesis, ...] = ()
    # The sources only this family cites, declared in its module (derivations.sources.declare); those several
    # pages cite are in derivations/sources.py.
    sources: tuple[Source, ...] = ()
    # What the calculator derives rather than asks for (d_h = floor(D / H): {d_h: (D, H)}), and sizes that may be
    # below 1 (a mixture's active experts: {X_a: 0}). Its rules are the reader's.
    ratios: Mapping[sympy.Symbol, tuple[sympy.Symbol, sympy.Symbol]] = field(default_factory=dict)
    minimum: Mapping[sympy.Symbol, int] = field(default_factory=dict)
    # A mixture of experts: the parameters one token uses, by layout and class, as ``variants``.
    active: Mapping[str, Mapping[str, Part]] = field(default_factory=dict)
    # What the forward holds at inference beyond weights and cache (derivations.transient), by layout and class, as
    # ``variants``: the classes whose forward is derived; the others' inference total is refused, and says why.
    transient: Mapping[str, Mapping[str, Transient]] = field(default_factory=dict)
    # ... and under sdpa attention (transformers' default where a model supports it), where derived: the same shape.
    transient_sdpa: Mapping[str, Mapping[str, Transient]] = field(default_factory=dict)
    # Why transformers runs the family without sdpa, where it does (Gemma 2: softcapped scores): said beside the answer.
    no_sdpa: str = ""
    # Names of the module that are the same in every layout, or built from one layout by name, so that a page may
    # evaluate them on a checkpoint of any layout (Qwen2's non-embedding count).
    layout_free: tuple[str, ...] = ()
    # A model that reads images: the tokens one image is (ViT's N_p patches and its class token), which its vision
    # tower's parts run on (their ``tokens``); a class whose FLOPs then hold no ``s`` reads an image alone, and its
    # FLOPs and memory are of one image. None for a family that reads tokens alone.
    image_tokens: sympy.Expr | None = None
    # Names a config may give for a class under another name, and the class transformers builds for it (T5's old
    # T5WithLMHeadModel): laid out as the class, but no class of their own.
    aliases: Mapping[str, str] = field(default_factory=dict)
    rules: tuple[Rule, ...] = field(init=False)

    def __post_init__(self) -> None:
        where = f"derivations.families.{self.name}.FAMILY"
        assert re.fullmatch(r"[a-z][a-z0-9_]*", self.name), f"{where}: the name is the module's"
        if self.reader is not None:
            assert self.model_type in ("", self.reader.model_type), f"{where}: the reader reads {self.reader.model_type!r}"
            object.__setattr__(self, "model_type", self.reader.model_type)
            assert set(self.variants) == set(self.reader.layout.settings()), \
                f"{where}: variants must lay out every layout of the reader ({sorted(self.reader.layout.settings())})"
            assert self.base in self.architectures, f"{where}: base {self.base!r} is not a class"
        else:
            assert self.model_type, f"{where}: without a reader, the model_type of the configs it counts"
            assert set(self.variants) == {""} and self.base is None, f"{where}: without a reader, one layout, no base"
        object.__setattr__(self, "rules", self.reader.rules if self.reader is not None else ())
        classes = list(self.architectures)
        for layout, built in self.variants.items():
            assert list(built) == classes, f"{where}: layout {layout!r} has other classes than the plain one"
            assert all(isinstance(part, Part) for part in built.values()), f"{where}: a class is not a Part"
        assert set(self.aliases) <= set(classes) and set(self.aliases.values()) <= set(classes), f"{where}: aliases"
        if self.active:
            assert set(self.active) == set(self.variants), f"{where}: active must be by layout, as variants"
            assert all(list(by_class) == classes for by_class in self.active.values()), f"{where}: active by class"
        if self.transient:
            assert set(self.transient) == set(self.variants), f"{where}: transient must be by layout, as variants"
            assert all(set(by_class) <= set(classes) and all(isinstance(t, Transient) for t in by_class.values())
                       for by_class in self.transient.values()), f"{where}: transient by class"
        if self.transient_sdpa:
            assert set(self.transient_sdpa) == set(self.variants), f"{where}: transient_sdpa must be by layout"
            assert all(set(by_class) <= set(classes) and all(isinstance(t, Transient) for t in by_class.values())
                       for by_class in self.transient_sdpa.values()), f"{where}: transient_sdpa by class"
        assert self.checkpoints and all(isinstance(c, str) for c in self.checkpoints), f"{where}: checkpoints"
        assert self.example in self.checkpoints, f"{where}: the example is not one of the checkpoints"
        assert re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", self.first_published), f"{where}: first_published is YYYY-MM"
        assert self.kind in KINDS, f"{where}: kind is one of {KINDS}"
        assert self.maker and self.maker.strip() == self.maker, f"{where}: maker names who published it"
        assert self.headlines, f"{where}: a family is known by at least one count"
        for headline in self.headlines:
            assert headline.label or headline.architecture in classes, f"{where}: headline {headline.name!r} names no class"
            assert not headline.active or self.active, f"{where}: an active headline, and no active counts"
            assert headline.checkpoint in self.checkpoints, f"{where}: headline on {headline.checkpoint}, not a checkpoint"
        assert all(isinstance(s, sympy.Symbol) for s in self.table_symbols), f"{where}: table_symbols are sizes"
        assert self.table_columns, f"{where}: the checkpoint table needs a column"
        assert all(isinstance(m, Miscount) and m.model and m.cause for m in self.miscounts), \
            f"{where}: a miscount needs its model and its cause (the verdict's)"
        assert all(isinstance(r, Rounded) for r in self.rounded), f"{where}: rounded"
        assert all(isinstance(h, Hypothesis) for h in self.hypotheses), f"{where}: hypotheses"
        assert all(isinstance(s, Source) for s in self.sources), f"{where}: sources"
        assert all(isinstance(size, sympy.Symbol) and len(pair) == 2 for size, pair in self.ratios.items()), where
        assert all(isinstance(size, sympy.Symbol) for size in self.minimum), where

    @property
    def architectures(self) -> Mapping[str, Part]:
        """Every class, in the plain layout."""
        return self.variants[""]

    @property
    def classes(self) -> tuple[str, ...]:
        """The classes transformers defines: the architectures but the aliases."""
        return tuple(name for name in self.architectures if name not in self.aliases)

    @property
    def main(self) -> str:
        """The name the checkpoint table leads with, its first column: a class, or a part of the module (GPT-3's
        ``model``), which the pictures draw."""
        return next(iter(self.table_columns))

    def claims(self) -> tuple:
        """Everything the family reconciles: its miscounts, its rounded figures, its hypotheses and theirs."""
        return (*self.miscounts, *self.rounded, *self.hypotheses, *(c for h in self.hypotheses for c in h.claims))
