"""The heaviest pages of the built site: bytes of each HTML file, and how long Chromium takes to load the
heaviest one from a local server (every formula is pre-rendered, so "loaded" is "readable").

The limit on bytes (200 KB, 1 KB = 1,000 bytes) is a test (``tests/test_site.py``): a size does not depend
on how busy the machine is. The load time is a goal only, printed here.

Usage: ``python benchmarks/page_weight.py [SITE_DIR]`` (default ``site/``, as ``make site`` builds it).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import site_build  # noqa: E402  (the tests' own reading of the built site)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


def load_time(site: Path, page: str, repeats: int = 3) -> float | None:
    """Best of ``repeats`` seconds to load ``page`` in Chromium (its load event: the page and everything it
    shows, fonts included), or None without Chromium."""
    try:
        import browser
    except BaseException:  # noqa: BLE001  (browser.py skips or fails like a test module when Chromium is missing)
        return None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/{page}"
    try:
        with browser.sync_playwright() as playwright:
            chromium = browser.launch(playwright)
            times = []
            for _ in range(repeats):
                context = chromium.new_context()
                tab = context.new_page()
                start = time.perf_counter()
                tab.goto(url, wait_until="load")
                times.append(time.perf_counter() - start)
                context.close()
            chromium.close()
        return min(times)
    finally:
        server.shutdown()


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else ROOT / "site"
    if not (site / "index.html").is_file():
        sys.exit(f"no built site in {site}: run `make site` first")
    sizes = sorted(((p.stat().st_size, p.relative_to(site).as_posix()) for p in site_build.html_files(site)),
                   reverse=True)
    print(f"{len(sizes)} pages; the ten heaviest (limit {site_build.MAX_PAGE_BYTES:,} bytes):")
    for size, name in sizes[:10]:
        print(f"  {size:>9,} bytes  {name}")
    seconds = load_time(site, sizes[0][1])
    if seconds is None:
        print("load time: not measured (no Chromium or Playwright)")
    else:
        print(f"load time of {sizes[0][1]} in Chromium, served from 127.0.0.1: {seconds:.2f} s (best of 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
