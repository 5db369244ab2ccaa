"""The derivation's CLI counts at least 10x faster than building the model in transformers.

Runs benchmarks/count_vs_transformers.py's timing once per side (a fresh process each, imports
included); the script itself takes best of 3. A ratio measured within one run, with a wide margin, is
the one kind of timing a test may hold: the absolute times are the benchmark's to print.
"""

from __future__ import annotations

from pathlib import Path

import in_process
import reference  # noqa: F401  skips this module without torch/transformers (fails under CI)

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "count_vs_transformers.py"


# The test's margin: the benchmark's goal (bench.MIN_RATIO, 100x) is measured idle, best of N; one run a side
# on a machine busy with the rest of the suite can measure far less (75x idle here on 2026-11-25).
TEST_RATIO = 10.0


def test_derivation_is_ten_times_faster() -> None:
    bench = in_process.script(SCRIPT)
    bench.best_time(bench.DERIVATION, 1)  # not timed: compiles the family if its cache is stale
    derivation, reference_time, ratio = bench.compare(repeats=1)
    assert ratio >= TEST_RATIO, f"derivation {derivation:.3f} s, transformers {reference_time:.3f} s"
