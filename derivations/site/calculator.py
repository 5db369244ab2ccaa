"""The in-page calculator's arithmetic, generated from the derivations as JavaScript with BigInt.

Each family page has a form (``<!-- calculator:FAMILY -->``): one input per size of the notation that its
classes use, a list of checkpoints to prefill them, and a class; the page then shows every component
and the total. The counts are the SymPy expressions of the components, printed by SymPy's JavaScript
code printer with integers as BigInt (``3n * s.D ** 2n``), so they stay exact at any size; the script
that wires the form (docs/js/calculator.js) does no arithmetic of its own but sums, shares of the total
and bytes.

What a family's record (:class:`derivations.contract.Family`) gives its calculator:

- ``ratios``: sizes derived rather than asked for, ``{d_h: (D, H)}``: d_h = floor(D / H), as transformers
  computes the head size.
- ``rules``: the conditions transformers puts on the sizes (:class:`derivations.rules.Rule`), the reader's own.
  The form lists those on the sizes it asks for beside the inputs and applies exactly these;
  tests/test_calculator.py holds them to the reader (the command line) and to transformers.
- ``minimum``: a size that may be smaller than 1 (Mixtral's active experts may be 0).
- ``active``: for a mixture of experts, each class's parameters one token uses (the form shows that count beside
  the total).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from functools import cache

import sympy
from sympy.printing.jscode import JavascriptCodePrinter

from .. import configs, flops, memory, registry, symbols
from ..components import Part, evaluate
from ..contract import Family
from ..rules import Rule
from ..storage import FORMATS


class BigIntPrinter(JavascriptCodePrinter):
    """A polynomial with integer coefficients as a JavaScript BigInt expression over ``s.<symbol>``; also
    a condition on sizes (``s.D % s.H == 0n``) and the floor of a quotient (BigInt division floors)."""

    def _print_Integer(self, expr: sympy.Integer) -> str:
        return f"{int(expr)}n"

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        return f"s.{expr.name}"

    def _print_Pow(self, expr: sympy.Pow) -> str:
        base, exponent = expr.args
        assert exponent.is_Integer and exponent > 0, f"not a polynomial power: {expr}"
        return f"({self._print(base)} ** {int(exponent)}n)"

    def _print_Rational(self, expr: sympy.Rational) -> str:
        raise ValueError(f"a count with a fractional coefficient cannot be a BigInt: {expr}")

    _print_Float = _print_Rational

    def _print_floor(self, expr: sympy.floor) -> str:
        # Only of a quotient of positive sizes, for which BigInt division (which truncates) is the floor.
        numerator, denominator = expr.args[0].as_numer_denom()
        assert all(s.is_positive for s in expr.free_symbols), f"floor of a quotient of positive sizes only: {expr}"
        return f"({self._print(numerator)} / {self._print(denominator)})"


def javascript(expr: sympy.Basic, expand: bool = True) -> str:
    """``expr`` as a BigInt expression (0n for a tied tensor), expanded unless told, or a condition as a
    JavaScript boolean."""
    if isinstance(expr, sympy.logic.boolalg.Boolean) or not expand:
        return BigIntPrinter().doprint(expr)
    return BigIntPrinter().doprint(sympy.expand(expr))


# ---------------------------------------------------------------------------------------------
# What a family declares
# ---------------------------------------------------------------------------------------------

_SIZES = [n.symbol for n in symbols.NOTATION]


def condition(rule: Rule) -> sympy.logic.boolalg.Boolean:
    """A rule's condition over the sizes, for the generated script: ``s.D % s.H == 0n``."""
    first, *second = (symbols.BY_NAME[size] for size in rule.sizes)
    if rule.test == "divides":
        return sympy.Eq(second[0] % first, 0)
    if rule.test == "at_most":
        return sympy.Le(first, second[0])
    assert rule.test == "even_or_one", rule.test
    return sympy.Or(sympy.Eq(first, 1), sympy.Eq(first % 2, 0))


def ratios(family: Family) -> Mapping[sympy.Symbol, tuple[sympy.Symbol, sympy.Symbol]]:
    """Sizes the form derives instead of asking for: size = floor(numerator / denominator), as transformers
    computes BERT's head size; a family whose class requires an exact quotient says so in a rule."""
    return family.ratios


@cache  # a family and its rules do not change; the checks ask thousands of times
def rules(family: Family) -> tuple[Rule, ...]:
    """The reader's rules on the sizes the form asks for or derives (GPT-2's heads divide its width, but its form asks for no
    heads: their count is not in any of its numbers)."""
    asked = {str(s) for s in sizes(family)} | {str(s) for s in ratios(family)}  # derived from asked ones
    found = tuple(rule for rule in family.rules if set(rule.sizes) <= asked)
    for rule in found:
        named = set(re.findall(r"\{(\w+)\}", rule.text))
        assert named <= {str(s) for s in _SIZES}, f"unknown sizes in {rule.text!r}"
    return found


