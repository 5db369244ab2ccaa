"""fit and memory answer at least 5x faster than transformers checks one length, and all three agree.

Runs benchmarks/fit_vs_transformers.py's comparison once a side (a fresh process each, imports included); the
script itself takes best of 3 and asks 10x. A ratio measured within one run, with a wide margin, is the one kind of
timing a test may hold: the absolute times are the benchmark's to print.
"""

from __future__ import annotations

from pathlib import Path

import in_process
import reference  # noqa: F401  skips this module without torch/transformers (fails under CI)

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fit_vs_transformers.py"

# The test's margin: the benchmark's goal (MIN_RATIO, 10x) is measured idle, best of 3; one run a side on a machine
# busy with the rest of the suite measures less (57x for fit, on a machine at a load of 5, on 2026-11-26).
TEST_RATIO = 5.0


def test_fit_and_memory_are_faster_than_transformers_and_agree_with_it() -> None:
    bench = in_process.script(SCRIPT)
    # compare() raises where transformers' weights and cache at fit's answer differ from memory's, or fall outside
    # fit's inference bytes and the card's memory.
    tokens, fit_time, memory_time, reference_time = bench.compare(repeats=1)
    assert tokens > 0
    assert reference_time / fit_time >= TEST_RATIO, f"fit {fit_time:.3f} s, transformers {reference_time:.3f} s"
    assert reference_time / memory_time >= TEST_RATIO, f"memory {memory_time:.3f} s, transformers {reference_time:.3f} s"
