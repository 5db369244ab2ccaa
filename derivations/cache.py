"""Files the command line computes once and reads afterwards, under ``derivations/__pycache__``.

A file is valid for one state of the package's source: every ``.py`` file's path, size and
modification time (what Python itself checks before reusing a ``.pyc``). The stamp of that state names
the file (a CRC of the list, so that a checkout moving between versions keeps each version's files)
and the whole list is kept in the file and compared on reading: a file is as fresh as Python's own
``.pyc`` check makes it (an edit that keeps a file's size within one tick of the clock, or a copy that
restores an old modification time, goes unseen by both). Where ``__pycache__`` is not writable, nothing
is kept and every run computes afresh.

Plain Python, and no hashlib or tempfile until a file is written: the command's start-up is the budget.
"""

from __future__ import annotations

import functools
import json
import os
import zlib

PACKAGE = os.path.dirname(os.path.abspath(__file__))
DIRECTORY = os.path.join(PACKAGE, "__pycache__")


@functools.lru_cache(maxsize=None)
def stamp() -> str:
    """Every source file of the package with its size and modification time, one per line (read once per process)."""
    lines = []
    for folder, subfolders, files in os.walk(PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                status = os.stat(path)
                lines.append(f"{os.path.relpath(path, PACKAGE)} {status.st_size} {status.st_mtime_ns}")
    return "\n".join(lines)


def path(name: str) -> str:
    """Where the file ``name`` of the current source state lives."""
    return os.path.join(DIRECTORY, f"{name}-{zlib.crc32(stamp().encode()):08x}.json")


def read(name: str) -> object | None:
    """The file's data, or None when there is none for the current source state."""
    try:
        with open(path(name), encoding="utf-8") as file:
            kept = json.load(file)
    except (OSError, ValueError):
        return None
    return kept["data"] if isinstance(kept, dict) and kept.get("stamp") == stamp() else None


def write(name: str, data: object) -> None:
    """Keep ``data`` for the current source state (atomically: a concurrent reader sees no file or the whole
    file), and remove the files of ``name`` kept for other states. Nothing happens where nothing can be written."""
    import tempfile

    target = path(name)
    try:
        os.makedirs(DIRECTORY, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=DIRECTORY, suffix=".tmp", delete=False, encoding="utf-8") as out:
            out.write(json.dumps({"stamp": stamp(), "data": data}))  # dumps: the C encoder (dump's is Python's)
        os.replace(out.name, target)
    except OSError:
        return
    for other in os.listdir(DIRECTORY):
        # name-XXXXXXXX.json of another state (a longer name such as name-part-XXXXXXXX.json is not ours)
        if other.startswith(f"{name}-") and len(other) == len(name) + 14 and other != os.path.basename(target):
            try:
                os.unlink(os.path.join(DIRECTORY, other))
            except OSError:  # another process removed it first
                pass
