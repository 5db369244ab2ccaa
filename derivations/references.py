"""What a docs page can name, and the HTML each name expands to.

A page writes ``<!-- KIND:REF -->``; the MkDocs hook calls :func:`expand` and fails the build on a
``LookupError``. A REF is a Python name inside the package, optionally evaluated on a bundled
checkpoint, with symbol overrides, and a unit::

    bert.layer                                   the part (or expression) derivations.bert.layer
    bert.BertModel.encoder.layer.attention       a part inside a model: all L copies of it
    bert.BertModel @ bert-base-chinese           ... evaluated on that checkpoint's config
    bert.layer.attention @ bert-base-uncased H=1 d_h=768
    bert.BertModel @ bert-base-chinese | fp32_mib
    transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base   (a layout key may hold "+")

Kinds: ``eq`` (display formula), ``math`` (inline formula), ``sym`` (a symbol), ``num`` (a number),
``parts`` (a part's children, one row each), ``leaves`` (every leaf of a model), ``checkpoints``
(a family's checkpoint table), ``architectures`` (a family's classes on one checkpoint),
``notation`` (the notation table), ``miscount`` and ``rounded`` (reconciliations of published counts),
``published`` (a table of rounded figures against exact counts), ``hypothesis`` (does one value of
one size reproduce several published figures?) and ``calculator`` (a family's in-page calculator).
"""

from __future__ import annotations

import html
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType

import sympy

from . import configs, render, symbols
from .claims import Hypothesis, Miscount, Rounded
from .components import Part

Tex = Callable[[str, bool], str]

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
# Resolving a name
# ---------------------------------------------------------------------------------------------

@dataclass
class Target:
    """What a REF names: an object, how many copies of it, and the values to evaluate it on."""

    ref: str
    obj: object
    multiplier: sympy.Expr = sympy.Integer(1)
    values: dict | None = None
    checkpoint: str | None = None
    unit: str | None = None
    path: list[str] = field(default_factory=list)

    @property
    def expression(self) -> sympy.Expr:
        if isinstance(self.obj, Part):
            return self.multiplier * self.obj.total
        if isinstance(self.obj, (sympy.Expr, int)):
            return self.multiplier * sympy.sympify(self.obj)
        raise UnknownReference(f"{self.ref}: {type(self.obj).__name__} is not a part or an expression")

    def value(self) -> int | Fraction:
        expr = self.expression
        missing = expr.free_symbols - set(self.values or {})
        if missing:
            raise UnknownReference(f"{self.ref}: needs values for {sorted(map(str, missing))}; "
                                   f"add '@ CHECKPOINT'")
        result = expr.subs(self.values or {})
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


_REF = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.+]*)\s*(?:@\s*(?P<ckpt>[\w.-]+)(?P<overrides>(?:\s+\w+=\d+)*))?"
                  r"\s*(?:\|\s*(?P<unit>\w+))?\s*$")


def module(name: str) -> ModuleType:
    """A family module (``bert``: derivations.families.bert), else a module of the package (``symbols``)."""
    for package in (f"{__package__}.families", __package__):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{name}":  # the module exists, and fails to import
                raise
    raise UnknownReference(f"no module derivations.families.{name} or derivations.{name}")


def resolve(ref: str) -> Target:
    match = _REF.match(ref)
    if not match:
        raise UnknownReference(f"cannot parse reference {ref!r}")
    first, *rest = match["name"].split(".")
    target = Target(ref, module(first), path=[first])
    if match["ckpt"] and rest and (built := _built(ref, target.obj, rest[0], match["ckpt"])) is not None:
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
    if match["ckpt"]:
        try:
            resolved = configs.checkpoint(match["ckpt"])
        except configs.ConfigError as error:
            raise UnknownReference(f"{ref}: {error}") from None
        target.checkpoint = match["ckpt"]
        target.values = dict(resolved.values)
        for assignment in (match["overrides"] or "").split():
            name, value = assignment.split("=")
            symbol = getattr(symbols, name, None)
            if not isinstance(symbol, sympy.Symbol):
                raise UnknownReference(f"{ref}: {name} is not a symbol")
            target.values[symbol] = int(value)
    if match["unit"]:
        if match["unit"] not in UNITS:
            raise UnknownReference(f"{ref}: unknown unit {match['unit']!r} (known: {', '.join(UNITS)})")
        target.unit = match["unit"]
    return target


