"""How long the site takes to build: cold, again with nothing changed, and under `mkdocs serve` after an
edit of one prose page. Prints what it measured; the budgets are goals, not tests (a busy machine would
fail them for no fault of the site).

- cold: ``mkdocs build --strict`` with the build caches removed (``.cache/``: executed notebooks, expanded
  shortcodes, typeset formulas), as on a fresh clone (budget 30 s);
- warm: the same build again, nothing changed (budget 5 s);
- serve: ``mkdocs serve`` running, one line appended to ``docs/notation.md``: the time until the server
  gives the page with the line (budget 3 s). The file is restored afterwards.

Usage: ``python benchmarks/site_build.py [--skip-cold]`` (from the repository, with ``make .venv
node_modules`` done). Exits 1 if a build fails, not when a budget is missed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = {"cold": 30.0, "warm": 5.0, "serve": 3.0}
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
PAGE = ROOT / "docs" / "notation.md"


def build(site: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"mkdocs build failed:\n{done.stdout}{done.stderr}")
    return seconds


def get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def serve_edit() -> float:
    """Seconds from saving an edit of a prose page to `mkdocs serve` giving the edited page."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--strict", "-a", f"127.0.0.1:{port}"],
                              cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/notation.html"
    original = PAGE.read_text(encoding="utf-8")
    marker = f"benchmark-edit-{time.time_ns()}"
    try:
        deadline = time.monotonic() + 180
        while get(url) is None:  # the first build
            if time.monotonic() > deadline or server.poll() is not None:
                sys.exit("mkdocs serve did not come up")
            time.sleep(0.2)
        time.sleep(2)  # let the file watcher settle
        start = time.perf_counter()
        PAGE.write_text(original + f"\n{marker}\n", encoding="utf-8")
        while marker not in (get(url) or ""):
            if time.perf_counter() - start > 120:
                sys.exit("the edit did not show within 120 s")
            time.sleep(0.05)
        return time.perf_counter() - start
    finally:
        PAGE.write_text(original, encoding="utf-8")
        server.terminate()
        server.wait()


def main(argv: list[str]) -> int:
    measured = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "--skip-cold" not in argv:
            shutil.rmtree(ROOT / ".cache", ignore_errors=True)
            measured["cold"] = build(Path(tmp) / "cold")
        build(Path(tmp) / "prime")  # so that "warm" is a rebuild even with --skip-cold
        measured["warm"] = min(build(Path(tmp) / f"warm{i}") for i in range(3))
    measured["serve"] = serve_edit()
    notes = {"cold": "build caches removed", "warm": "nothing changed, best of 3",
             "serve": "an edit of docs/notation.md until mkdocs serve gives it"}
    for name, seconds in measured.items():
        print(f"{name:5}  {seconds:6.2f} s  (budget {BUDGETS[name]:g} s; {notes[name]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