def minimum(family: Family) -> dict[str, int]:
    """The least value of each size the form asks for: 1, unless the family says otherwise."""
    lower = {str(s): v for s, v in family.minimum.items()}
    return {str(s): lower.get(str(s), 1) for s in sizes(family)}


def maximum(family: Family) -> dict[str, int]:
    """The greatest value of the sizes the form asks for that have one: a switch (symbols.SWITCHES, DeBERTa-v2's
    n_sh) is 0 or 1, and a count with (1 - n_sh) in it goes negative past 1."""
    return {str(s): 1 for s in sizes(family) if s in symbols.SWITCHES}


def active(family: Family) -> Mapping[str, Part]:
    """A mixture of experts' active parameters per token, by class (none for a dense family)."""
    return family.active.get("", {})


def asked(family: Family, *parts: Part | sympy.Expr) -> set[sympy.Symbol]:
    """The sizes the form asks for to count ``parts`` (or compute an expression): those they use, a derived one
    replaced by what it is derived from."""
    used = set().union(*(getattr(part, "total", part).free_symbols for part in parts))
    for derived, pair in ratios(family).items():
        if derived in used:
            used = (used - {derived}) | set(pair)
    return used


@cache  # a family and its parts do not change
def uses(family: Family, architecture: str) -> frozenset[sympy.Symbol]:
    """The sizes the form asks for to count one class, its active parameters and its FLOPs included (ALBERT's
    depth stores nothing, and its shared layers run that many times)."""
    from ..symbols import s

    parts = [family.architectures[architecture], forward(family, architecture) or sympy.Integer(0)]
    if architecture in active(family):
        parts.append(active(family)[architecture])
    # A derived size is asked for through its pair even where no count uses it: ModernBERT's parameters and FLOPs
    # do not depend on its heads, but whether it builds does (its rotary head D / H is even or 1), and a form
    # without H could not refuse an odd width that one head makes odd.
    derived = set().union(*(set(pair) for pair in ratios(family).values()))
    return frozenset((asked(family, *parts) | derived) - {s})


@cache
def sizes(family: Family) -> tuple[sympy.Symbol, ...]:
    """The sizes the form asks for, in the order of the notation (for every class of the family)."""
    used = set().union(*(uses(family, a) for a in family.architectures))
    return tuple(n.symbol for n in symbols.NOTATION if n.symbol in used)


def derive(family: Family, values: Mapping[sympy.Symbol, int]) -> dict[sympy.Symbol, int]:
    """The sizes with the derived ones added, as the form derives them (the floor of the quotient)."""
    out = dict(values)
    for size, (numerator, denominator) in ratios(family).items():
        if numerator in out and denominator in out:
            out[size] = out[numerator] // out[denominator]
    return out


def applied(family: Family, architecture: str) -> list[Rule]:
    """The rules the form applies to a class: those on sizes the class uses."""
    used = {str(s) for s in uses(family, architecture)} | {str(s) for s in ratios(family)}
    return [rule for rule in rules(family) if set(rule.sizes) <= used]


def refused(family: Family, architecture: str, values: Mapping[sympy.Symbol, int]) -> list[Rule]:
    """The rules that refuse these sizes for this class (notes left out): the form shows no count then."""
    at = {str(s): v for s, v in derive(family, values).items()}
    return [rule for rule in applied(family, architecture) if rule.refuse and not rule.holds(at)]


# ---------------------------------------------------------------------------------------------
# Text beside the form
# ---------------------------------------------------------------------------------------------

def symbol_html(symbol: sympy.Symbol) -> str:
    """A size as HTML, without KaTeX (a message is copied beside a field): ``<var>d</var><sub>h</sub>``."""
    tex = symbols.LATEX_NAMES.get(symbol, str(symbol))
    if m := re.fullmatch(r"([A-Za-z]+)_\{\\mathrm\{(\w+)\}\}", tex):
        return f"<var>{m[1]}</var><sub>{m[2]}</sub>"
    assert re.fullmatch(r"[A-Za-z]+", tex), f"no HTML form for {tex!r}"
    return f"<var>{tex}</var>"


def text_html(text: str) -> str:
    """A rule's words as HTML: ``{D}`` a size, ```code``` code, the rest escaped."""
    by_name = {str(s): s for s in _SIZES}
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\{(\w+)\}", lambda m: symbol_html(by_name[m[1]]), out)


