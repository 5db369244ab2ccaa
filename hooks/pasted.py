"""MkDocs hook: what the page for a config of one's own (docs/config.md) runs in the reader's browser.

The page counts a pasted config.json, and runs ``fit``, ``flops`` and ``memory`` on it, with the package's own readers,
compiled derivations and command line
(:mod:`derivations.pasted`), run by Pyodide, CPython compiled to WebAssembly. This hook ships both,
from this machine and nowhere else:

- Pyodide's runtime, from node_modules (``npm ci`` installs the version package-lock.json pins): the
  loader, the interpreter and its standard library, under ``assets/pyodide/``;
- ``assets/derivations.zip``: the package's plain-Python modules (the command line's: no SymPy) and
  every model_type's compiled sections (count, FLOPs, memory: :mod:`derivations.compiled`), so that the
  browser compiles nothing.

The page loads them only when a reader asks for a count: about 13 MB, once (the browser keeps them).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

import build_cache  # sibling module: MkDocs puts this folder on sys.path while loading a hook

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "derivations"
PYODIDE = ROOT / "node_modules" / "pyodide"
# What loadPyodide fetches from its indexURL: the loader, the interpreter, the standard library and the
# lock file of its packages (none of which the page loads).
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
RUNTIME_URI = "assets/pyodide"
BUNDLE_URI = "assets/derivations.zip"
# The modules the command line runs: plain Python, no SymPy (tests/test_pasted.py runs the bundle alone).
# fit reads accelerators (its table of cards) and fits (its search); flops --gpu, roofline.
MODULES = ("__init__", "__main__", "accelerators", "answers", "cache", "compiled", "configs", "fits", "hub",
           "measured", "parallel", "pasted", "quantization", "reading", "roofline", "rules", "storage", "validation",
           "readers/*")


def sources() -> list[Path]:
    return sorted(path for pattern in MODULES for path in PACKAGE.glob(f"{pattern}.py"))


def bundle() -> bytes:
    """The zip the page unpacks: derivations/ (the modules above) and the compiled sections."""
    from derivations import compiled, configs

    sections = {compiled.FILE.format(model_type=model_type, name=name): compiled.section(model_type, name)
                for model_type in configs.READERS for name in compiled.SECTIONS}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        def add(name: str, data: bytes) -> None:
            # A fixed date: the same sources make the same bytes.
            archive.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data,
                             compress_type=zipfile.ZIP_DEFLATED)

        for path in sources():
            add(f"derivations/{path.relative_to(PACKAGE).as_posix()}", path.read_bytes())
        for name, section in sections.items():  # one file a family's section: the page reads only what it counts
            add(name, json.dumps(section, separators=(",", ":")).encode())
    return out.getvalue()


# The bundle of the sources' current state: `mkdocs serve` rebuilds in one process, and a prose edit need not
# zip the package again. The state is read afresh at each build because hooks/shortcodes.py drops the
# derivations modules (cache.stamp's memory among them) when the build starts (on_config).
_bundles: dict[str, bytes] = {}


def current_bundle() -> bytes:
    """The bundle of the sources' current state: kept in this process, and under ``.cache/build/`` for the next one
    (reading every family's compiled sections and zipping them takes seconds of each build), named by a digest of
    the sources' state and of this file."""
    from derivations import cache

    state = cache.stamp()
    if state not in _bundles:
        _bundles.clear()
        path = build_cache.CACHE / f"bundle-{build_cache.digest([Path(__file__)], state)}.zip"
        try:
            _bundles[state] = path.read_bytes()
        except OSError:
            _bundles[state] = bundle()
            _keep(path, _bundles[state])
    return _bundles[state]


def _keep(path: Path, data: bytes) -> None:
    """Write the bundle whole or not at all, and remove the bundles of other states."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".tmp", delete=False) as out:
        out.write(data)
    os.replace(out.name, path)
    for other in path.parent.glob("bundle-*.zip"):
        if other != path:
            other.unlink(missing_ok=True)


def on_files(files: Files, config) -> Files:
    for name in RUNTIME:
        if not (PYODIDE / name).is_file():
            raise PluginError(f"{PYODIDE / name} is missing: run `npm ci` (or `make node_modules`)")
        files.append(File.generated(config, f"{RUNTIME_URI}/{name}", abs_src_path=str(PYODIDE / name)))
    files.append(File.generated(config, BUNDLE_URI, content=current_bundle()))
    return files