def _built(ref: str, family: ModuleType, name: str, checkpoint: str) -> Part | None:
    """``family.name`` on ``checkpoint``: the class as the checkpoint's config lays it out, when ``name``
    is a class (None: resolve the name as written). Any other name of the family on one of its
    checkpoints that asks for another layout than the plain one would be evaluated in the plain layout,
    so it must name that layout (``VARIANTS.<layout>...``) instead."""
    try:
        built = configs.as_built(family, name, checkpoint)
        layout = configs.layout_of(family, checkpoint)
    except configs.ConfigError as error:
        raise UnknownReference(f"{ref}: {error}") from None
    if built is None and layout not in (None, "") and name not in ("VARIANTS", "ACTIVE_VARIANTS"):
        raise UnknownReference(f"{ref}: {checkpoint} builds the layout {layout!r}, and {name} is not a class: "
                               f"name it through VARIANTS.{layout}")
    return built


def number_text(ref: str) -> str:
    """The text a ``num`` shortcode shows for ``ref``: the site test compares pages with it."""
    target = resolve(ref)
    value = target.value()
    if target.decimals:
        return render.decimal(value, target.decimals)
    return render.number(int(value))


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

def _num(ref: str) -> str:
    return f'<span class="dv-num" data-ref="{html.escape(ref)}">{number_text(ref)}</span>'


def _math(tex: Tex, source: str, display: bool, ref: str | None = None) -> str:
    rendered = tex(source, display)
    tag = "div" if display else "span"
    attr = f' data-ref="{html.escape(ref)}"' if ref else ""
    return f'<{tag} class="dv-{"eq" if display else "math"}"{attr}>{rendered}</{tag}>'


def _table(head: list[str], rows: list[list[str]], caption: str = "") -> str:
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{caption}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    out.append("</tbody></table>")
    return "\n".join(out)


def formula(target: Target) -> str:
    """LaTeX for a target: ``N = expression`` for a part, the expression itself otherwise."""
    if isinstance(target.obj, Part):
        lhs = render.symbol(target.obj)
        return f"{lhs} = {render.latex(target.expression)}"
    if isinstance(target.obj, dict):
        return r",\quad ".join(f"{render.latex(k)} = {render.latex(v)}" for k, v in target.obj.items())
    if isinstance(target.obj, sympy.Basic):
        return render.latex(target.obj)
    raise UnknownReference(f"{target.ref}: {type(target.obj).__name__} is not a formula")


def _at(ref: str, target: Target) -> str:
    """``ref`` re-aimed at the same checkpoint and overrides as ``target``."""
    match = _REF.match(target.ref)
    suffix = f" @ {match['ckpt']}{match['overrides'] or ''}" if match["ckpt"] else ""
    return ref + suffix


def formula_text(ref: str) -> str:
    """The TeX an ``eq`` or ``math`` shortcode renders for ``ref``: the site test compares pages with it."""
    target = resolve(ref)
    source = formula(target)
    if target.values is not None:
        source += " = " + render.number(target.value()).replace(",", "{,}").replace(render.MINUS, "-")
    return source


def expand_eq(ref: str, tex: Tex, display: bool = True) -> str:
    return _math(tex, formula_text(ref), display, ref)


def expand_sym(ref: str, tex: Tex) -> str:
    symbol = getattr(symbols, ref.strip(), None)
    if not isinstance(symbol, sympy.Symbol):
        raise UnknownReference(f"{ref}: not a symbol of derivations.symbols")
    return _math(tex, render.latex(symbol), False)


def expand_parts(ref: str, tex: Tex) -> str:
    """One row per child of a part: what it is, its formula, and its count on a checkpoint."""
    target = resolve(ref)
    part = target.obj
    if not isinstance(part, Part) or not part.children:
        raise UnknownReference(f"{ref}: not a part with children")
    base = ref.split("@")[0].strip()
    with_values = target.values is not None
    rows = []
    for child in part.children:
        child_ref = _at(f"{base}.{child.name}", target)
        # A child reached through a repeated part counts every copy.
        child_target = resolve(child_ref)
        cells = [html.escape(child.label) + (f"<br><small>{html.escape(child.note)}</small>" if child.note else ""),
                 _math(tex, render.latex(child_target.expression), False)]
        if with_values:
            cells.append(_num(child_ref))
        rows.append(cells)
    rows.append(["<strong>total</strong>", _math(tex, render.latex(target.expression), False)]
                + ([f"<strong>{_num(ref)}</strong>"] if with_values else []))
    head = ["part", "parameters"] + ([f"on {html.escape(target.checkpoint)}"] if with_values else [])
    return _table(head, rows)


