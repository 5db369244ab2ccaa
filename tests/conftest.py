"""Fixtures shared by the site tests: the site, built once per test session (however many pytest-xdist
workers share it), and served on 127.0.0.1 by each worker that needs it."""

from __future__ import annotations

import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

import site_build

# No deadline for an example: a machine whose cores are busy with something else runs an example many
# times slower than a quiet one, and a test must not fail for it (time goals live in benchmarks/).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# No test goes to the Hugging Face hub: a model id the tests name is read from a cache they lay out
# (tests/test_hub.py), and transformers builds every model from a config. The command lines the tests run
# inherit it.
os.environ["HF_HUB_OFFLINE"] = "1"


def _build_site(shared: Path) -> Path:
    """Build the site into the session's shared folder, under a lock, unless it is built already; the report of the
    build (its status and output)."""
    report = shared / "site-build.json"
    with FileLock(str(shared / "site.lock")):
        if not report.is_file():
            proc = site_build.mkdocs_build(site_build.ROOT / "mkdocs.yml", shared / "site")  # local, as `make site`
            report.write_text(json.dumps({"returncode": proc.returncode, "output": proc.stdout + proc.stderr}))
    return report


def pytest_sessionstart(session: pytest.Session) -> None:
    """On a run of the whole suite (`make test`, CI), the process that starts the session (xdist's controller, which
    only hands out tests) starts building the site at once, beside the workers' collecting: the first test that needs
    the site then waits for less of its build, or none. A run of chosen tests builds it when a test first asks."""
    config = session.config
    if hasattr(config, "workerinput") or config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    if not site_build.KATEX.is_file():
        return  # the fixture says why the site tests cannot run
    shared = config._tmp_path_factory.getbasetemp()  # the folder xdist's workers have theirs inside
    threading.Thread(target=_build_site, args=(shared,), daemon=True).start()


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id: str) -> Path:
    """The site, built strictly, once per session: the first to ask builds it (or the session's start has begun it,
    pytest_sessionstart), under a lock, into the session's shared folder; the others wait for it and read the same
    build (or its failure)."""
    site_build.require_katex()
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # each worker's base folder is inside the session's
    out, report = shared / "site", _build_site(shared)
    built = json.loads(report.read_text())
    assert built["returncode"] == 0, f"mkdocs build --strict failed:\n{built['output']}"
    return out


class _Server(http.server.ThreadingHTTPServer):
    directory: str = ""


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site's folder; the sitemap with this server's address in place of the one the site
    was built for (instant navigation follows only links to its own address)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=args[2].directory, **kwargs)

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/sitemap.xml":
            return super().do_GET()
        here = f"http://127.0.0.1:{self.server.server_address[1]}/"
        body = (Path(self.directory) / "sitemap.xml").read_text(encoding="utf-8").replace(site_build.SITE_URL, here)
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (a port of this worker's own), as a web server gives it."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.directory = os.fspath(site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
