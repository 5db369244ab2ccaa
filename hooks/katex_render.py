"""Build-time KaTeX: TeX -> HTML through one long-running node process.

One node process per build (started on first use) keeps the cost at about
1 ms per formula instead of a node start-up per formula; results are kept by
(tex, display) between builds, under a key of KaTeX's version and this renderer's
script (``build_cache.Memo``), so node does not start at all when nothing is new.
Any KaTeX error raises, so a formula that does not parse fails the build instead
of showing up red on the page.
"""

from __future__ import annotations

import atexit
import json
from html import escape as html_escape
import shutil
import subprocess
from pathlib import Path

import build_cache  # sibling module (hooks/ is on sys.path)

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


# How KaTeX's HTML opens, inline and displayed.
KATEX_SPAN = {False: '<span class="katex">', True: '<span class="katex-display"><span class="katex">'}
_memo: build_cache.Memo | None = None
_proc: subprocess.Popen | None = None


def _results() -> build_cache.Memo:
    global _memo
    if _memo is None:
        _memo = build_cache.Memo("katex", build_cache.digest([SCRIPT, KATEX_DIR / "package.json"]))
    return _memo


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
    """KaTeX's HTML for `tex`, labelled with the TeX; raises KatexError if KaTeX rejects it."""
    return _results().get(("display:" if display else "inline:") + tex, lambda: _render(tex, bool(display)))


def _render(tex: str, display: bool) -> str:
    global _proc
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
    # KaTeX hides its HTML from screen readers (aria-hidden): the formula reads as its TeX, the text
    # equivalent ARIA asks of role="math" where there is no MathML (as Wikipedia's formulas do).
    html = reply["html"]
    assert html.startswith(KATEX_SPAN[display]), html[:80]
    label = html_escape(tex, quote=True)
    return html.replace('<span class="katex">', f'<span class="katex" role="math" aria-label="{label}">', 1)


def close() -> None:
    """Keep what was typeset and stop node (idempotent); the results survive, so `mkdocs serve`
    rebuilds stay fast."""
    global _proc
    if _memo is not None:
        _memo.save()
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
