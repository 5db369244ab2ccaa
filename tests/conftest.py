"""Fixtures shared by the site tests: the site, built once per session, and served on 127.0.0.1."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import site_build


class _Server(http.server.ThreadingHTTPServer):
    """Bound at once (the port is the site's from the start), serving ``directory`` once it is set."""

    directory: str = ""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=args[2].directory, **kwargs)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def server() -> Iterator[_Server]:
    """An HTTP server on 127.0.0.1, its port held from before the build (the site is built for it)."""
    instance = _Server(("127.0.0.1", 0), _QuietHandler)
    yield instance
    instance.server_close()


@pytest.fixture(scope="session")
def port(server: _Server) -> int:
    return server.server_address[1]


@pytest.fixture(scope="session")
def site(tmp_path_factory, port: int) -> Path:
    """The site, built strictly, once (every test of the built site reads this one build), for the
    address it is served from: instant navigation follows only the sitemap's links, named by site_url."""
    site_build.require_katex()
    out = tmp_path_factory.mktemp("site")
    proc, seconds = site_build.mkdocs_build(site_build.ROOT / "mkdocs.yml", out,
                                            site_url=f"http://127.0.0.1:{port}/")
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}{proc.stderr}"
    assert seconds < site_build.BUILD_BUDGET_S, f"build took {seconds:.1f} s (budget {site_build.BUILD_BUDGET_S} s)"
    return out


@pytest.fixture(scope="session")
def served(site: Path, server: _Server, port: int) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as `mkdocs serve` would give it."""
    server.directory = str(site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()
