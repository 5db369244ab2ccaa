"""What a reference names, and its value: the grammar the pages, the tests and the pictures share.

A *reference* is what a shortcode names (``<!-- num:REFERENCE -->``, see :mod:`derivations.site.syntax`):
a dotted name in the package, optionally evaluated on a bundled checkpoint with symbol overrides, and
shown in a unit::

    bert.layer                                   the part (or expression) derivations.families.bert.layer
    bert.BertModel                               a class of the family (its record's): the plain layout
    bert.BertModel.encoder.layer.attention       a part inside a model: all L copies of it
    bert.BertModel @ bert-base-chinese           ... evaluated on that checkpoint's config, in its layout
    mixtral.ACTIVE.MixtralForCausalLM            a mixture's active count (on a checkpoint: in its layout)
    bert.layer.attention @ bert-base-uncased H=1 d_h=768
    bert.BertModel @ bert-base-chinese | fp32_mib
    transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base   (a layout key may hold "+")
    memory.cache_llama                           a page's exhibit (derivations/site/memory.py)
    symbols.D @ bert-base-uncased                a module of the package

The first name is a family (derivations/families/NAME.py), else a page's exhibits (derivations/site/NAME.py), else a
module of the library.

:meth:`Reference.parse` reads the text once; the HTML of each shortcode (:mod:`derivations.site.expanders`)
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

from .. import configs, registry, render, symbols
from ..claims import Hypothesis, Miscount, Rounded
from ..components import Part
from ..contract import Family

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
    "gib": (1, 2**30, 2),  # bytes in GiB: 60.77
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
    """A family module (``bert``: derivations.families.bert), else a page's exhibits (``compute``:
    derivations.site.compute), else a module of the library (``symbols``)."""
    package = __package__.rsplit(".", 1)[0]  # derivations
    for where in (f"{package}.families", __package__, package):
        try:
            return importlib.import_module(f"{where}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{where}.{name}":  # the module exists, and fails to import
                raise
    raise UnknownReference(f"no module derivations.families.{name}, derivations.site.{name} or derivations.{name}")


def family(name: str) -> Family:
    """A family's record, by its name."""
    try:
        return registry.family(name.strip())
    except LookupError as error:
        raise UnknownReference(f"{name}: not a model family ({error})") from None


def _record(found: ModuleType) -> Family | None:
    """The record of a family module (None for any other module)."""
    if found.__name__.rsplit(".", 1)[0] != f"{__package__.rsplit('.', 1)[0]}.families":
        return None
    return registry.family(found.__name__.rsplit(".", 1)[1])


def resolve(ref: Reference | str) -> Target:
    ref = reference(ref)
    first, *rest = ref.name.split(".")
    target = Target(ref, module(first), path=[first])
    record = _record(target.obj)
    if record is not None and rest:
        _class_or_active(target, record, rest)
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
            target.obj = getattr(obj, name)  # a name of the module, or an attribute of what it names
        else:
            raise UnknownReference(f"{ref}: {'.'.join(target.path)} has no {name!r}")
        target.path.append(name)
    if ref.checkpoint:
        try:
            values = symbols.valued(configs.sizes(configs.load(ref.checkpoint)))
        except configs.ConfigError as error:
            raise UnknownReference(f"{ref}: {error}") from None
        target.values = dict(values)
        for name, value in ref.overrides:
            if name not in symbols.BY_NAME:
                raise UnknownReference(f"{ref}: {name} is not a symbol")
            target.values[symbols.BY_NAME[name]] = value
    if ref.unit and ref.unit not in UNITS:
        raise UnknownReference(f"{ref}: unknown unit {ref.unit!r} (known: {', '.join(UNITS)})")
    return target


def _class_or_active(target: Target, record: Family, rest: list[str]) -> None:
    """The first name below a family: one of its classes (``bert.BertModel``) or a mixture's active count
    (``mixtral.ACTIVE.MixtralForCausalLM``), on a checkpoint in the layout its config asks for (Llama-3.2-1B ties its
    head, which the plain layout does not); any other name, a name of the module (taken off ``rest`` by resolve).

    Any other name of the family on one of its checkpoints that asks for another layout than the plain one would be
    evaluated in the plain layout, so it must name that layout (``VARIANTS.<layout>...``) instead; except the
    reconciled claims, which name their candidates themselves, and the names a family declares ``layout_free``: the
    same in every layout (Qwen2's non-embedding count, which holds neither the embeddings nor the head), or built
    from one layout by name (DeepSeek-V2-Lite's active count without its input embedding)."""
    ref, name = target.reference, rest[0]
    try:
        layout = registry.layout_of(record, ref.checkpoint) if ref.checkpoint else None
    except configs.ConfigError as error:
        raise UnknownReference(f"{ref}: {error}") from None
    if name == "ACTIVE" and record.active:
        target.obj = record.active[layout or ""]
    elif name in record.architectures:
        target.obj = record.variants[layout or ""][name]
    else:
        value = getattr(target.obj, name, None)
        claims = value if isinstance(value, tuple) else (value,)
        explicit = bool(claims) and all(isinstance(c, (Rounded, Miscount, Hypothesis)) for c in claims)
        if layout not in (None, "") and not explicit and name not in ("VARIANTS", "ACTIVE_VARIANTS", *record.layout_free):
            raise UnknownReference(f"{ref}: {ref.checkpoint} builds the layout {layout!r}, and {name} is not a class: "
                                   f"name it through VARIANTS.{layout}")
        return
    target.path.append(rest.pop(0))


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
