"""The heaviest pages of the built site: bytes of each HTML file, how long Chromium takes to load the
heaviest one from a local server (every formula is pre-rendered, so "loaded" is "readable"), and what a
first visit to a page fetches, everything it asks for until the network is idle (search not opened).

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


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def first_visits(site: Path, pages: list[str]) -> dict[str, tuple[int, int]] | None:
    """Each page's first visit in a fresh Chromium (no cache): the bytes of every response it asked for until
    the network is idle, and how many, or None without Chromium."""
    try:
        import browser
    except BaseException:  # noqa: BLE001  (as in load_time)
        return None
    server, url = serve(site)
    try:
        with browser.sync_playwright() as playwright:
            chromium = browser.launch(playwright)
            visits = {}
            for page in pages:
                context = chromium.new_context()
                tab = context.new_page()
                finished = []
                tab.on("requestfinished", lambda request: finished.append(request))
                tab.goto(url + page, wait_until="networkidle")
                visits[page] = (sum(request.sizes()["responseBodySize"] for request in finished), len(finished))
                context.close()
            chromium.close()
        return visits
    finally:
        server.shutdown()


def load_time(site: Path, page: str, repeats: int = 3) -> float | None:
    """Best of ``repeats`` seconds to load ``page`` in Chromium (its load event: the page and everything it
    shows, fonts included), or None without Chromium."""
    try:
        import browser
    except BaseException:  # noqa: BLE001  (browser.py skips or fails like a test module when Chromium is missing)
        return None
    server, url = serve(site)
    url += page
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
    visits = first_visits(site, ["index.html", sizes[0][1]])
    for page, (fetched, requests) in (visits or {}).items():
        print(f"first visit of {page}, served: {fetched:,} bytes in {requests} requests (search not opened)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
