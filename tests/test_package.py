"""The package as it installs: a wheel holding the bundled configs, whose only requirement is SymPy, and a
``derivations`` command that runs from a fresh virtual environment with nothing else."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import in_process
import pytest

ROOT = Path(__file__).resolve().parents[1]


def benchmark():
    """benchmarks/count_vs_transformers.py, which builds and installs the wheel as this test does."""
    return in_process.script(ROOT / "benchmarks" / "count_vs_transformers.py")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return benchmark().wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_bundled_configs_and_needs_sympy_alone(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    bundled = sorted(p.name for p in (ROOT / "derivations" / "checkpoints").glob("*.json"))
    assert sorted(Path(n).name for n in names if n.startswith("derivations/checkpoints/")) == bundled
    required = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert [r for r in required if "extra ==" not in r] == ["sympy==1.14.0"]
    assert "derivations = derivations.__main__:console" in entry_points


def test_the_installed_command_runs_with_sympy_alone(wheel, tmp_path):
    # pip installs the wheel into a new environment (no network, no dependencies) and writes the command's
    # script; SymPy and the one package it requires are copied in beside it.
    command = benchmark().install(wheel, tmp_path / "venv")
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("derivations "), version.stderr
    counted = subprocess.run([str(command), "count", "bert-base-chinese", "--json"], capture_output=True, text=True,
                             cwd=tmp_path)
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["total"] == 102_290_312  # BertForMaskedLM, as on the command line
