"""How long the test suite takes on every core (as `make test` runs it; `--serial` also on one), its ten slowest
tests, and what one family costs it: the marginal cost the next family will add, known before it lands.

The budget, 3 minutes warm on a 2-core machine for `make test`, is a goal, not a test. "Warm" means the virtual
environment and node_modules installed, and the build caches (``.cache/``) filled by an earlier build or test run;
the first run after a change to the derivations executes the notebooks again.

A family's cost is the CPU time (pytest's report: each test's setup, call and teardown) of the tests that are its
own: those of its files (tests/test_<family>.py, tests/test_reference_<family>.py, its random configs) and the
cases of shared tests parametrized by it (by its name, one of its checkpoints, one of its classes or one of its
pages: the checks of every page run once a page). The rest is the fixed cost: the site's build (a session fixture,
counted in the first test that asks for it), the pages that are no family's, the browser (a page of each kind), the
checks that read the whole site at once. The projection for twice the families adds as many families at the mean
cost, shared by the cores.

It also prints a probe of the machine's speed before and after the run (:func:`probe`): the same code can take a fifth
longer in a slow hour, and the probe tells a slow hour from a slower suite.

Usage: ``python benchmarks/suite.py [--serial] [--ci] [--report FILE]`` (``--ci`` runs as CI does, every random
draw: slower; ``--serial`` also times ``-n 0``: several minutes; ``--report`` keeps pytest's JUnit report of the
run on every core, each test's time in it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 180.0


def run(workers: str, ci: bool, report: Path) -> tuple[float, str]:
    start = time.perf_counter()
    env = {**os.environ, "CI": "true" if ci else ""}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", workers, "--durations=10", "-p", "no:cacheprovider",
                           f"--junitxml={report}"], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"pytest -n {workers} failed:\n{done.stdout[-5000:]}{done.stderr[-2000:]}")
    return seconds, done.stdout


def probe() -> float:
    """How fast the machine is now: the best of three runs of a fixed pure-Python loop, in milliseconds (lower is
    faster). A shared machine's speed varies from hour to hour (by a fifth within one hour on this project's): two
    times of the suite compare only beside their probes."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        sum(i * i for i in range(1_000_000))
        best = min(best, time.perf_counter() - start)
    return best * 1000


def slowest(output: str) -> list[str]:
    block = output.split("slowest 10 durations", 1)[-1]
    return [line.strip() for line in block.splitlines() if re.match(r"\s*\d+\.\d+s ", line)][:10]


def owners() -> tuple[dict[str, str], list[str]]:
    """What names a family in a test's id (its name, its checkpoints, its classes), longest first, and the
    families."""
    sys.path.insert(0, str(ROOT))
    from derivations import registry

    names: dict[str, str] = {}
    for name, family in registry.families().items():
        for token in (name, *family.checkpoints, *family.architectures):
            names.setdefault(token, name)
    return dict(sorted(names.items(), key=lambda item: -len(item[0]))), list(registry.families())


def family_of(classname: str, test: str, tokens: dict[str, str], families: list[str]) -> str | None:
    module = classname.rsplit(".", 1)[-1]
    for prefix in ("test_reference_", "test_"):
        if module.startswith(prefix) and module[len(prefix):] in families:
            return module[len(prefix):]
    if (found := re.fullmatch(r"test_random_configs_(\w+)", test.split("[")[0])) and found[1] in families:
        return found[1]
    if "[" not in test:
        return None
    case = test.split("[", 1)[1].rstrip("]")
    for token, family in tokens.items():  # the longest first: "qwen2-57b-a14b" before "qwen2"
        if re.search(rf"(?:^|[-\[,/]){re.escape(token)}(?:$|[-\],.])", case):  # "notebooks/bert.html" is bert's
            return family
    return None


def costs(report: Path) -> tuple[float, dict[str, float], int]:
    """The fixed cost (seconds), each family's, and the number of tests. A shared test whose cases name fewer than
    half of the families (a page of each kind, a few chosen configs) does not grow with them: its cost is fixed."""
    tokens, families = owners()
    cases = [(case.get("classname", ""), case.get("name", ""), float(case.get("time") or 0))
             for case in ET.parse(report).iter("testcase")]
    owned = [(classname, name, seconds, family_of(classname, name, tokens, families)) for classname, name, seconds in cases]
    named: dict[str, set[str]] = defaultdict(set)  # a shared test function -> the families its cases name
    for classname, name, _, family in owned:
        if family is not None and "[" in name:
            named[f"{classname}::{name.split('[')[0]}"].add(family)
    fixed, per_family = 0.0, defaultdict(float)
    for classname, name, seconds, family in owned:
        grows = "[" not in name or len(named[f"{classname}::{name.split('[')[0]}"]) * 2 >= len(families)
        if family is None or not grows:
            fixed += seconds
        else:
            per_family[family] += seconds
    return fixed, {f: per_family.get(f, 0.0) for f in families}, len(cases)


def main(argv: list[str]) -> int:
    modes = ["auto", "0"] if "--serial" in argv else ["auto"]
    ci = "--ci" in argv
    kept = Path(argv[argv.index("--report") + 1]).resolve() if "--report" in argv else None
    cores = os.cpu_count() or 1
    for workers in modes:
        with tempfile.TemporaryDirectory() as folder:
            report = Path(folder) / "report.xml"
            before = probe()
            seconds, output = run(workers, ci, report)
            after = probe()
            fixed, per_family, tests = costs(report)
            if kept is not None and workers == "auto":
                kept.write_bytes(report.read_bytes())
        summary = [line for line in output.splitlines() if " passed" in line][-1]
        label = f"{cores} cores (-n auto)" if workers == "auto" else "one process (-n 0)"
        draws = "every random draw (CI)" if ci else "make test's random draws"
        print(f"make test on {label}, {draws}: {seconds:.1f} s wall (budget {BUDGET_S:g} s on 2 cores): {summary}")
        print(f"  machine probe (a fixed Python loop, lower is faster): {before:.0f} ms before the run, {after:.0f} ms after")
        print("  ten slowest:")
        for line in slowest(output):
            print(f"    {line}")
        if workers == "auto":
            count = len(per_family)
            mean = sum(per_family.values()) / count
            heaviest = max(per_family, key=per_family.get)
            print(f"  CPU time in tests: {fixed + sum(per_family.values()):.1f} s over {tests} tests; fixed (the site, the "
                  f"pages, the browser, shared checks) {fixed:.1f} s")
            print(f"  one family: {mean:.1f} CPU s on average over {count} families (most: {heaviest} "
                  f"{per_family[heaviest]:.1f} s, least: {min(per_family.values()):.1f} s)")
            # Wall time scales as CPU time does: the run's own ratio of wall to CPU, applied to the added families.
            ratio = seconds / (fixed + sum(per_family.values()))
            doubled = seconds + ratio * count * mean
            print(f"  with twice the families ({2 * count}), at that cost each: about {doubled:.0f} s wall "
                  f"(budget {BUDGET_S:g} s); each further family adds about {ratio * mean:.1f} s wall")
            for family in sorted(per_family, key=per_family.get, reverse=True):
                print(f"    {family:12} {per_family[family]:6.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
