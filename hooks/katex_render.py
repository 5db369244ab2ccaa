"""Build-time KaTeX: TeX -> HTML through one long-running node process.

One node process per build (started on first use) keeps the cost at about
1 ms per formula instead of a node start-up per formula; results are cached by
(tex, display). Any KaTeX error raises, so a formula that does not parse fails
the build instead of showing up red on the page.
"""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "hooks" / "katex_render.mjs"
KATEX_DIR = ROOT / "node_modules" / "katex"


class KatexError(ValueError):
    """KaTeX rejected a formula, or the renderer could not run."""


def katex_dist() -> Path:
    """KaTeX's dist/ folder, or a clear error if `npm ci` has not been run."""
    if not (KATEX_DIR / "package.json").is_file():
        raise KatexError(
            f"KaTeX is not installed ({KATEX_DIR} is missing): run `npm ci` "
            "(or `make node_modules`) in the repository root."
        )
    return KATEX_DIR / "dist"


_cache: dict[tuple[str, bool], str] = {}
_proc: subprocess.Popen | None = None


def _start() -> subprocess.Popen:
    katex_dist()  # fail early with the clear message
    node = shutil.which("node")
    if node is None:
        raise KatexError("`node` is not on PATH; it is needed to render formulas with KaTeX.")
    # stderr is inherited: nothing is expected there, and a pipe nobody reads could block node.
    return subprocess.Popen(
        [node, str(SCRIPT)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        bufsize=1,
    )


def render(tex: str, display: bool) -> str:
    """KaTeX HTML (+ MathML) for `tex`; raises KatexError if KaTeX rejects it."""
    global _proc
    key = (tex, bool(display))
    if key in _cache:
        return _cache[key]
    if _proc is None or _proc.poll() is not None:
        _proc = _start()
    try:
        _proc.stdin.write(json.dumps({"tex": tex, "display": bool(display)}) + "\n")
        _proc.stdin.flush()
        line = _proc.stdout.readline()
    except OSError as e:  # broken pipe: node died
        line, cause = "", e
    else:
        cause = None
    if not line:
        close()
        raise KatexError("the KaTeX node process exited unexpectedly (see its output above)") from cause
    reply = json.loads(line)
    if "error" in reply:
        raise KatexError(f"{reply['error']}\n  in TeX: {tex}")
    # The MathML copy (for screen readers) holds the TeX as an annotation: keep it out of the search
    # index, whose result previews would otherwise show raw TeX.
    html = reply["html"].replace('<span class="katex-mathml">', '<span class="katex-mathml" data-search-exclude>')
    _cache[key] = html
    return html


def close() -> None:
    """Stop node (idempotent); the cache survives, so `mkdocs serve` rebuilds stay fast."""
    global _proc
    proc, _proc = _proc, None
    if proc is None:
        return
    try:
        proc.stdin.close()  # EOF ends node's read loop
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
    finally:
        proc.stdout.close()


atexit.register(close)