def copies_html(copies: sympy.Expr) -> str:
    """How many copies a row holds, as HTML ("" for one): ``<var>L</var>``, ``<var>G</var> <var>L</var><sub>g</sub>``."""
    if copies == 1:
        return ""
    def term(expr: sympy.Expr) -> str:
        # A difference of sizes (L - L_f: the layers with experts, beside L_f dense ones) in parentheses.
        if expr.is_Add:
            terms = sorted(sympy.Add.make_args(expr), key=lambda t: t.could_extract_minus_sign())
            signed = [("− " + term(-t)) if t.could_extract_minus_sign() else ("+ " + term(t)) for t in terms]
            return "(" + " ".join(signed).removeprefix("+ ") + ")"
        factors = sympy.Mul.make_args(expr)
        assert all(f.is_Symbol or f.is_Integer or f.is_Add for f in factors), f"copies as a product of sizes: {copies}"
        return " ".join(symbol_html(f) if f.is_Symbol else str(f) if f.is_Integer else term(f) for f in factors)

    return term(copies)


def derived_text(family: Family) -> list[str]:
    """What the form derives, in words (HTML)."""
    return [f"{symbol_html(size)} = ⌊{symbol_html(n)} / {symbol_html(d)}⌋, as transformers computes it"
            for size, (n, d) in ratios(family).items()]


# ---------------------------------------------------------------------------------------------
# The checkpoints to start from
# ---------------------------------------------------------------------------------------------

def presets(family: Family) -> dict[str, dict[str, int]]:
    """The sizes (those the calculator asks for) of each bundled checkpoint whose config builds the plain
    layout, the one the calculator counts: Llama 3.2 ties its head and T5 1.1 gates its feed-forward, so
    starting from them would count another model than theirs."""
    asked = {str(s) for s in sizes(family)}
    plain = [name for name in family.checkpoints
             if configs.READERS[family.model_type].layout.of(configs.load(name)) == ""]
    assert plain, f"{family.name}: no checkpoint in the plain layout to start the calculator from"
    return {name: {size: v for size, v in configs.sizes(configs.load(name)).items() if size in asked}
            for name in plain}


def rows(part: Part) -> list[tuple[str, sympy.Expr, sympy.Expr, sympy.Expr]]:
    """One (component name, copies, one copy, all copies) per leaf: the command line's rows, whose last
    column adds up to the part's total."""
    return [(row.name, row.copies, row.leaf.expr, row.expr) for row in part.rows()]


@cache
def forward(family: Family, architecture: str) -> sympy.Expr | None:
    """The forward FLOPs of one sequence of ``s`` tokens (an encoder-decoder's target as long as its source),
    in the sizes the form asks for and ``s``: derivations.flops on the class's tree (a vision tower's on one image's
    tokens, whatever ``s``). None for a class whose FLOPs read a size no config gives (Qwen2.5-VL's images, each its
    own grid of patches), which the command line refuses too."""
    from ..symbols import s, s_d

    expression = sympy.expand(flops.forward(family.architectures[architecture]).subs(s_d, s))
    return None if expression.free_symbols & unsized(family) else expression


@cache
def unsized(family: Family) -> frozenset[sympy.Symbol]:
    """The sizes a family's FLOPs read that none of its checkpoints' configs gives."""
    from ..symbols import s

    given = set().union(*(registry.checkpoint(name).values for name in family.checkpoints))
    read = set().union(*(flops.forward(part).free_symbols for part in family.architectures.values()))
    return frozenset(read - given - {s, symbols.BY_NAME["s_d"]})


def reads_images(family: Family) -> bool:
    """Every class of the family reads an image alone (ViT's): the form computes per image and asks for no length."""
    return family.image_tokens is not None and all(flops.fixed_input(part) for part in family.architectures.values())


@cache
def cache_elements(family: Family, architecture: str) -> sympy.Expr:
    """Elements the class's key/value cache holds after ``s`` tokens, every layer (an encoder-decoder's source as
    long as its target: its cross-attention's too; a cross-attention over a fixed window, Whisper's, that window),
    with full attention in every layer (the form asks for no window): derivations.memory on the class's tree. 0 for a
    class without a cache."""
    from ..symbols import s, s_d

    rows = memory.cache_rows(family.architectures[architecture])
    return sympy.expand(sympy.Add(*(r.per_token * (s if r.source is None else r.source) for r in rows)).subs(s_d, s))


# The data types the form offers: those that store every tensor at one width (derivations.storage.FORMATS; the
# 4-bit formats depend on which tensors they quantize, which the command line's memory gives).
def data_types() -> dict[str, int]:
    return {name: fmt.bits for name, fmt in FORMATS.items() if fmt.block is None}


