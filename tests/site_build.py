"""Building the site for the tests, and reading what was built. A helper, not a test module."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
KATEX = ROOT / "node_modules" / "katex" / "package.json"
BUILD_BUDGET_S = 30.0  # issue 4: the full build, notebooks executed, under 30 s
SHORTCODE = re.compile(r"<!--\s*([a-z]+):(.+?)\s*-->")
# TeX that means a formula was not typeset, were it to show in a page's visible text.
RAW_TEX = ("$$", r"\(", r"\[", r"\frac", r"\left", r"\begin", r"\cdot", "^")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require(available: bool, reason: str) -> None:
    """Skip without a tool the test needs, or fail under CI, where its absence is a broken setup."""
    if available:
        return
    if under_ci():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # also from a helper imported at module level


def require_katex() -> None:
    require(KATEX.is_file(), f"{KATEX.parent} is missing: run `npm ci` (or `make node_modules`)")


def mkdocs_build(config: Path, site_dir: Path, site_url: str | None = None) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"} | ({"SITE_URL": site_url} if site_url else {})
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    return proc, time.perf_counter() - start


def html_files(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def built_page(site: Path, md: Path) -> Path:
    """docs/x.md -> site/x/index.html (use_directory_urls), docs/index.md -> site/index.html."""
    rel = md.relative_to(DOCS).with_suffix("")
    return site / (rel.parent if rel.name == "index" else rel) / "index.html"
