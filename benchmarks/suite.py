"""How long the test suite takes, on every core (as `make test` runs it) and on one, with its ten slowest
tests. The budget, 3 minutes warm on a 2-core machine for `make test`, is a goal, not a test.

"Warm" means the virtual environment and node_modules installed, and the build caches (``.cache/``)
filled by an earlier build or test run; the first run after a change to the derivations executes the
notebooks again.

Usage: ``python benchmarks/suite.py [--serial]`` (``--serial`` also times ``-n 0``: several minutes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 180.0


def run(workers: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", workers, "--durations=10", "-p", "no:cacheprovider"],
                          cwd=ROOT, env={**os.environ, "CI": "true"}, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"pytest -n {workers} failed:\n{done.stdout[-5000:]}{done.stderr[-2000:]}")
    return seconds, done.stdout


def slowest(output: str) -> list[str]:
    block = output.split("slowest 10 durations", 1)[-1]
    return [line.strip() for line in block.splitlines() if re.match(r"\s*\d+\.\d+s ", line)][:10]


def main(argv: list[str]) -> int:
    modes = ["auto", "0"] if "--serial" in argv else ["auto"]
    for workers in modes:
        seconds, output = run(workers)
        summary = [line for line in output.splitlines() if " passed" in line][-1]
        label = f"{os.cpu_count()} cores (-n auto)" if workers == "auto" else "one process (-n 0)"
        print(f"make test on {label}: {seconds:.1f} s wall (budget {BUDGET_S:g} s on 2 cores): {summary}")
        print("  ten slowest:")
        for line in slowest(output):
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
