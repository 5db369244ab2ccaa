"""The one place that turns expressions into LaTeX and numbers into text."""

from __future__ import annotations

import re
from fractions import Fraction

import sympy

from .components import Part
from .symbols import LATEX_NAMES


def latex(expr: sympy.Expr) -> str:
    """LaTeX of an expression in the project's notation (d_h printed as d_{\\mathrm{h}}, ...).

    Counts print in SymPy's canonical order, and so does an equation that names a count
    (N_Kaplan = 12 L D^2); an equation of a function (LayerNorm) keeps the order it was written in.
    Integers of five digits or more are grouped by thousands, as in the tables: 44{,}138{,}496."""
    expr = sympy.sympify(expr)
    if isinstance(expr, sympy.Equality) and not _is_count(expr.rhs):
        tex = sympy.latex(expr, symbol_names=LATEX_NAMES, order="none")
    elif isinstance(expr, sympy.Equality):
        tex = f"{latex(expr.lhs)} = {latex(expr.rhs)}"
    else:
        tex = sympy.latex(expr, symbol_names=LATEX_NAMES)
    return re.sub(r"(?<![\w.{])\d{5,}(?![\w.])", lambda m: f"{int(m[0]):,}".replace(",", "{,}"), tex)


def _is_count(expr: sympy.Expr) -> bool:
    """An expression in the sizes of the notation (all integers) rather than in a function's variables."""
    return all(s.is_integer for s in sympy.sympify(expr).free_symbols)


def symbol(part: Part) -> str:
    """The name a part goes by in an equation: its declared symbol, else N with its name."""
    if part.symbol:
        return part.symbol
    return r"N_{\mathrm{" + part.name.replace("_", r"\_") + "}}"


MINUS = "\u2212"  # a minus sign, not a hyphen


def number(value: int) -> str:
    """An exact integer with thousands separators: 102,267,648; negative ones with a minus sign."""
    assert isinstance(value, int) and not isinstance(value, bool), value
    return f"{value:,}".replace("-", MINUS)


def decimal(value: Fraction | int, places: int) -> str:
    """A rounded decimal, for the few places where a unit conversion is shown next to the exact integer."""
    return f"{float(value):,.{places}f}".replace("-", MINUS)


def terms(part: Part) -> str:
    """A part's children as an unevaluated sum, in order: how a source wrote its arithmetic."""
    return " + ".join(latex(c.total) for c in part.children) if part.children else latex(part.total)