def expand_leaves(ref: str, tex: Tex) -> str:
    """Every leaf of a model, with the copies above it folded in: the command line's table."""
    target = resolve(ref)
    part = target.obj
    if not isinstance(part, Part) or target.values is None:
        raise UnknownReference(f"{ref}: needs a part and '@ CHECKPOINT'")
    base = ref.split("@")[0].strip()
    modules = dict(part.modules())
    rows = []
    for qualified, leaf, _ in part.leaves():
        leaf_ref = _at(".".join([base] + qualified.split(".")[1:]), target)
        module = modules.get(qualified, "")
        name = f"<code>{html.escape(qualified.split('.', 1)[1])}</code>"
        rows.append([name + (f'<br><small class="dv-module">{html.escape(module)}</small>' if module else ""),
                     _math(tex, render.latex(resolve(leaf_ref).expression), False), _num(leaf_ref)])
    rows.append(["<strong>total</strong>", "", f"<strong>{_num(ref)}</strong>"])
    return _table(["component<br><small>module in transformers</small>", "formula",
                   f"on {html.escape(target.checkpoint)}"], rows)


def _family(name: str) -> ModuleType:
    family = module(name.strip())
    if not hasattr(family, "MODEL_TYPE"):
        raise UnknownReference(f"{name}: not a model family")
    return family


def expand_checkpoints(ref: str, tex: Tex) -> str:
    """A family's bundled checkpoints: their sizes and the exact totals of its main classes.

    ``TABLE_ARCHITECTURES`` maps a name in the family module (a class, a part, an expression), with an
    optional unit (``"kaplan_error | percent"``), to its column header; ``FAMILY.COLUMNS`` takes
    another such mapping of the module instead."""
    name, _, columns = ref.strip().partition(".")
    family = _family(name)
    shown = getattr(family, columns, None) if columns else family.TABLE_ARCHITECTURES
    if not isinstance(shown, dict):
        raise UnknownReference(f"{ref}: {columns} is not a mapping of columns")
    ref = name
    symbols_shown = family.TABLE_SYMBOLS
    head = ["checkpoint"] + [_math(tex, render.latex(s), False) for s in symbols_shown] + [
        f"<code>{header}</code>" for header in shown.values()]
    rows = []
    for name in family.CHECKPOINTS:
        cells = [f"<code>{name}</code>"] + [_num(f"symbols.{s} @ {name}") for s in symbols_shown]
        for column in shown:
            target, _, unit = column.partition("|")
            cells.append(_num(f"{ref.strip()}.{target.strip()} @ {name}" + (f" | {unit.strip()}" if unit else "")))
        rows.append(cells)
    return _table(head, rows)


def expand_architectures(ref: str, tex: Tex) -> str:
    """Every class of a family on one checkpoint: what it adds to the body, and its total."""
    match = re.fullmatch(r"\s*(\w+)\s*@\s*([\w.-]+)\s*", ref)
    if not match:
        raise UnknownReference(f"{ref}: write FAMILY @ CHECKPOINT")
    family, checkpoint = _family(match[1]), match[2]
    rows = []
    for name, part in family.ARCHITECTURES.items():
        rows.append([f"<code>{name}</code>", html.escape(part.label),
                     _num(f"{match[1]}.{name} @ {checkpoint}")])
    return _table(["class", "what it holds", f"parameters on {html.escape(checkpoint)}"], rows)


def expand_notation(ref: str, tex: Tex) -> str:
    notation = resolve(ref).obj
    if not isinstance(notation, tuple) or not all(isinstance(n, symbols.Notation) for n in notation):
        raise UnknownReference(f"{ref}: not a tuple of Notation")
    rows = [[_math(tex, render.latex(n.symbol), False), html.escape(n.meaning),
             ", ".join(f"<code>{f}</code>" for f in n.hf_fields), html.escape(n.elsewhere)]
            for n in notation]
    return _table(["symbol", "meaning", "config.json", "elsewhere"], rows)


