"""What the build computed before and can reuse: results kept under ``.cache/`` between builds.

A rebuild with nothing changed should take seconds, yet expanding the shortcodes evaluates thousands of
SymPy expressions, draws the pictures and typesets every formula. Each kind of result is kept in a
:class:`Memo`: one JSON file whose name carries a digest of everything the results depend on, so a
result is reused only while its inputs are the same bytes, and a change to any of them (a derivation,
a hook, a page title, a pinned version) starts a new file instead of reading a stale one. Only results
are kept: an error is raised again at every build.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "build"


def digest(paths: Iterable[Path], *extra: str) -> str:
    """A digest of the files' names and bytes (each path a file, or a folder taken whole, caches
    excluded), and of ``extra`` strings."""
    h = hashlib.sha256()
    for path in paths:
        if not path.exists():
            h.update(b"missing:" + path.relative_to(ROOT).as_posix().encode() + b"\0")
            continue
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            h.update(file.relative_to(ROOT).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    for item in extra:
        h.update(item.encode() + b"\0")
    return h.hexdigest()[:20]


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a build stopped midway leaves no half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as out:
        out.write(text)
    os.replace(out.name, path)


class Memo:
    """Results by string key, read from and saved to ``.cache/build/NAME-KEY.json``."""

    def __init__(self, name: str, key: str) -> None:
        self.path = CACHE / f"{name}-{key}.json"
        self.name = name
        try:
            self.results: dict[str, object] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.results = {}
        self.changed = False

    def get(self, key: str, compute: Callable[[], object]) -> object:
        if key not in self.results:
            self.results[key] = compute()
            self.changed = True
        return self.results[key]

    def save(self) -> None:
        """Write the results (whole or not at all), with those another build saved under the same key since this
        one read the file (builds run side by side in the tests: the last to save must not drop the others'), and
        remove this memo's files of other keys."""
        if not self.changed:
            return
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = {}
        self.results = saved | self.results
        write_whole(self.path, json.dumps(self.results))
        for old in CACHE.glob(f"{self.name}-*.json"):
            if old != self.path:
                old.unlink(missing_ok=True)
        self.changed = False
