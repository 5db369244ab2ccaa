"""How fast at best: the roofline's lower bound on the time of a step on an accelerator.

A step that does F FLOPs and must move M bytes through the accelerator's memory takes at least

    max(F / peak, M / bandwidth) seconds

(``peak``: the dense bf16 FLOP/s, ``bandwidth``: bytes a second, as its vendor states them,
:mod:`derivations.accelerators`). Where the vendor states no dense bf16 rate, the bound is M / bandwidth alone:
max(a, b) >= b, so it is still a lower bound (a weaker one), and no FLOP/s figure is made up. A lower bound, never a prediction: no kernel runs at the peak, nothing overlaps
perfectly, and whatever else the step reads (activations, the engine's own work) only adds. Exact: the seconds are
fractions of integers.

Plain Python on integers.
"""

from __future__ import annotations

from fractions import Fraction

# Time units for text, largest first: a figure is shown in the first one it reaches 1 in.
UNITS = (("s", Fraction(1)), ("ms", Fraction(1, 10**3)), ("µs", Fraction(1, 10**6)), ("ns", Fraction(1, 10**9)))


def exact(seconds: Fraction) -> str:
    """A fraction as JSON carries it exactly: "p/q", or "p" for a whole number."""
    return str(seconds)


def text(seconds: Fraction) -> str:
    """Seconds for a person: three significant digits in the largest unit that leaves at least 1 ('4.37 ms',
    '10.0 ms', '188 ms'; beyond 999 s, whole seconds)."""
    for name, size in UNITS:
        if seconds >= size or name == UNITS[-1][0]:
            value = float(seconds / size)
            decimals = 2 if value < 10 else 1 if value < 100 else 0
            return f"{value:,.{decimals}f} {name}"
    raise AssertionError("unreachable")


def bound(flops: int, moved: int, peak: int | None, bandwidth: int) -> dict:
    """The lower bound of a step of ``flops`` FLOPs that moves ``moved`` bytes: each term's seconds (exact, as
    strings), the larger of the two (``lower_bound_seconds``, and as a float), and which one it is (``bound_by``,
    "compute" or "memory"). Where no dense peak is stated (``peak`` None) the bound is the bandwidth's term alone,
    ``compute_seconds`` is None and ``bound_by`` "bandwidth only": which term is the larger is not known."""
    assert flops >= 0 and moved >= 0 and bandwidth > 0 and (peak is None or peak > 0)
    compute = None if peak is None else Fraction(flops, peak)
    memory = Fraction(moved, bandwidth)
    seconds = memory if compute is None else max(compute, memory)
    return {"flops": flops, "bytes": moved,
            "compute_seconds": None if compute is None else exact(compute), "memory_seconds": exact(memory),
            "lower_bound_seconds": exact(seconds), "lower_bound_seconds_float": float(seconds),
            "bound_by": "bandwidth only" if compute is None else "compute" if compute >= memory else "memory"}
