"""The one place that turns expressions into LaTeX and numbers into text."""

from __future__ import annotations

from fractions import Fraction

import sympy

from .components import Part
from .symbols import LATEX_NAMES


def latex(expr: sympy.Expr) -> str:
    """LaTeX of an expression in the project's notation (d_h printed as d_{\\mathrm{h}}, ...).

    Counts print in SymPy's canonical order; an equation (a function, not a count) keeps the order
    it was written in."""
    expr = sympy.sympify(expr)
    order = "none" if isinstance(expr, sympy.Equality) else None
    return sympy.latex(expr, symbol_names=LATEX_NAMES, order=order)


def symbol(part: Part) -> str:
    """The name a part goes by in an equation: its declared symbol, else N with its name."""
    if part.symbol:
        return part.symbol
    return r"N_{\mathrm{" + part.name.replace("_", r"\_") + "}}"


def number(value: int) -> str:
    """An exact integer with thousands separators: 102,267,648."""
    assert isinstance(value, int) and not isinstance(value, bool), value
    return f"{value:,}"


def decimal(value: Fraction | int, places: int) -> str:
    """A rounded decimal, for the few places where a unit conversion is shown next to the exact integer."""
    return f"{float(value):,.{places}f}"


def terms(part: Part) -> str:
    """A part's children as an unevaluated sum, in order: how a source wrote its arithmetic."""
    return " + ".join(latex(c.total) for c in part.children) if part.children else latex(part.total)
