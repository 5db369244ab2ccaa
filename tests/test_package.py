"""The package as it installs: a wheel holding the bundled configs, whose only requirement is SymPy, and a
``derivations`` command that runs from a fresh virtual environment with nothing else."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the package is made of (setuptools writes build/ beside the sources), as
    # `pip install .` builds it, with the setuptools already installed (no download).
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "derivations", source / "derivations", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True, capture_output=True, text=True)
    [built] = out.glob("derivations-*.whl")
    return built


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
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # pip installs the wheel into the new environment (its own pip, pointed at it: no network, no dependencies),
    # and writes the command's script; SymPy and the one package it requires are copied in beside it.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True, text=True)
    import mpmath
    import sympy

    for module in (sympy, mpmath):
        shutil.copytree(Path(module.__file__).parent, site / module.__name__)
    command = env_dir / "bin" / "derivations"
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("derivations "), version.stderr
    counted = subprocess.run([str(command), "count", "bert-base-chinese", "--json"], capture_output=True, text=True,
                             cwd=tmp_path)
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["total"] == 102_290_312  # BertForMaskedLM, as on the command line