def expand_miscount(ref: str, tex: Tex) -> str:
    target = resolve(ref)
    item = target.obj
    if not isinstance(item, Miscount):
        raise UnknownReference(f"{ref}: not a Miscount")
    item.check()
    at = f" @ {item.checkpoint}"
    printed = f" (printed “{html.escape(item.printed)}”)" if item.printed else ""
    rows = [["claimed", f"{item.what}<br><small>source: {item.source}</small>", _num(f"{ref}.claim") + printed],
            ["exact", html.escape(item.correct.label), _num(f"{ref}.correct{at}")]]
    if item.reconstruction is not None:
        rows.append(["the claim's arithmetic, rebuilt",
                     _math(tex, render.terms(item.reconstruction), False),
                     _num(f"{ref}.reconstruction{at}")])
    parts = [_table(["", "what", "parameters"], rows)]
    if item.terms:
        term_rows = [[html.escape(t.label), _math(tex, render.latex(t.total), False), _num(f"{ref}.difference.{t.name}{at}")]
                     for t in item.terms]
        term_rows.append(["<strong>exact − claimed</strong>", "", f"<strong>{_num(f'{ref}.difference{at}')}</strong>"])
        parts.append(_table(["the difference, term by term", "formula", "parameters"], term_rows))
    return '<div class="dv-miscount">' + "\n".join(parts) + "</div>"


def expand_rounded(ref: str, tex: Tex) -> str:
    target = resolve(ref)
    item = target.obj
    if not isinstance(item, Rounded):
        raise UnknownReference(f"{ref}: not a Rounded claim")
    rows = []
    for i, candidate in enumerate(item.candidates):
        exact = f"{ref}.candidates.{i} @ {item.checkpoint}"
        rows.append([f"<code>{html.escape(candidate.name)}</code>",
                     _num(exact), _num(f"{ref}.gaps.{i} @ {item.checkpoint}")])
    caption = f"“{html.escape(item.what)}”, {item.source}"
    return _table([f"what could be counted on <code>{item.checkpoint}</code>", "exact",
                   f"claim ({_num(f'{ref}.claim')}) − exact"], rows, caption)


def _at_claim(claim: Rounded, **extra: int) -> str:
    """`` @ CHECKPOINT OVERRIDES`` evaluating a claim's candidates as the claim does, with ``extra`` on top."""
    values = {str(symbol): value for symbol, value in claim.overrides.items()} | extra
    return f" @ {claim.checkpoint}" + "".join(f" {k}={v}" for k, v in values.items())


def _both(number: str, mark: str) -> str:
    """A count and its mark, kept on one line."""
    return f'<span class="dv-nowrap">{number}&nbsp;{mark}</span>'


def _mark(ok: bool) -> str:
    return ('<span class="dv-yes" title="rounds to the published figure">✓</span>' if ok else
            '<span class="dv-no" title="does not round to the published figure">✗</span>')


def _claims(ref: str) -> tuple[tuple[str, Rounded], ...]:
    """A Rounded, or a tuple of them, with the reference of each."""
    obj = resolve(ref).obj
    if isinstance(obj, Rounded):
        return ((ref, obj),)
    if isinstance(obj, tuple) and obj and all(isinstance(c, Rounded) for c in obj):
        return tuple((f"{ref}.{i}", c) for i, c in enumerate(obj))
    raise UnknownReference(f"{ref}: not a Rounded claim or a tuple of them")


def expand_published(ref: str, tex: Tex) -> str:
    """Rounded figures as published, one row each, against each exact count they could mean (one
    column per candidate, ✓ where it rounds to the figure), with the gap where there is one candidate."""
    claims = _claims(ref.strip())
    width = len(claims[0][1].candidates)
    if any(len(c.candidates) != width for _, c in claims):
        raise UnknownReference(f"{ref}: the claims have different numbers of candidates")
    head = ["as published", "printed"] + [html.escape(c.label) for c in claims[0][1].candidates]
    if width == 1:
        head.append("published − exact")
    rows = []
    for claim_ref, claim in claims:
        at = _at_claim(claim)
        cells = [f"{html.escape(claim.what)}", html.escape(claim.printed) or _num(f"{claim_ref}.claim")]
        cells += [_both(_num(f"{claim_ref}.candidates.{i}{at}"), _mark(claim.rounds(i))) for i in range(width)]
        if width == 1:
            cells.append(_num(f"{claim_ref}.gaps.0{at}"))
        rows.append(cells)
    source = claims[0][1].source
    caption = f"Source: {source}" if all(c.source == source for _, c in claims) else ""
    return _table(head, rows, caption)