def count(family: Family, architecture: str, values: Mapping[str, int]) -> dict[str, object]:
    """What the form shows for these sizes (by name), computed in Python from the same parts: the tests'
    expectation, and a check that the generated script and the parts agree."""
    at = derive(family, symbols.valued(values))
    part = family.architectures[architecture]
    shown = {"rows": [(name, evaluate(c, at), evaluate(one, at), evaluate(all_, at))
                      for name, c, one, all_ in rows(part)],
             "total": part.count(at)}
    if architecture in active(family):
        shown["active"] = active(family)[architecture].count(at)
    return shown


# ---------------------------------------------------------------------------------------------
# The generated script
# ---------------------------------------------------------------------------------------------

def _function(expr: sympy.Basic, expand: bool = True) -> str:
    return f"(s) => {javascript(expr, expand)}"


def family_script(name: str, family: Family) -> str:
    # The numbers of copies rows have (1, L, L_d, G L_g), listed once: a row names one by its index.
    multiples = list(dict.fromkeys(c for part in family.architectures.values() for _, c, _, _ in rows(part)))

    def rows_of(part: Part) -> str:
        # All copies: copies * (one), as Row.expr has it; left out for a single copy, where it is the same.
        return ",\n".join(
            f"      [{json.dumps(component)}, {multiples.index(copies)}, {_function(one)}"
            + ("" if copies == 1 else f", {_function(all_, expand=False)}") + "]"
            for component, copies, one, all_ in rows(part))

    classes = ",\n".join(f"    {json.dumps(architecture)}: [\n{rows_of(part)}\n    ]"
                         for architecture, part in family.architectures.items())
    uses_ = {architecture: sorted(str(s) for s in uses(family, architecture)) for architecture in family.architectures}
    derived = ", ".join(f"[{json.dumps(str(size))}, {_function(sympy.floor(n / d))}, {json.dumps([str(n), str(d)])}]"
                        for size, (n, d) in ratios(family).items())
    applied_ = ",\n".join(
        f"    [{json.dumps(rule.field)}, {json.dumps(sorted(rule.sizes))}, "
        f"{_function(condition(rule))}, {json.dumps(rule.refuse)}]" for rule in rules(family))
    actives = ",\n".join(f"    {json.dumps(architecture)}: {_function(part.total)}"
                         for architecture, part in active(family).items())
    forwards = ",\n".join(f"    {json.dumps(architecture)}: "
                           f"{'null' if forward(family, architecture) is None else _function(forward(family, architecture))}"
                           for architecture in family.architectures)
    caches = ",\n".join(f"    {json.dumps(architecture)}: {_function(cache_elements(family, architecture))}"
                         for architecture in family.architectures if cache_elements(family, architecture) != 0)
    return (f"  {json.dumps(name)}: {{\n"
            f"   sizes: {json.dumps([str(s) for s in sizes(family)])},\n"
            f"   minimum: {json.dumps(minimum(family))},\n"
            f"   maximum: {json.dumps(maximum(family))},\n"
            f"   uses: {json.dumps(uses_)},\n"
            f"   copies: [{', '.join(f'[{json.dumps(copies_html(c))}, {_function(c)}]' for c in multiples)}],\n"
            f"   derived: [{derived}],\n"
            f"   rules: [\n{applied_}\n   ],\n"
            f"   presets: {json.dumps(presets(family))},\n"
            f"   active: {{\n{actives}\n   }},\n"
            f"   forward: {{\n{forwards}\n   }},\n"
            f"   cache: {{\n{caches}\n   }},\n"
            f"   classes: {{\n{classes}\n   }}\n  }}")


def script() -> str:
    """The generated file: every family's calculator, as window.DV_CALCULATORS."""
    body = ",\n".join(family_script(name, family) for name, family in registry.families().items())
    return ("// Generated at build time by derivations/site/calculator.py from the SymPy derivations: do not edit.\n"
            "// Each class is a list of [component, index into copies, (sizes) => BigInt count of one copy,\n"
            "// (sizes) => of all copies, unless one]; copies, [the number of copies as HTML, (sizes) => it]; each rule\n"
            "// [field, its sizes, (sizes) => holds, refuses], listed by the form in the same order; active, a\n"
            "// mixture's parameters one token uses; forward, the FLOPs of one forward over s.s tokens; cache, the\n"
            "// elements the key/value cache holds after s.s tokens (classes without one are not listed).\n"
            f"window.DV_CALCULATORS = {{\n{body}\n}};\n")
