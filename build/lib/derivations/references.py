"""What a reference names, and its value: the grammar the pages, the tests and the pictures share.

A *reference* is what a shortcode names (``<!-- num:REFERENCE -->``, see :mod:`derivations.syntax`):
a dotted name in the package, optionally evaluated on a bundled checkpoint with symbol overrides, and
shown in a unit::

    bert.layer                                   the part (or expression) derivations.families.bert.layer
    bert.BertModel.encoder.layer.attention       a part inside a model: all L copies of it
    bert.BertModel @ bert-base-chinese           ... evaluated on that checkpoint's config
    bert.layer.attention @ bert-base-uncased H=1 d_h=768
    bert.BertModel @ bert-base-chinese | fp32_mib
    transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base   (a layout key may hold "+")
    symbols.D @ bert-base-uncased                a module of the package (a family's first)

:meth:`Reference.parse` reads the text once; the HTML of each shortcode (:mod:`derivations.expanders`)
builds the references of its cells as objects (:meth:`Reference.child`, :meth:`Reference.at`), never as
text to be parsed again. Anything unknown is an :class:`UnknownReference` (a ``LookupError``), which
fails the build.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import ModuleType

import sympy

from . import configs, render, symbols
from .components import Part

# Unit conversions shown next to an exact count: name -> (bytes per parameter, bytes per unit, decimals).
UNITS = {
    "fp32_bytes": (4, 1, 0),
    "fp32_mb": (4, 10**6, 1),
    "fp32_mib": (4, 2**20, 1),
    "mi": (1, 2**20, 1),  # the count divided by 2^20: what "MB" meant in one miscount
    "percent": (100, 1, 3),  # a ratio of two counts, in percent
    "ratio": (1, 1, 8),  # a ratio of two counts, as a fraction: 0.21772649
    "millions": (1, 10**6, 1),  # the count as papers round it: 355.9 (million)
    "billions": (1, 10**9, 1),  # 12.9 (billion)
}


class UnknownReference(LookupError):
    pass


# ---------------------------------------------------------------------------------------------
# The grammar
# ---------------------------------------------------------------------------------------------

_GRAMMAR = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.+]*)\s*"
                      r"(?:@\s*(?P<checkpoint>[\w.-]+)(?P<overrides>(?:\s+\w+=\d+)*))?"
                      r"\s*(?:\|\s*(?P<unit>\w+))?\s*$")


@dataclass(frozen=True)
class Reference:
    """A dotted ``name`` in the package, the ``checkpoint`` it is evaluated on (with symbol
    ``overrides``), and the ``unit`` it is shown in. ``str()`` gives it back as a page writes it."""

    name: str
    checkpoint: str | None = None
    overrides: tuple[tuple[str, int], ...] = ()
    unit: str | None = None

    @classmethod
    def parse(cls, text: str) -> Reference:
        match = _GRAMMAR.match(text)
        if not match:
            raise UnknownReference(f"cannot parse reference {text!r}")
        overrides = tuple((name, int(value)) for name, value in
                          (assignment.split("=") for assignment in (match["overrides"] or "").split()))
        return cls(match["name"], match["checkpoint"], overrides, match["unit"])

    def __str__(self) -> str:
        text = self.name
        if self.checkpoint:
            text += f" @ {self.checkpoint}" + "".join(f" {name}={value}" for name, value in self.overrides)
        return text + (f" | {self.unit}" if self.unit else "")

    def child(self, *names: str | int) -> Reference:
        """A name below this one, on the same checkpoint, with the same overrides and unit."""
        return replace(self, name=".".join([self.name, *map(str, names)]))

    def at(self, checkpoint: str | None, overrides: tuple[tuple[str, int], ...] = (), unit: str | None = None
           ) -> Reference:
        """The same name on another checkpoint (None: none), with other overrides and unit."""
        return Reference(self.name, checkpoint, overrides if checkpoint else (), unit)

    @property
    def module(self) -> str:
        return self.name.split(".")[0]


def reference(ref: Reference | str) -> Reference:
    return ref if isinstance(ref, Reference) else Reference.parse(ref)


# ---------------------------------------------------------------------------------------------
# Resolving a reference
# ---------------------------------------------------------------------------------------------

@dataclass
class Target:
    """What a reference names: an object, how many copies of it, and the values to evaluate it on."""

    reference: Reference
    obj: object
    multiplier: sympy.Expr = sympy.Integer(1)
    values: dict | None = None
    path: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return str(self.reference)

    @property
    def checkpoint(self) -> str | None:
        return self.reference.checkpoint

    @property
    def unit(self) -> str | None:
        return self.reference.unit

    @property
    def expression(self) -> sympy.Expr:
        if isinstance(self.obj, Part):
            return self.multiplier * self.obj.total
        if isinstance(self.obj, (sympy.Expr, int)):
            return self.multiplier * sympy.sympify(self.obj)
        raise UnknownReference(f"{self.ref}: {type(self.obj).__name__} is not a part or an expression")

    def below(self, name: str) -> Target:
        """A child part of this part: every copy this part holds of it (``layer.attention`` in a model
        counts the attention of all L layers)."""
        assert isinstance(self.obj, Part), self.obj
        return Target(self.reference.child(name), self.obj.child(name), self.multiplier * self.obj.repeat,
                      self.values, [*self.path, name])

    def leaf(self, name: str, expr: sympy.Expr) -> Target:
        """A leaf of this part, given by its dotted ``name`` below it and ``expr``, its copies folded in
        (a row of :meth:`Part.rows`)."""
        return Target(self.reference.child(name), expr, self.multiplier, self.values, [*self.path, *name.split(".")])

    def value(self) -> int | Fraction:
        expr = self.expression
        missing = expr.free_symbols - set(self.values or {})
        if missing:
            raise UnknownReference(f"{self.ref}: needs values for {sorted(map(str, missing))}; add '@ CHECKPOINT'")
        result = sympy.sympify(expr.xreplace(self.values or {}))  # a bare symbol is replaced by an int
        # A count is an integer; with a unit, a ratio of counts may be shown too.
        if not (result.is_Integer or (self.unit is not None and result.is_Rational)):
            raise UnknownReference(f"{self.ref}: evaluates to {result}, not an integer")
        if self.unit is None:
            return int(result)
        per_param, per_unit, _ = UNITS[self.unit]
        return Fraction(int(result.p), int(result.q)) * per_param / per_unit

    @property
    def decimals(self) -> int:
        return UNITS[self.unit][2] if self.unit else 0

    def text(self) -> str:
        """The number as a page shows it: grouped by thousands, or to the unit's decimals."""
        value = self.value()
        return render.decimal(value, self.decimals) if self.decimals else render.number(int(value))


