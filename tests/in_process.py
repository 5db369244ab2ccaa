"""Running the project's own code from a test, in this process: the command line (to compare with what it
prints), and a script that is not a module of a package (a benchmark). A helper, not a test module."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path
from types import ModuleType


def derivations(*argv: str) -> tuple[int, str, str]:
    """``derivations ARGV``: its exit status, what it printed on stdout and on stderr."""
    from derivations import __main__ as cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(argv))
    return status, out.getvalue(), err.getvalue()


def printed(*argv: str) -> tuple[int, str]:
    """``derivations ARGV``: its exit status, and what it printed (stdout, or else stderr; no final newline)."""
    status, out, err = derivations(*argv)
    return status, (out or err).rstrip("\n")


def script(path: Path) -> ModuleType:
    """A Python file loaded as a module of its own name (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
