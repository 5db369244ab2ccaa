"""The in-page calculator's arithmetic, generated from the derivations as JavaScript with BigInt.

Each family page has a form (``<!-- calculator:FAMILY -->``): one input per size of the notation that its
classes use, a list of checkpoints to prefill them, and a class; the page then shows every component
and the total. The counts are the SymPy expressions of the components, printed by SymPy's JavaScript
code printer with integers as BigInt (``3n * s.D ** 2n``), so they stay exact at any size; the script
that wires the form (docs/js/calculator.js) does no arithmetic of its own but the sum.
"""

from __future__ import annotations

import json
from types import ModuleType

import sympy
from sympy.printing.jscode import JavascriptCodePrinter

from . import configs, symbols
from .components import Part


class BigIntPrinter(JavascriptCodePrinter):
    """A polynomial with integer coefficients as a JavaScript BigInt expression over ``s.<symbol>``."""

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


def javascript(expr: sympy.Expr) -> str:
    """``expr`` as a BigInt expression (0n for a tied tensor)."""
    return BigIntPrinter().doprint(sympy.expand(expr))


def ratios(family: ModuleType) -> dict[sympy.Symbol, tuple[sympy.Symbol, sympy.Symbol]]:
    """Sizes the form derives instead of asking for: size = numerator / denominator, which must divide
    (BERT's head size, D / H)."""
    return getattr(family, "CALCULATOR_RATIOS", {})


def asked(family: ModuleType, *parts: Part) -> set[sympy.Symbol]:
    """The sizes the form asks for to count ``parts``: those they use, a derived one replaced by what it
    is derived from."""
    used = set().union(*(part.total.free_symbols for part in parts))
    for derived, pair in ratios(family).items():
        if derived in used:
            used = (used - {derived}) | set(pair)
    return used


def sizes(family: ModuleType) -> list[sympy.Symbol]:
    """The sizes the form asks for, in the order of the notation (for every class of the family)."""
    used = asked(family, *family.ARCHITECTURES.values())
    return [n.symbol for n in symbols.NOTATION if n.symbol in used]


def rows(part: Part) -> list[tuple[str, str]]:
    """One (component name, BigInt expression) per leaf, copies folded in: the command line's rows."""
    return [(row.name, javascript(row.expr)) for row in part.rows()]


def presets(family: ModuleType) -> dict[str, dict[str, int]]:
    """The sizes (those the calculator asks for) of each bundled checkpoint whose config builds the plain
    layout, the one the calculator counts: Llama 3.2 ties its head and T5 1.1 gates its feed-forward, so
    starting from them would count another model than theirs."""
    asked = {str(s) for s in sizes(family)}
    plain = [name for name in family.CHECKPOINTS
             if configs.READERS[family.MODEL_TYPE].layout.of(configs.load(name)) == ""]
    assert plain, f"{family.__name__}: no checkpoint in the plain layout to start the calculator from"
    return {name: {str(s): v for s, v in configs.checkpoint(name).values.items() if str(s) in asked}
            for name in plain}


def family_script(name: str, family: ModuleType) -> str:
    classes = ",\n".join(
        f"    {json.dumps(architecture)}: [\n" + ",\n".join(
            f"      [{json.dumps(component)}, (s) => {expression}]" for component, expression in rows(part)) + "\n    ]"
        for architecture, part in family.ARCHITECTURES.items())
    derived = ratios(family)
    uses = {architecture: sorted(str(s) for s in asked(family, part)) for architecture, part in family.ARCHITECTURES.items()}
    return (f"  {json.dumps(name)}: {{\n"
            f"   sizes: {json.dumps([str(s) for s in sizes(family)])},\n"
            f"   uses: {json.dumps(uses)},\n"
            f"   ratios: {json.dumps([[str(k), str(n), str(d)] for k, (n, d) in derived.items()])},\n"
            f"   presets: {json.dumps(presets(family))},\n"
            f"   classes: {{\n{classes}\n   }}\n  }}")


def script() -> str:
    """The generated file: every family's calculator, as window.DV_CALCULATORS."""
    body = ",\n".join(family_script(name, module) for name, module in configs.family_modules().items())
    return ("// Generated at build time by derivations/calculator.py from the SymPy derivations: do not edit.\n"
            "// Each class is a list of [component, (sizes) => BigInt count].\n"
            f"window.DV_CALCULATORS = {{\n{body}\n}};\n")
