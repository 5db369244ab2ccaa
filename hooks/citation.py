"""MkDocs hook: the version in every page's footer, and a "Cite this" box on every derivation page.

The version, date and title come from CITATION.cff (whose version the tests hold equal to the
package's); the URL from site_url, which publishing sets to the real address. A derivation page is
the page of a family module of the package (docs/<name>.md for derivations.families.<name>).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from mkdocs.utils import get_relative_url

import families  # sibling module: MkDocs puts this folder on sys.path while loading a hook

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG_LINK = "dv-changelog-link"  # in the footer, until each page's own link replaces it
_citation: dict = {}
_derivation_pages: set[str] = set()


def on_config(config):
    _citation.clear()
    _citation.update(yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8")))
    _derivation_pages.clear()
    _derivation_pages.update(f"{family['name']}.md" for family in families.families())
    # Material renders the copyright as HTML, the same on every page: the link is made relative to each
    # page once it is written (on_post_page), so that it leads to the changelog from disk too.
    config.copyright = (f"Version {_citation['version']} ({_citation['date-released']}), "
                        f'<a href="{CHANGELOG_LINK}">changelog</a>')
    return config


def on_post_page(output: str, page, config) -> str:
    return output.replace(f'href="{CHANGELOG_LINK}"', f'href="{get_relative_url("changelog.html", page.url)}"')


def on_post_template(output: str, template_name: str, config) -> str:
    # The 404 page is served at any address: its link starts from the site's root.
    root = urlsplit(config.site_url or "/").path.rstrip("/")
    return output.replace(f'href="{CHANGELOG_LINK}"', f'href="{root}/changelog.html"')


def bibtex(page, title_id: str, site_url: str) -> str:
    year = str(_citation["date-released"])[:4]
    key = "transformer_parameter_counts_" + re.sub(r"\W+", "_", page.file.src_uri.removesuffix(".md"))
    url = f"{site_url.rstrip('/')}/{page.url}#{title_id}"
    authors = " and ".join(f"{{{a['name']}}}" if "name" in a else f"{a['family-names']}, {a['given-names']}"
                           for a in _citation["authors"])
    return (f"@misc{{{key},\n"
            f"  title   = {{{{{_citation['title']}: {page.title}}}}},\n"
            f"  author  = {{{authors}}},\n"
            f"  year    = {{{year}}},\n"
            f"  version = {{{_citation['version']}}},\n"
            f"  note    = {{Version {_citation['version']}}},\n"
            f"  url     = {{{url}}},\n"
            f"}}")


def on_page_content(content: str, page, config, files):
    if page.file.src_uri not in _derivation_pages:
        return content
    # The page's title heading carries a permanent anchor (toc permalink); the entry links to it.
    match = re.search(r'<h1 id="([^"]+)"', content)
    title_id = match[1] if match else ""
    entry = html.escape(bibtex(page, title_id, config.site_url or ""))
    return content + (
        '\n<details class="dv-cite" id="cite-this"><summary>Cite this page</summary>\n'
        f"<p>Version {html.escape(str(_citation['version']))}. Every heading and every displayed formula has a "
        "permanent anchor (the ¶ beside it): link to the one you cite.</p>\n"
        f'<pre><code class="language-bibtex">{entry}</code></pre>\n</details>\n')
