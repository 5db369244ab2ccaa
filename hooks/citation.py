"""MkDocs hook: the version in every page's footer, and a "Cite this" box on every derivation page.

The version, date and title come from CITATION.cff (whose version the tests hold equal to the
package's); the URL from site_url, which publishing sets to the real address. A derivation page is
the page of a family module of the package (docs/<name>.md for derivations.<name>).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
_citation: dict = {}
_derivation_pages: set[str] = set()


def on_config(config):
    from derivations import configs

    _citation.clear()
    _citation.update(yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8")))
    _derivation_pages.clear()
    _derivation_pages.update(f"{name}.md" for name in configs.family_modules())
    # Material renders the copyright as HTML; the link is absolute, as the footer is on every page.
    changelog = f"{(config.site_url or '/').rstrip('/')}/changelog/"
    config.copyright = (f"Version {_citation['version']} ({_citation['date-released']}), "
                        f'<a href="{html.escape(changelog)}">changelog</a>')
    return config


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
