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

Two ways to run the command are timed: ``python -m derivations`` in the project's ``.venv`` (an editable
install among the test and docs packages, whose start-up alone is about 16 ms here), and the ``derivations``
command that ``pip install .`` gives, in a fresh virtual environment holding the package and SymPy alone
(:func:`install`; about 8 ms of start-up). The budget and the ratio are the installed command's: that is
what a practitioner runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINT = "bert-base-chinese"
CONFIG = ROOT / "derivations" / "checkpoints" / f"{CHECKPOINT}.json"
# transformers' own count on the meta device (BertForMaskedLM, bert-base-chinese; also [cite: note-mlm]).
EXPECTED = "102290312"
MIN_RATIO = 100.0
# The command answers a bundled name within this: the goal, with MIN_RATIO, for a practitioner's wait.
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


def compare(repeats: int = 3, command: list[str] = DERIVATION) -> tuple[float, float, float]:
    """(derivation seconds, transformers seconds, ratio transformers / derivation)."""
    derivation = best_time(command, repeats)
    reference = best_time(TRANSFORMERS, repeats)
    return derivation, reference, reference / derivation


def wheel(out: Path) -> Path:
    """The package's wheel, built from a copy of what it is made of (setuptools writes build/ beside the
    sources) as ``pip install .`` builds it, with the setuptools already installed (no download)."""
    source = out / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "derivations", source / "derivations", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True, capture_output=True, text=True)
    [built] = out.glob("derivations-*.whl")
    return built


def install(built: Path, directory: Path) -> Path:
    """A fresh virtual environment in ``directory`` with the wheel installed by pip (its script written; no
    network, no dependencies) and SymPy and the one package it requires copied in: the ``derivations`` command."""
    venv.create(directory, with_pip=False)
    python = directory / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(built)], check=True, capture_output=True, text=True)
    import mpmath
    import sympy

    for module in (sympy, mpmath):
        shutil.copytree(Path(module.__file__).parent, site / module.__name__)
    return directory / "bin" / "derivations"


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 3
    cold = cold_time()
    with tempfile.TemporaryDirectory() as folder:
        installed = [str(install(wheel(Path(folder)), Path(folder) / "venv")), "count", CHECKPOINT, "--json"]
        best_time(installed, 1)  # its first run compiles the family
        command, reference, ratio = compare(repeats, installed)
    development = best_time(DERIVATION, repeats)
    print(f"python -m derivations count {CHECKPOINT} --json, first run (compiles, imports SymPy): {cold:.3f} s")
    print(f"python -m derivations count {CHECKPOINT} --json, in .venv: {development:.3f} s (best of {repeats})")
    print(f"derivations count {CHECKPOINT} --json, installed with pip: {command:.3f} s (best of {repeats})")
    print(f"transformers + torch, meta device, BertForMaskedLM: {reference:.3f} s (best of {repeats})")
    print(f"ratio, installed command: {ratio:.1f}x (goal: at least {MIN_RATIO:g}x, and within {BUDGET * 1000:g} ms)")
    return 0 if ratio >= MIN_RATIO and command <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
