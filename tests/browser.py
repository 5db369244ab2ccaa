"""A real browser for the site tests: Debian's Chromium, driven by Playwright. A helper, not a test module.

Importing this module skips the importing test module when Chromium or Playwright is missing, and fails
it instead under CI (``CI`` set), where .ci/run installs Chromium. Playwright never downloads a browser
here: it launches the system's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import site_build

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
site_build.require(Path(CHROMIUM).is_file(), "Chromium is not installed (Debian: apt-get install chromium)")
try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError as error:
    site_build.require(False, f"playwright is not importable ({error}): install the test extra")

# No background traffic of Chromium's own (updates, sync, field trials): every request a page makes is
# then the page's, and the test can hold each to the site's host.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions"]


def launch(playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)


__all__ = ["Browser", "Page", "launch", "sync_playwright"]