def module(name: str) -> ModuleType:
    """A family module (``bert``: derivations.families.bert), else a module of the package (``symbols``)."""
    for package in (f"{__package__}.families", __package__):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{name}":  # the module exists, and fails to import
                raise
    raise UnknownReference(f"no module derivations.families.{name} or derivations.{name}")


def family(name: str) -> ModuleType:
    """A family module (one with a page: it defines MODEL_TYPE)."""
    found = module(name.strip())
    if not hasattr(found, "MODEL_TYPE"):
        raise UnknownReference(f"{name}: not a model family")
    return found


def resolve(ref: Reference | str) -> Target:
    ref = reference(ref)
    first, *rest = ref.name.split(".")
    target = Target(ref, module(first), path=[first])
    if ref.checkpoint and rest and rest[0] == "ACTIVE" and hasattr(target.obj, "ACTIVE_VARIANTS"):
        # A mixture's active count on a checkpoint is that of the layout the checkpoint builds, as for a class.
        layout = configs.layout_of(target.obj, ref.checkpoint)
        if layout is not None:
            target.obj = target.obj.ACTIVE_VARIANTS[layout]
            target.path.append(rest.pop(0))
    elif ref.checkpoint and rest and (built := _built(ref, target.obj, rest[0])) is not None:
        # A class on a checkpoint is the class that checkpoint's config builds, in the layout it asks
        # for (Llama-3.2-1B ties its head, which the plain layout does not).
        target.obj = built
        target.path.append(rest.pop(0))
    for name in rest:
        obj = target.obj
        if isinstance(obj, Part) and any(c.name == name for c in obj.children):
            # A part reached through its parent counts every copy the parent holds.
            target.multiplier *= obj.repeat
            target.obj = obj.child(name)
        elif isinstance(obj, dict) and name in obj:
            target.obj = obj[name]
        elif isinstance(obj, (list, tuple)) and name.isdigit() and int(name) < len(obj):
            target.obj = obj[int(name)]
        elif hasattr(obj, name):
            target.obj = getattr(obj, name)
        else:
            raise UnknownReference(f"{ref}: {'.'.join(target.path)} has no {name!r}")
        target.path.append(name)
    if ref.checkpoint:
        try:
            resolved = configs.checkpoint(ref.checkpoint)
        except configs.ConfigError as error:
            raise UnknownReference(f"{ref}: {error}") from None
        target.values = dict(resolved.values)
        for name, value in ref.overrides:
            symbol = getattr(symbols, name, None)
            if not isinstance(symbol, sympy.Symbol):
                raise UnknownReference(f"{ref}: {name} is not a symbol")
            target.values[symbol] = value
    if ref.unit and ref.unit not in UNITS:
        raise UnknownReference(f"{ref}: unknown unit {ref.unit!r} (known: {', '.join(UNITS)})")
    return target


