"""How much faster the derivation counts than the reference implementation.

Times, in a fresh interpreter each (imports included: that is what a user waits for), best of N:

- ``python -m derivations count bert-base-chinese --json``
- a script that imports torch and transformers, builds BertForMaskedLM for the same config.json on
  the meta device (no memory, no initialisation) and sums its parameters.

Both must print 102,290,312. Prints both times and the ratio; exits 1 if the command takes longer than
``BUDGET`` seconds or is not at least ``MIN_RATIO`` times faster. The command line evaluates the
derivations compiled to plain polynomials (``derivations/compiled.py``, kept by ``derivations/cache.py``);
the first run after a change to the package compiles them, importing SymPy, so the script also reports
that cold run, which is held to neither.  Usage: ``python benchmarks/count_vs_transformers.py [REPEATS]``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINT = "bert-base-chinese"
CONFIG = ROOT / "derivations" / "checkpoints" / f"{CHECKPOINT}.json"
# transformers' own count on the meta device (BertForMaskedLM, bert-base-chinese; also [cite: note-mlm]).
EXPECTED = "102290312"
MIN_RATIO = 100.0
# The command answers a bundled name within this (issue: where practitioners work).
BUDGET = 0.060

DERIVATION = [sys.executable, "-m", "derivations", "count", CHECKPOINT, "--json"]
# Reads the JSON directly rather than through derivations, so sympy is not imported on this side.
TRANSFORMERS = [sys.executable, "-c", f"""
import json, torch, transformers
config = transformers.AutoConfig.for_model(**json.load(open({str(CONFIG)!r})))
with torch.device("meta"):
    model = transformers.BertForMaskedLM(config)
print(sum(p.numel() for p in model.parameters()))
"""]


def best_time(command: list[str], repeats: int) -> float:
    """Fastest wall-clock time of ``repeats`` runs, each a fresh process; the output must hold EXPECTED."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        # A command that fails fast would look like a fast count: check that it counted.
        if done.returncode != 0 or EXPECTED not in done.stdout:
            raise RuntimeError(f"{command[:4]} exited {done.returncode} without {EXPECTED}:\n"
                               f"{done.stdout[-500:]}{done.stderr[-2000:]}")
    return min(times)  # best of N: the least disturbed by whatever else the machine does


def cold_time() -> float:
    """One run with no compiled cache: what the first ``count`` after installing or editing costs."""
    for kept in (ROOT / "derivations" / "__pycache__").glob("*.json"):  # compiled families, the readers' index
        kept.unlink()
    return best_time(DERIVATION, 1)


def compare(repeats: int = 3) -> tuple[float, float, float]:
    """(derivation seconds, transformers seconds, ratio transformers / derivation)."""
    derivation = best_time(DERIVATION, repeats)
    reference = best_time(TRANSFORMERS, repeats)
    return derivation, reference, reference / derivation


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 3
    cold = cold_time()
    derivation, reference, ratio = compare(repeats)
    print(f"python -m derivations count {CHECKPOINT} --json, first run (compiles, imports SymPy): {cold:.3f} s")
    print(f"python -m derivations count {CHECKPOINT} --json: {derivation:.3f} s (best of {repeats})")
    print(f"transformers + torch, meta device, BertForMaskedLM: {reference:.3f} s (best of {repeats})")
    print(f"ratio: {ratio:.1f}x (required: at least {MIN_RATIO:g}x; the command within {BUDGET * 1000:g} ms)")
    return 0 if ratio >= MIN_RATIO and derivation <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