def expand_hypothesis(ref: str, tex: Tex) -> str:
    """Each claim, its exact count, its count under the hypothesis, and every value of the symbol that
    would reproduce it; the last row, the values that reproduce them all."""
    ref = ref.strip()
    item = resolve(ref).obj
    if not isinstance(item, Hypothesis):
        raise UnknownReference(f"{ref}: not a Hypothesis")
    item.check()
    symbol = _math(tex, render.latex(item.symbol), False)
    # A column for the supposed value, unless every claim's config already has it (then "exact" is it).
    supposed = item.value is not None and any(c.values()[item.symbol] != item.value for c in item.claims)
    head = ["as published", "printed", "exact"]
    if supposed:
        head.append(f"with {symbol} = {_num(f'{ref}.value')}")
    head.append(f"{symbol} that reproduces it")

    def span(at: str, value: tuple[int, int] | None) -> str:
        return "none" if value is None else f"{_num(f'{at}.0')} to {_num(f'{at}.1')}"

    rows = []
    for i, claim in enumerate(item.claims):
        claim_ref, at = f"{ref}.claims.{i}", _at_claim(claim)
        cells = [html.escape(claim.what), html.escape(claim.printed) or _num(f"{claim_ref}.claim"),
                 _both(_num(f"{claim_ref}.candidates.0{at}"), _mark(claim.rounds()))]
        if supposed:
            with_value = _at_claim(claim, **{str(item.symbol): item.value})
            cells.append(_both(_num(f"{claim_ref}.candidates.0{with_value}"), _mark(item.reproduces(claim))))
        cells.append(span(f"{ref}.ranges.{i}", item.ranges[i]))
        rows.append(cells)
    rows.append(["<strong>all of them</strong>", "", ""] + ([""] if supposed else [])
                + [f"<strong>{span(f'{ref}.common', item.common)}</strong>"])
    caption = f"Hypothesis: {item.statement}. Source of the figures: {item.claims[0].source}"
    return _table(head, rows, caption)


def expand_calculator(ref: str, tex: Tex) -> str:
    """The calculator's form for a family: a checkpoint to start from, the class, one input per size, and
    the table the page's script fills (derivations/calculator.py generates its arithmetic)."""
    from . import calculator

    name = ref.strip()
    family = _family(name)
    classes = list(family.ARCHITECTURES)
    main = next((c for c in family.TABLE_ARCHITECTURES if c in classes), classes[0])
    # The checkpoints in the layout the calculator counts (not Llama 3.2, tied; not T5 1.1, gated).
    presets = calculator.presets(family)
    start = next(iter(presets.values()))
    meaning = {n.symbol: n.meaning for n in symbols.NOTATION}
    option = '<option value="{0}"{1}>{0}</option>'.format
    inputs = "\n".join(
        f'<label title="{html.escape(meaning[s])}">{_math(tex, render.latex(s), False)} '
        f'<input name="{s}" inputmode="numeric" value="{start[str(s)]}" aria-label="{html.escape(meaning[s])}"></label>'
        for s in calculator.sizes(family))
    return (
        f'<form class="dv-calculator" data-family="{html.escape(name)}" autocomplete="off">\n'
        '<div class="dv-calc-controls">'
        '<label>start from <select name="preset">'
        + "".join(option(c, " selected" if i == 0 else "") for i, c in enumerate(presets))
        + '</select></label> <label>class <select name="class">'
        + "".join(option(c, " selected" if c == main else "") for c in classes)
        + "</select></label></div>\n"
        f'<div class="dv-calc-sizes">{inputs}</div>\n'
        '<p class="dv-calc-message" role="alert" hidden></p>\n'
        '<div class="dv-calc-scroll"><table class="dv-calc-result"><thead><tr><th>component</th><th>parameters</th>'
        '</tr></thead><tbody></tbody><tfoot><tr><th>total</th><th class="dv-calc-total"></th></tr></tfoot></table></div>\n'
        "<noscript><p>The calculator runs in the page (JavaScript); the tables above give every count for "
        "the bundled checkpoints, and <code>python -m derivations count</code> any other.</p></noscript>\n"
        "</form>")


EXPANDERS: dict[str, Callable[[str, Tex], str]] = {
    "eq": lambda ref, tex: expand_eq(ref, tex, True),
    "math": lambda ref, tex: expand_eq(ref, tex, False),
    "sym": expand_sym,
    "num": lambda ref, tex: _num(ref.strip()),
    "parts": expand_parts,
    "leaves": expand_leaves,
    "checkpoints": expand_checkpoints,
    "architectures": expand_architectures,
    "notation": expand_notation,
    "miscount": expand_miscount,
    "rounded": expand_rounded,
    "published": expand_published,
    "hypothesis": expand_hypothesis,
    "calculator": expand_calculator,
}


def expand(kind: str, ref: str, tex: Tex) -> str:
    """The HTML for a shortcode; ``LookupError`` for an unknown kind or name."""
    if kind not in EXPANDERS:
        raise UnknownReference(f"unknown shortcode kind {kind!r} (known: {', '.join(EXPANDERS)})")
    return EXPANDERS[kind](ref, tex)
