"""MkDocs hook: the version in every page's footer, and a "Cite this" box on every derivation page.

The version, date and title come from CITATION.cff (whose version the tests hold equal to the
package's). A derivation page is the page of a family module of the package (docs/<name>.md for
derivations.families.<name>); its box sits under the at-a-glance box, closed: one line, which a link to
#cite-this opens (docs/js/anchors.js).

Addresses: a build for publishing sets SITE_URL (and REPO_URL, the repository) in its environment; the
entry then carries the page's real address, and a SITE_URL on this machine (localhost, 127.0.0.1) fails
the build, since every citation would lead nowhere. A local build (no SITE_URL: mkdocs.yml then gives
127.0.0.1, which instant navigation needs) writes no absolute address into a page: no canonical link,
and an entry without a URL that says why.
"""

from __future__ import annotations

import datetime
import html
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

import listing  # sibling module: MkDocs puts this folder on sys.path while loading a hook

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG_LINK = "dv-changelog-link"  # in the footer, until each page's own link replaces it
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
CANONICAL = re.compile(r'<link rel="?canonical"? href="?[^">]*"?>\s*')
_citation: dict = {}
_derivation_pages: set[str] = set()
_published: list[bool] = [False]  # is this build for publishing (SITE_URL set)?


def published_address() -> str | None:
    """The address a build for publishing is made for (SITE_URL), None for a local build; a local address
    there is an error."""
    url = os.environ.get("SITE_URL", "").strip()
    if not url:
        return None
    if urlsplit(url).hostname in LOCAL_HOSTS or not urlsplit(url).scheme.startswith("http"):
        raise PluginError(f"SITE_URL={url} is not a public address: a published build needs the site's real "
                          "address (unset SITE_URL for a local build)")
    return url


def on_config(config):
    _published[0] = published_address() is not None
    _citation.clear()
    _citation.update(yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8")))
    _derivation_pages.clear()
    _derivation_pages.update(f"{family['name']}.md" for family in listing.families())
    # Material renders the copyright as HTML, the same on every page: the link is made relative to each
    # page once it is written (on_post_page), so that it leads to the changelog from disk too.
    config.copyright = (f"Version {_citation['version']} ({_citation['date-released']}), "
                        f'<a href="{CHANGELOG_LINK}">changelog</a>')
    return config


def on_post_page(output: str, page, config) -> str:
    if not _published[0]:
        output = CANONICAL.sub("", output, count=1)  # the local address, dead anywhere else
    return output.replace(f'href="{CHANGELOG_LINK}"', f'href="{get_relative_url("changelog.html", page.url)}"')


def on_post_template(output: str, template_name: str, config) -> str:
    # The 404 page is served at any address: its link starts from the site's root.
    root = urlsplit(config.site_url or "/").path.rstrip("/")
    return output.replace(f'href="{CHANGELOG_LINK}"', f'href="{root}/changelog.html"')


def bibtex(page, title_id: str, site_url: str | None, repo_url: str | None, accessed: str) -> str:
    """The entry for ``page``: its address when the build has one (``site_url``), the repository when known."""
    year = str(_citation["date-released"])[:4]
    key = "transformer_parameter_counts_" + re.sub(r"\W+", "_", page.file.src_uri.removesuffix(".md"))
    authors = " and ".join(f"{{{a['name']}}}" if "name" in a else f"{a['family-names']}, {a['given-names']}"
                           for a in _citation["authors"])
    # The version has its own field: the note, where there is one, gives the repository.
    note = f"Repository: \\url{{{repo_url}}}" if repo_url else ""
    lines = [f"  title   = {{{{{_citation['title']}: {page.title}}}}},",
             f"  author  = {{{authors}}},",
             f"  year    = {{{year}}},",
             f"  version = {{{_citation['version']}}},"] + ([f"  note    = {{{note}}},"] if note else [])
    if site_url:
        lines.append(f"  url     = {{{site_url.rstrip('/')}/{page.url}#{title_id}}},")
    lines.append(f"  urldate = {{{accessed}}},")
    return f"@misc{{{key},\n" + "\n".join(lines) + "\n}"


def cite_box(page, title_id: str, config) -> str:
    site_url = config.site_url if _published[0] else None
    repo_url = config.repo_url or None
    # The access date is the reader's: the build writes its own date, the page's script puts today's in.
    accessed = datetime.date.today().isoformat()
    entry = html.escape(bibtex(page, title_id, site_url, repo_url, accessed))
    entry = entry.replace(f"urldate = {{{accessed}}}", f"urldate = {{<span data-dv-today>{accessed}</span>}}")
    where = ("" if site_url else
             " This copy was built locally, without the published site's address, so the entry has no URL: "
             "cite the published page.")
    repository = f' Repository: <a href="{html.escape(repo_url)}">{html.escape(repo_url)}</a>.' if repo_url else ""
    return ('<details class="dv-cite" id="cite-this"><summary>Cite this page</summary>\n'
            f"<p>Version {html.escape(str(_citation['version']))} ({_citation['date-released']}).{repository}{where} "
            "Every heading, displayed formula, table and checkpoint row has a permanent anchor (the ¶ beside it, "
            "or the checkpoint's name): link to the one you cite.</p>\n"
            f'<pre><code class="language-bibtex">{entry}</code></pre>\n</details>\n')


GLANCE_END = re.compile(r'<section class="dv-glance" id="at-a-glance".*?</section>', re.S)


def on_page_content(content: str, page, config, files):
    if page.file.src_uri not in _derivation_pages:
        return content
    # The page's title heading carries a permanent anchor (toc permalink); the entry links to it.
    match = re.search(r'<h1 id="([^"]+)"', content)
    title_id = match[1] if match else ""
    box = cite_box(page, title_id, config)
    glance = GLANCE_END.search(content)
    if glance is None:
        raise PluginError(f"{page.file.src_uri}: no at-a-glance box to put the citation under")
    return content[:glance.end()] + "\n" + box + content[glance.end():]
