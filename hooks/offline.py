"""MkDocs hook: the site as `make site` builds it works from disk (file://) as well as from a server.

Material's offline plugin (mkdocs.yml) does most of it: pages become ``bert.html`` instead of
``bert/index.html`` (a link to a folder opens a folder listing from disk), and the search index is
also written as a script, which a page can load from disk. Two things are left to this hook:

- The plugin adds a polyfill that lets the search worker start from disk, iframe-worker's shim, by its
  address on a CDN. mkdocs.yml names the copy the site ships instead (``extra.polyfills``), and this
  hook copies it from node_modules (installed by ``npm ci`` from package-lock.json, like KaTeX).
- The addresses of 0.3.0 and before (``bert/``, ``notebooks/bert/``) still lead to their pages: each
  gets a small page that sends the reader on, anchor included, so links and citations made to the old
  addresses keep working.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "node_modules" / "iframe-worker" / "shim" / "index.js"
SHIM_URI = "js/iframe-worker-shim.js"  # extra.polyfills in mkdocs.yml names this path
# Marks a page that only sends the reader on (the site tests tell them from the real pages by it).
REDIRECT_MARK = '<meta name="dv-moved" content="true">'


def on_config(config):
    if SHIM_URI not in config.extra.get("polyfills", []):
        raise PluginError(f"mkdocs.yml: extra.polyfills must name {SHIM_URI}, or the offline plugin loads "
                          "its shim from a CDN")
    return config


def on_files(files: Files, config) -> Files:
    if not SHIM.is_file():
        raise PluginError(f"{SHIM} is missing: run `npm ci` (or `make node_modules`)")
    files.append(File.generated(config, SHIM_URI, abs_src_path=str(SHIM)))
    return files


def _redirect(target: str, title: str) -> str:
    link = html.escape(target, quote=True)
    return ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)} (moved)</title>{REDIRECT_MARK}"
            f'<link rel="canonical" href="{link}"><meta http-equiv="refresh" content="0; url={link}">'
            f"<script>location.replace({target!r} + location.hash)</script></head>"
            f'<body><p>This page is now at <a href="{link}">{link}</a>.</p></body></html>\n')


def on_post_build(config) -> None:
    """A page at ``NAME.html`` was at ``NAME/``: leave ``NAME/index.html`` there, sending readers on."""
    site = Path(config.site_dir)
    for page in sorted(site.rglob("*.html")):
        relative = page.relative_to(site).as_posix()
        if page.name in ("index.html", "404.html"):  # the home page, the 404 page, and the pages left here
            continue
        old = site / relative.removesuffix(".html") / "index.html"
        if old.exists():
            continue
        old.parent.mkdir(parents=True, exist_ok=True)
        target = posixpath.relpath(relative, posixpath.dirname(old.relative_to(site).as_posix()))
        old.write_text(_redirect(target, page.stem), encoding="utf-8")
