"""Building the site for the tests, and reading what was built. A helper, not a test module."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiles import under_ci

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
KATEX = ROOT / "node_modules" / "katex" / "package.json"
# The address the tests build the site for. The test servers serve it on ports of their own, and give
# the sitemap (which instant navigation follows) with their own address in its place.
SITE_URL = "http://127.0.0.1:8000/"
MAX_PAGE_BYTES = 200_000  # every page of the site, in bytes (200 KB)
# TeX that means a formula was not typeset, were it to show in a page's visible text.
RAW_TEX = ("$$", r"\(", r"\[", r"\frac", r"\left", r"\begin", r"\cdot", "^")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def require(available: bool, reason: str) -> None:
    """Skip without a tool the test needs, or fail under CI, where its absence is a broken setup."""
    if available:
        return
    if under_ci():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # also from a helper imported at module level


def require_katex() -> None:
    require(KATEX.is_file(), f"{KATEX.parent} is missing: run `npm ci` (or `make node_modules`)")


def mkdocs_build(config: Path, site_dir: Path, site_url: str | None = None) -> subprocess.CompletedProcess:
    # A local build unless an address is given: none inherited from the shell that runs the tests.
    env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "REPO_URL")} | {"NO_MKDOCS_2_WARNING": "1"}
    env |= {"SITE_URL": site_url} if site_url else {}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )


def hook(name: str):
    """A module of hooks/, imported by its path as MkDocs imports it."""
    spec = importlib.util.spec_from_file_location(f"hooks_{name}", ROOT / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "hooks"))  # as MkDocs does: a hook imports its siblings
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "hooks"))
    return module


# Pages that only send a reader on from an address of 0.3.0 carry this mark.
REDIRECT_MARK = hook("offline").REDIRECT_MARK


def is_redirect(path: Path) -> bool:
    return REDIRECT_MARK in path.read_text(encoding="utf-8")[:2000]


def html_files(site: Path) -> list[Path]:
    """The site's pages (not the small pages that send a reader on from an old address)."""
    return [path for path in sorted(site.rglob("*.html")) if not is_redirect(path)]


def page_names() -> list[str]:
    """The site's pages as the build names them, known before it runs: docs/x.md is x.html, a notebook
    docs/notebooks/x.py is notebooks/x.html, and MkDocs adds 404.html. A check of every page parametrized by them
    names the page that fails, and what a family adds to the suite's time is its pages' share (benchmarks/suite.py)."""
    sources = [*DOCS.rglob("*.md"), *(DOCS / "notebooks").glob("*.py")]
    return sorted({"404.html", *(path.relative_to(DOCS).with_suffix(".html").as_posix() for path in sources)})


def built_page(site: Path, md: Path | str) -> Path:
    """docs/x.md (or "x") -> site/x.html, docs/index.md -> site/index.html (the offline plugin's layout)."""
    rel = (md.relative_to(DOCS) if isinstance(md, Path) else Path(md)).with_suffix("")
    return site / rel.with_suffix(".html")


def page_url(md: Path | str) -> str:
    """The address of a page relative to the site's root: "bert.html", "notebooks/bert.html", "" for home."""
    path = built_page(Path("/"), md).relative_to("/").as_posix()
    return "" if path == "index.html" else path