def _built(ref: Reference, family: ModuleType, name: str) -> Part | None:
    """``family.name`` on the reference's checkpoint: the class as the checkpoint's config lays it out,
    when ``name`` is a class (None: resolve the name as written). Any other name of the family on one of
    its checkpoints that asks for another layout than the plain one would be evaluated in the plain
    layout, so it must name that layout (``VARIANTS.<layout>...``) instead; except the reconciled claims,
    which name their candidates themselves, and the parts a family declares ``LAYOUT_FREE``: the same in every
    layout (Qwen2's non-embedding count, which holds neither the embeddings nor the head), or built from one
    layout by name (DeepSeek-V2-Lite's active count without its input embedding)."""
    try:
        built = configs.as_built(family, name, ref.checkpoint)
        layout = configs.layout_of(family, ref.checkpoint)
    except configs.ConfigError as error:
        raise UnknownReference(f"{ref}: {error}") from None
    from .claims import Hypothesis, Miscount, Rounded

    value = getattr(family, name, None)
    claims = value if isinstance(value, tuple) else (value,)
    explicit = all(isinstance(c, (Rounded, Miscount, Hypothesis)) for c in claims) and bool(claims)
    if (built is None and layout not in (None, "") and not explicit
            and name not in ("VARIANTS", "ACTIVE_VARIANTS", *getattr(family, "LAYOUT_FREE", ()))):
        raise UnknownReference(f"{ref}: {ref.checkpoint} builds the layout {layout!r}, and {name} is not a class: "
                               f"name it through VARIANTS.{layout}")
    return built


# ---------------------------------------------------------------------------------------------
# What a page shows: the site test compares each page with these
# ---------------------------------------------------------------------------------------------

def number_text(ref: Reference | str) -> str:
    """The text a ``num`` shortcode shows for ``ref``."""
    return resolve(ref).text()


def formula(target: Target) -> str:
    """LaTeX for a target: ``N = expression`` for a part, the expression itself otherwise."""
    if isinstance(target.obj, Part):
        return f"{render.symbol(target.obj)} = {render.latex(target.expression)}"
    if isinstance(target.obj, dict):
        return r",\quad ".join(f"{render.latex(k)} = {render.latex(v)}" for k, v in target.obj.items())
    if isinstance(target.obj, sympy.Basic):
        return render.latex(target.obj)
    raise UnknownReference(f"{target.ref}: {type(target.obj).__name__} is not a formula")


def formula_text(ref: Reference | str) -> str:
    """The TeX an ``eq`` or ``math`` shortcode renders for ``ref``."""
    target = resolve(ref)
    source = formula(target)
    if target.values is not None:
        source += " = " + render.number(target.value()).replace(",", "{,}").replace(render.MINUS, "-")
    return source
