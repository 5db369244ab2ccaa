"""How much of the suite runs: every case in CI (``CI`` set, as .ci/run sets it; CI has 90 minutes), a lighter table in
`make test` (3 minutes on two cores, as the families multiply). The light table runs the same checks on fewer cases:
fewer random draws, fewer classes a checkpoint, a sample of a large grid; what it leaves out, CI runs."""

from __future__ import annotations

import os


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def draws(examples: int) -> int:
    """How many random examples a property test draws: all of them in CI, a sixteenth (at least 2) in `make test`."""
    return examples if under_ci() else max(2, examples // 16)



def cases(every: list, light: list) -> list:
    """The cases a costly reference test runs: every one in CI, the light table's in `make test`."""
    return every if under_ci() else light


def sample(names: list, every: int, phase: int) -> list:
    """Every name in CI; in `make test`, one in ``every``, from the ``phase``-th on. Some of the checks that run a
    model's forward in torch (random configs of the transient peak, the peak under sdpa, the cache, a mixture's
    routings) take the families so, each check its own phase, and their time grows with a fraction of the families, not
    with each. Every family's eager forward (on its example's classes, tests/test_reference_transient.py) and its count
    and nodes against transformers run on every run."""
    return names if under_ci() else names[phase % every::every]


def spread(rows: list, every: int, group=lambda row: row[0]) -> list:
    """Every row in CI; in `make test`, one row in ``every`` of each group (a family, by default a row's first
    field), its first included: each family still meets each check, on fewer of its cases. The choice is fixed (no
    randomness), so that a failure in `make test` reproduces."""
    if under_ci():
        return rows
    seen: dict = {}
    chosen = []
    for row in rows:
        index = seen[group(row)] = seen.get(group(row), -1) + 1
        if index % every == 0:
            chosen.append(row)
    return chosen
