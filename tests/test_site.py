"""The docs site: strict build, rendered math, offline by construction, numbers from the package.

Reads the built HTML (no browser): what renders without error but wrong still needs eyes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import Future
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from derivations.site.syntax import SHORTCODE
from site_build import (DOCS, LOCAL_HOSTS, MAX_PAGE_BYTES, RAW_TEX, ROOT, built_page, hook, html_files,
                        mkdocs_build, page_names, page_url, require_katex)

FORMULA_SHORTCODES = {"eq", "math", "sym"}  # each renders exactly one formula; tables may hold many


@cache
def soup(path: Path) -> BeautifulSoup:
    """A built page, parsed once per session (tests read it, and never change it)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@cache
def by_class(path: Path) -> dict[str, list[Tag]]:
    """A built page's elements by each of their classes, in the page's order: one walk of the page for the checks
    that look for a class on every page (a CSS selector walks the whole page each time it is asked)."""
    index: dict[str, list[Tag]] = {}
    for tag in soup(path).find_all(class_=True):
        for name in tag["class"]:
            index.setdefault(name, []).append(tag)
    return index


def of_class(path: Path, *names: str) -> list[Tag]:
    """The elements of ``path`` with any of ``names`` for a class."""
    index = by_class(path)
    return [tag for name in names for tag in index.get(name, ())]


# The checks that read every page run once a page, each case named by its page.
PAGES = page_names()


def test_the_pages_checked_one_by_one_are_the_sites(site):
    assert PAGES == [path.relative_to(site).as_posix() for path in html_files(site)]


def pages_with_shortcodes() -> list[tuple[Path, list[str]]]:
    pages = []
    for md in sorted(DOCS.rglob("*.md")):
        names = [m[1] for m in SHORTCODE.finditer(md.read_text(encoding="utf-8"))]
        if names:
            pages.append((md, names))
    return pages


# -- (a) math is rendered --------------------------------------------------------

def test_docs_use_shortcodes():
    assert pages_with_shortcodes(), "no page in docs/ uses a shortcode"


@pytest.mark.parametrize("md, names", pages_with_shortcodes(),
                         ids=[md.relative_to(DOCS).with_suffix(".html").as_posix() for md, _ in pages_with_shortcodes()])
def test_pages_with_shortcodes_have_katex(site, md, names):
    formulas = len(of_class(built_page(site, md), "katex"))
    # A page of numbers only (num, architectures) has no formula to render.
    expected = sum(k in FORMULA_SHORTCODES for k in names)
    assert formulas >= expected, f"{md.name}: {formulas} .katex elements for {expected} formulas"


@pytest.mark.parametrize("page", PAGES)
def test_formula_wrappers_hold_katex(site, page):
    for el in of_class(site / page, "dv-eq", "dv-math"):
        assert el.find(class_="katex"), f"{page}: formula not rendered: {el}"


def test_no_katex_errors(site):
    for path in html_files(site):
        assert not of_class(path, "katex-error"), f"{path.relative_to(site)}: .katex-error"


# -- (b) nothing left unrendered ------------------------------------------------------

HIDDEN = ("code", "pre", "script", "style")


def visible_text(page: BeautifulSoup) -> str:
    """The page's text outside code, scripts and styles (a walk that skips their subtrees: a page holds thousands
    of strings, and asking each for its ancestors cost a second and a half for the site)."""
    parts: list[str] = []

    def walk(tag) -> None:
        for child in tag.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, Comment):
                    parts.append(child)
            elif child.name not in HIDDEN:
                walk(child)

    walk(page.body or page)
    return " ".join(parts)


@pytest.mark.parametrize("page", PAGES)
def test_no_raw_tex_in_visible_text(site, page):
    text = visible_text(soup(site / page))
    left = [t for t in RAW_TEX if t in text]
    assert not left, f"{page}: raw TeX {left} in visible text"


def test_no_unexpanded_shortcodes(site):
    for path in html_files(site):
        html = path.read_text(encoding="utf-8")
        comments = [c for c in soup(path).find_all(string=lambda s: isinstance(s, Comment))
                    if re.match(r"\s*[A-Za-z]+\s*:", c)]
        assert not comments, f"{path.relative_to(site)}: unexpanded shortcodes {comments}"
        assert not re.search(r"DVSC\d+Z", html), f"{path.relative_to(site)}: shortcode placeholder left"


# -- (c) offline: no resource from another host ----------------------------------------

RESOURCE_ATTRS = ("src", "href", "srcset", "data", "poster", "xlink:href")
CSS_EXTERNAL = re.compile(r"""url\(\s*['"]?\s*(?:https?:)?//|@import""", re.I)


def is_external(url: str) -> bool:
    for candidate in url.split(","):  # srcset lists
        parts = urlsplit(candidate.strip().split(" ")[0])
        if parts.netloc and parts.hostname not in LOCAL_HOSTS:
            return True
    return False


def test_no_external_resources_in_html(site):
    for path in html_files(site):
        page = soup(path)
        for tag in page.find_all(True):
            if tag.name in ("a", "area"):  # links are citations, not requests
                continue
            for attr in RESOURCE_ATTRS:
                value = tag.get(attr)
                if isinstance(value, str) and is_external(value):
                    pytest.fail(f"{path.relative_to(site)}: <{tag.name} {attr}={value!r}>")
            style = tag.get("style") or ""
            assert not CSS_EXTERNAL.search(style), f"{path.relative_to(site)}: external url in style {style!r}"
        for block in page.find_all("style"):
            assert not CSS_EXTERNAL.search(block.get_text()), f"{path.relative_to(site)}: external CSS in <style>"


def test_no_external_resources_in_css(site):
    for path in sorted(site.rglob("*.css")):
        match = CSS_EXTERNAL.search(path.read_text(encoding="utf-8"))
        assert not match, f"{path.relative_to(site)}: {match[0]!r}"


def test_no_mermaid(site):
    # Material's bundle loads mermaid from unpkg, but only on a page with a diagram.
    for path in html_files(site):
        assert not of_class(path, "mermaid", "language-mermaid"), f"{path.relative_to(site)} uses mermaid"


# -- (d) KaTeX's CSS and fonts ship with the site -------------------------------------

def test_katex_css_and_fonts_exist(site):
    css = site / "css" / "katex" / "katex.min.css"
    assert css.is_file()
    fonts = re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text(encoding="utf-8"))
    assert fonts, "katex.min.css references no fonts"
    for font in fonts:
        assert font.endswith(".woff2"), f"katex.min.css asks for {font}, which the site does not ship"
        assert (css.parent / font).is_file(), f"katex.min.css references missing {font}"


def test_every_page_links_katex_css(site):
    for path in html_files(site):
        hrefs = [(site / href.lstrip("/") if href.startswith("/") else path.parent / href).resolve()
                 for href in (link["href"] for link in soup(path).select('link[rel="stylesheet"][href]'))]
        assert (site / "css/katex/katex.min.css").resolve() in hrefs, f"{path.relative_to(site)}"


# -- (e) the numbers on the pages are the package's -----------------------------------

def test_numbers_match_package(site):
    from derivations.site.references import number_text

    seen = 0
    for path in html_files(site):
        # Formulas carry data-ref too (the name they render); numbers are .dv-num.
        for el in (el for el in of_class(path, "dv-num") if el.has_attr("data-ref")):
            seen += 1
            assert el.get_text() == number_text(el["data-ref"]), f"{path.relative_to(site)}: {el}"
    assert seen, "no page shows a number from the package"


# Numbers printed outside the project, as the home page's table must show them (sources in test_bert).
OUTSIDE = {
    "bert.BertModel @ bert-base-uncased": "109,482,240",  # [cite: bert-1225]
    "bert.BertModel @ bert-base-multilingual-cased": "177,853,440",  # [cite: bert-1225]
    "bert.BertForMaskedLM @ bert-base-chinese": "102,290,312",  # [cite: note-mlm]
    "bert.BertModelWithoutPooler @ bert-large-21128-vocab": "324,472,832",  # [cite: note-yiyangiliu]
    "symbols.V @ bert-base-chinese": "21,128",  # its config.json
    "gpt2.GPT2LMHeadModel @ gpt2": "124,439,808",  # [cite: transformers-14960]
    "transformer.MarianMTModel @ transformer-base": "63,082,496",  # [cite: vaswani2017]: the base model, 37,000 tokens
}


def test_home_table_shows_the_published_counts(site):
    page = soup(built_page(site, "index"))
    for ref, text in OUTSIDE.items():
        cell = page.select_one(f'.dv-num[data-ref="{ref}"]')
        assert cell is not None and cell.get_text() == text, ref


def test_formulas_match_package(site):
    from derivations.site.references import formula_text

    seen = 0
    for path in html_files(site):
        for el in (el for el in of_class(path, "dv-eq", "dv-math") if el.has_attr("data-ref")):
            seen += 1
            # A formula is labelled with its TeX (KaTeX's HTML is hidden from screen readers).
            shown = el.select_one('.katex[role="math"]')["aria-label"]
            assert shown.strip() == formula_text(el["data-ref"]), f"{path.relative_to(site)}: {el['data-ref']}"
    assert seen, "no page shows a formula from the package"


# -- (f) errors fail the build ------------------------------------------------------

class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml as MkDocs reads it with no environment: `!ENV [NAME, default]` is the default."""


_ConfigLoader.add_constructor(
    "!ENV", lambda loader, node: loader.construct_sequence(node)[-1] if isinstance(node, yaml.SequenceNode) else None)


def build_single_page(tmp_path: Path, markdown: str) -> subprocess.CompletedProcess:
    """Build the site's own config on a one-page docs dir (without the hook that bundles the package for the config
    page, which this page is not: seconds of each such build)."""
    require_katex()
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)
    config.pop("nav", None)
    config["docs_dir"] = str(tmp_path / "docs")
    config["hooks"] = [str(ROOT / h) for h in config["hooks"] if h != "hooks/pasted.py"]
    config["extra_css"] = [c for c in config["extra_css"] if c.startswith("css/katex/")]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(markdown, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")


def test_unknown_shortcodes_fail_the_build_each_named(tmp_path):
    # An unknown name and an unknown kind: the build fails and names both (one build says every one of a page).
    shortcodes = ["<!-- eq:bert.no_such_thing -->", "<!-- nosuchkind:bert.layer -->"]
    proc = build_single_page(tmp_path, "# Page\n\n" + "\n\n".join(shortcodes) + "\n")
    assert proc.returncode != 0, "build succeeded despite an unknown shortcode"
    assert all(shortcode in proc.stdout + proc.stderr for shortcode in shortcodes), proc.stdout + proc.stderr


def test_unexpanded_shortcode_like_comment_fails_build(tmp_path):
    # The reference on the next line: the shortcode pattern misses it, the leftover check must not.
    proc = build_single_page(tmp_path, "# Page\n\n<!-- eq:\nbert.layer -->\n")
    assert proc.returncode != 0
    assert "unexpanded shortcode" in proc.stdout + proc.stderr


@pytest.fixture()
def katex_render():
    require_katex()
    sys.path.insert(0, str(ROOT / "hooks"))
    try:
        import katex_render
    finally:
        sys.path.remove(str(ROOT / "hooks"))
    yield katex_render
    katex_render.close()


def test_unparsable_tex_raises(katex_render):
    with pytest.raises(katex_render.KatexError, match="parse error"):
        katex_render.render("\\frac{", True)


def test_sympy_style_tex_renders(katex_render):
    # What SymPy's latex() and hand-written derivations emit must pass KaTeX's strict mode.
    tex = (
        r"\begin{aligned} N &= \underbrace{\left(V + P + T\right) H}_{\text{embeddings}} \\"
        r" &+ L \cdot \left(4 H^{2} + \operatorname{LN}{\left(H \right)}\right) \end{aligned}"
    )
    for display in (True, False):
        assert 'class="katex"' in katex_render.render(tex, display)


# -- (g) citing ----------------------------------------------------------------------

def versions() -> dict[str, str]:
    import tomllib

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    changelog = re.search(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)", (DOCS / "changelog.md").read_text(encoding="utf-8"), re.M)
    return {"pyproject": tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"],
            "CITATION.cff": citation["version"], "changelog": changelog[1],
            "dates": str(citation["date-released"]) == changelog[2]}


def test_one_version_everywhere():
    found = versions()
    assert found["dates"], "CITATION.cff's date-released is not the changelog's latest date"
    assert found["pyproject"] == found["CITATION.cff"] == found["changelog"], found


def test_every_page_footer_names_the_version(site):
    version = versions()["pyproject"]
    for path in html_files(site):
        footer = soup(path).select_one(".md-copyright__highlight")
        assert footer is not None and f"Version {version}" in footer.get_text(), path.relative_to(site)


def test_derivation_pages_can_be_cited(site):
    # Near the top (right under the at-a-glance box) and closed, one line on the first screens (a link to it opens
    # it: tests/test_browser.py); the version, the year and an access date.
    # The tests build the site locally, so the entry has no URL: a local address would be dead elsewhere.
    from derivations import registry

    version = versions()["pyproject"]
    for name in registry.families():
        page = soup(built_page(site, name))
        box = page.select_one("details.dv-cite#cite-this")
        assert box is not None and not box.has_attr("open"), f"{name}: no closed cite box"
        assert box.find_previous_sibling() is page.select_one("#at-a-glance"), f"{name}: the cite box is not under the glance"
        entry = box.select_one("code").get_text()
        assert f"version = {{{version}}}" in entry and re.search(r"year\s*=\s*\{\d{4}\}", entry), entry
        assert re.search(r"urldate\s*=\s*\{\d{4}-\d\d-\d\d\}", entry) and "url     =" not in entry, entry


def test_no_page_links_to_the_local_address(site):
    # A local build (no SITE_URL) writes no absolute address of this machine into a page: no canonical link,
    # no citation URL, no footer link. (The sitemap keeps it: instant navigation needs it, and it is no page.)
    for path in html_files(site):
        text = path.read_text(encoding="utf-8")
        for host in LOCAL_HOSTS:
            assert f"//{host}" not in text, f"{path.relative_to(site)} names {host}"


def test_a_published_build_needs_a_public_address(monkeypatch):
    citation = hook("citation")
    for local in ("http://127.0.0.1:8000/", "http://localhost/", "file:///tmp/site/"):
        monkeypatch.setenv("SITE_URL", local)
        with pytest.raises(citation.PluginError, match="not a public address"):
            citation.published_address()
    monkeypatch.setenv("SITE_URL", "https://example.org/counts/")
    assert citation.published_address() == "https://example.org/counts/"
    monkeypatch.delenv("SITE_URL")
    assert citation.published_address() is None


def test_a_published_entry_carries_the_page_address_and_the_repository():
    citation = hook("citation")
    citation.on_config(type("Config", (), {"copyright": ""})())

    class Page:
        title, url = "LLaMA", "llama.html"
        file = type("File", (), {"src_uri": "llama.md"})()

    entry = citation.bibtex(Page(), "llama", "https://example.org/counts/", "https://github.com/o/r", "2026-11-24")
    assert "url     = {https://example.org/counts/llama.html#llama}" in entry, entry
    assert r"note    = {Repository: \url{https://github.com/o/r}}" in entry and "urldate = {2026-11-24}" in entry, entry
    # The version is its own field, said once; the author a group, in braces (BibTeX would read a person's name).
    assert entry.count(versions()["pyproject"]) == 1 and re.search(r"author  = \{\{[^{}]+\}\}", entry), entry


def test_every_displayed_formula_has_a_permanent_anchor(site):
    for path in html_files(site):
        ids = [el.get("id") for el in of_class(path, "dv-eq")]
        assert all(ids) and len(ids) == len(set(ids)), f"{path.relative_to(site)}: formula anchors {ids}"
        for el in of_class(path, "dv-eq"):
            assert el.select_one(f'a.headerlink[href="#{el["id"]}"]'), f"{path.relative_to(site)}: {el['id']}"


# -- (h) pictures ----------------------------------------------------------------------

def test_every_family_page_has_its_picture_with_a_caption_and_its_numbers(site):
    from derivations import registry

    for name in registry.families():
        figure = soup(built_page(site, name)).select_one(f"figure.dv-figure#figure-{name}")
        assert figure is not None, f"no picture {name}"
        assert "build time" in figure.select_one("figcaption").get_text(), name
        assert figure.select_one("details.dv-numbers table") is not None, f"{name}: no numbers beside the picture"
        assert all(bar.get("role") == "img" and "%" in bar.get("aria-label", "") for bar in figure.select(".dv-bar")), name
    figure = soup(built_page(site, "index")).select_one("figure.dv-figure#figure-families")
    svg = figure.select_one("svg")
    assert svg is not None and svg.get("role") == "img" and len(svg.get("aria-label", "")) > 50
    assert figure.select_one("details.dv-numbers table") is not None


def numbers_shown(figure) -> dict[str, list[int]]:
    """A picture's "show the numbers" table: checkpoint -> [total, then one count per kind]."""
    return {row.select_one("td code").get_text(): [int(td.get_text().replace(",", "")) for td in row.select("td")[1:]]
            for row in figure.select("details.dv-numbers tbody tr")}


def test_pictures_show_the_packages_numbers(site):
    # Each bar and the table beside it are the breakdown the package derives; each checkpoint leads to its row.
    from derivations import components, registry
    from derivations.site import breakdown

    for name, module in registry.families().items():
        page = soup(built_page(site, name))
        figure = page.select_one(f"#figure-{name}")
        rows = breakdown.family(module)
        assert numbers_shown(figure) == {r.checkpoint: [r.total] + [r.by_kind[k] for k in components.KINDS]
                                         for r in rows}, name
        for link in figure.select(".dv-bar-label a"):
            assert page.find("tr", id=link["href"].removeprefix("#")), f"{name}: {link['href']} leads to no checkpoint row"
    families = soup(built_page(site, "index")).select_one("#figure-families")
    assert set(numbers_shown(families)) == {r.checkpoint for rows in breakdown.families().values() for r in rows}


def test_the_home_picture_shows_every_family(site):
    # One series a kind of model, its legend entry naming each of its families with a link (the markers once ran
    # out at nine, and the families after them were dropped without a word); every family's points in the text.
    from derivations import registry

    figure = soup(built_page(site, "index")).select_one("#figure-families")
    alt = figure["data-alt"]
    legend = {a["href"]: (a.get_text(), a.find_parent("li").get_text()) for a in figure.select(".dv-legend li a")}
    kinds = {"encoder": "Encoders: ", "encoder-decoder": "Encoder-decoders: ", "decoder": "Decoders: ", "vision": "Vision: "}
    for name, family in registry.families().items():
        title = (DOCS / f"{name}.md").read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
        assert f"{title}: " in alt, title
        assert legend[f"{name}.html"][0] == title and legend[f"{name}.html"][1].startswith(kinds[family.kind]), title


# -- (i) notebooks ---------------------------------------------------------------------

def test_every_family_has_an_executed_notebook_with_typeset_formulas(site):
    import json

    from derivations import registry

    # The navigation lists every family's page and notebook (hooks/families.py fills it from the package), grouped
    # by kind and maker; each page carries its own part of it (navigation.prune): a family's page and notebook their
    # group's, the home page one link a group.
    def nav(page: str) -> list[str]:
        return [a["href"] for a in soup(built_page(site, page)).select("nav.md-nav--primary a.md-nav__link[href]")]

    groups = set(nav("index"))
    families = registry.families()
    for kind, label in (("encoder", "Encoders"), ("encoder-decoder", "Encoder-decoders"), ("decoder", "Decoders")):
        first = next(name for name, family in families.items() if family.kind == kind)
        assert {f"{first}.html", f"notebooks/{first}.html"} <= groups, f"{label}: no link from the home page"
    for name in families:
        # Links within notebooks/ are relative to it.
        assert f"{name}.html" in nav(name) and f"{name}.html" in nav(f"notebooks/{name}"), f"{name}: not in the navigation"
        page = soup(built_page(site, f"notebooks/{name}"))
        outputs = page.select(".jp-OutputArea-output")
        assert outputs, f"{name}: the notebook shows no output (was it executed?)"
        formulas = page.select(".jp-RenderedLatex .dv-eq .katex")
        assert formulas, f"{name}: no typeset formula"
        assert not page.select(".jp-RenderedLatex:not(:has(.katex))"), f"{name}: a LaTeX output left untypeset"
        # The .ipynb is offered, and holds the notebook's cells.
        link = page.select_one("p.dv-download a[download]")
        assert link is not None and link["href"].endswith(f"{name}.ipynb"), name
        notebook = json.loads((site / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
        assert notebook["nbformat"] == 4 and len(notebook["cells"]) > 4, name


def test_every_page_weighs_at_most_200_kb(site):
    # Bytes of the HTML file (1 KB = 1,000 bytes); stylesheets, scripts and fonts are shared files.
    heavy = {path.relative_to(site).as_posix(): size for path in html_files(site)
             if (size := path.stat().st_size) > MAX_PAGE_BYTES}
    assert not heavy, f"pages over {MAX_PAGE_BYTES:,} bytes: {heavy}"


def test_every_internal_link_leads_to_a_file_of_the_site(site):
    # Pages, notebooks (whose links the hook resolves) and downloads alike; a file, not a folder: opened
    # from disk, a link to a folder shows a listing of its files, not the page.
    for path in html_files(site):
        for anchor in soup(path).select("a[href]"):
            href = anchor["href"]
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("#", "mailto:")):
                continue
            if not parts.path:
                target = path
            elif parts.path.startswith("/"):  # the 404 page links from the site's root
                target = (site / parts.path.lstrip("/")).resolve()
            else:
                target = (path.parent / parts.path).resolve()
            assert target.is_file(), f"{path.relative_to(site)}: {href} leads {'to a folder' if target.is_dir() else 'nowhere'}"


def test_a_failing_notebook_fails_the_build(tmp_path):
    # The notebooks are executed ahead, in worker processes (hooks/notebooks.py): an error in one must
    # still stop the build, and say which error, as mkdocs-jupyter's own execution does.
    docs = tmp_path / "docs"
    (docs / "notebooks").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (docs / "notebooks" / "good.py").write_text("# %%\nprint(6 * 7)\n", encoding="utf-8")
    (docs / "notebooks" / "bad.py").write_text("# %%\nraise RuntimeError('deliberately broken cell')\n",
                                               encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: t\n"
        f"docs_dir: {docs}\n"
        f"hooks: [{ROOT / 'hooks' / 'notebooks.py'}]\n"
        "plugins:\n  - mkdocs-jupyter:\n      include: ['notebooks/*.py']\n      execute: true\n"
        "      allow_errors: false\n      include_requirejs: false\n", encoding="utf-8")
    proc = mkdocs_build(config, tmp_path / "site")
    assert proc.returncode != 0
    assert "deliberately broken cell" in proc.stdout + proc.stderr


def test_a_notebook_whose_kernel_died_before_it_started_is_converted_again(tmp_path, monkeypatch):
    # Builds side by side (the suite's) can give two kernels the same port: jupyter_client picks a free one and closes
    # it, and the kernel binds it a moment later. The kernel dies having run nothing (CI saw it once, and the build
    # failed); the hook converts that notebook again. A notebook's own error still fails the build.
    notebooks = hook("notebooks")
    lost, failed = Future(), Future()
    lost.set_exception(RuntimeError(notebooks.KERNEL_LOST))
    failed.set_exception(RuntimeError("deliberately broken cell"))
    monkeypatch.setattr(notebooks, "_CONVERT", lambda path, **arguments: f"<p>{path} converted</p>")
    kept = tmp_path / f"good-{'0' * 20}.html"
    monkeypatch.setattr(notebooks, "_AHEAD", {"good.py": ({"execute": True}, lost, kept),
                                              "bad.py": ({"execute": True}, failed, tmp_path / f"bad-{'0' * 20}.html")})
    assert notebooks._converted_ahead("good.py", execute=True) == "<p>good.py converted</p>"
    assert kept.read_text(encoding="utf-8") == "<p>good.py converted</p>"  # kept for the next build, as any
    with pytest.raises(RuntimeError, match="deliberately broken cell"):
        notebooks._converted_ahead("bad.py", execute=True)


def test_the_sources_page_has_an_anchor_per_source(site):
    from derivations import registry, sources

    registry.families()  # the families' own sources join the table when their modules are imported (declare)
    page = soup(built_page(site, "sources"))
    anchors = {li["id"] for li in page.select("ul.dv-sources li[id]")}
    assert anchors == set(sources.SOURCES)
    # Each citation on a page leads to one of them.
    mistakes = soup(built_page(site, "mistakes"))
    cited = {a["href"].split("#")[1] for a in mistakes.select('a[href^="sources.html#"]')}
    assert cited and cited <= anchors


# -- (k) answer first ------------------------------------------------------------------

def test_every_family_page_opens_with_its_answer(site):
    # Right under the title: the counts the family is known by, where the first goes kind by kind (exact
    # counts, adding up to it), a mixture's convention, and the running example, named once.
    from derivations import components, registry
    from derivations.site import breakdown

    for name, module in registry.families().items():
        page = soup(built_page(site, name))
        glance = page.select_one("article h1").find_next_sibling()
        assert glance is not None and glance.get("id") == "at-a-glance", f"{name}: the page does not open with its answer"
        refs = [el["data-ref"] for el in glance.select(".dv-glance-number .dv-num")]
        assert refs == [f"{name}.{h.name} @ {h.checkpoint}" for h in module.headlines], name
        for headline in module.headlines:
            assert (headline.convention in glance.get_text()) if headline.convention else True, name
        legend = {li.get_text(" ").split()[0]: int(li.select_one(".dv-count").get_text().replace(",", ""))
                  for li in glance.select(".dv-legend li")}
        first = next(h for h in module.headlines if not h.active and not h.label)
        total = int(glance.select_one(".dv-glance-number .dv-num").get_text().replace(",", "")) if first is \
            module.headlines[0] else None
        assert list(legend) == list(components.KINDS), name
        if total is not None:
            assert sum(legend.values()) == total, f"{name}: the kinds do not add up to the count above them"
        built = registry.as_built(module, first.name, first.checkpoint) or module.architectures[first.name]
        assert legend == breakdown.breakdown(built, first.checkpoint).by_kind, name
        example = " ".join(glance.select_one(".dv-glance-example").get_text(" ").split())
        assert f"Running example of this page: {module.example} ." in example, example
        assert module.example in module.checkpoints, name


def test_tables_on_another_checkpoint_than_the_example_say_so(site):
    from derivations import registry

    for name, module in registry.families().items():
        for table in soup(built_page(site, name)).select("article table"):
            header = " ".join(th.get_text(" ") for th in table.select("thead th"))
            if (on := re.search(r"\bon ([\w.-]+)", header)) and on[1] != module.example:
                caption = table.select_one("caption")
                assert caption is not None and on[1] in caption.get_text() and module.example in caption.get_text(), \
                    f"{name}: a table on {on[1]} without a caption that says so"


def test_tables_and_checkpoints_have_permanent_anchors(site):
    # A single number can be cited: every table a shortcode draws has an id and a ¶ link to it; each row of a
    # checkpoint table has the checkpoint's anchor, its name the link to it; no id twice on a page.
    from derivations import registry

    for path in html_files(site):
        page = soup(path)
        ids = [el["id"] for el in page.select("article [id]")]
        assert len(ids) == len(set(ids)), f"{path.relative_to(site)}: {sorted(i for i in ids if ids.count(i) > 1)}"
        for table in page.select("article table[id]"):
            assert table.select_one(f'thead a.headerlink[href="#{table["id"]}"]'), f"{path.relative_to(site)}: {table['id']}"
    for name, module in registry.families().items():
        page = soup(built_page(site, name))
        for checkpoint in module.checkpoints:
            row = page.find("tr", id=f"checkpoint-{checkpoint}")
            assert row is not None and row.select_one(f'a[href="#checkpoint-{checkpoint}"]'), (name, checkpoint)
    home = soup(built_page(site, "index"))
    assert len(home.select("article table[id]")) >= 1 and home.select_one("#figure-families")

# -- (j) common mistakes -------------------------------------------------------------------

def published_miscounts() -> list[tuple[str, object]]:
    from derivations import registry

    return [(f"{name}.{claim.name}", claim) for name, family in registry.families().items()
            for claim in family.miscounts]


def test_the_mistakes_summary_gives_every_miscount_its_exact_count(site):
    from derivations import render

    rows = soup(built_page(site, "mistakes")).select(".dv-mistakes tbody tr")
    assert len(rows) == len(published_miscounts())
    for ref, claim in published_miscounts():
        exact = f"{ref}.correct @ {claim.checkpoint}"
        row = next((r for r in rows if r.select_one(f'.dv-num[data-ref="{exact}"]')), None)
        assert row is not None, f"{ref}: not in the summary"
        assert row.select_one(f'.dv-num[data-ref="{exact}"]').get_text() == render.number(claim.correct.count(claim.values()))
        published = claim.printed or render.number(claim.claim)
        assert published in row.select_one("td a").get_text(), ref


def test_each_mistake_opens_with_its_verdict(site):
    # The summary's link leads to a heading, under which the verdict states the exact count in bold, and the
    # table of differences follows, before the next heading.
    from derivations import render

    summary = soup(built_page(site, "mistakes"))
    for ref, claim in published_miscounts():
        exact = f"{ref}.correct @ {claim.checkpoint}"
        link = summary.select_one(f'.dv-mistakes tr:has(.dv-num[data-ref="{exact}"]) td a')["href"]
        page, anchor = link.split("#")
        heading = soup(site / page).find(id=anchor)
        assert heading is not None and heading.name in ("h2", "h3"), link
        verdict = heading.find_next_sibling()
        assert verdict.name == "p" and "dv-verdict" in verdict.get("class", []), f"{link}: no verdict under it"
        number = verdict.select_one(f'strong .dv-num[data-ref="{exact}"]')
        assert number is not None and number.get_text() == render.number(claim.correct.count(claim.values())), link
        table = verdict.find_next("div", class_="dv-miscount")
        assert table is not None and table.select_one(f'[data-ref^="{ref}."]'), f"{link}: no table of differences"
        assert table.find_previous(["h2", "h3"]) is heading, f"{link}: its table is under another heading"


# The anchors mistakes.html had in 0.4.0, when every entry was on it: links made to them still land on the
# entry, or on its row of the summary (which links to the entry), or on a link to it.
ANCHORS_OF_0_4_0 = [
    "75641856-for-bert-base-chinese", "721-mb", "the-pooler-counted-in-the-encoder",
    "an-output-the-code-above-it-cannot-print", "the-masked-lm-transform-labelled-as-the-pooler",
    "more-attention-heads-more-parameters", "tied-weights-counted-twice",
    "110m-for-every-base-model-and-340m-for-bert-large", "layernorm-with-the-unbiased-standard-deviation",
    "gpt-2s-retracted-counts", "117m-for-gpt-2-small", "the-attention-biases-left-out",
    "85m-non-embedding-counted-as-the-total", "60m-for-the-transformer-base", "pythia-counted-with-its-tokenizers-size",
    "kaplans-n-read-as-chinchillas-n", "llama-the-gated-mlp-counted-with-two-matrices",
    "llama-a-4-bit-model-reports-half-its-weights", "llama-2-70b-grouped-keys-and-values-forgotten",
    "56b-for-mixtral-8x7b", "770m-for-t5-large", "t5s-shared-table-counted-twice", "traps-with-no-published-instance",
    "the-tied-head-counted-twice", "on-the-families-own-pages", "eq-bert-qkv-weights-bert-base-uncased",
    "eq-bert-qkv-weights-if-heads-multiplied-bert-base-uncased", "eq-components-layer-norm-function",
    "eq-components-layer-norm-variant",
]


def test_the_mistakes_page_keeps_its_old_anchors(site):
    page = soup(built_page(site, "mistakes"))
    ids = [el["id"] for el in page.select("[id]")]
    assert len(ids) == len(set(ids)), "an id twice on mistakes.html"
    for anchor in ANCHORS_OF_0_4_0:
        element = page.find(id=anchor)
        assert element is not None, anchor
        onward = element if element.name == "a" else element.find("a", href=re.compile(r"^mistakes-.*#"))
        if element.name in ("h2", "div", "p") and onward is None:
            continue  # the section itself is still here
        assert onward is not None, anchor
        target, fragment = onward["href"].split("#")
        assert soup(site / target).find(id=fragment) is not None, onward["href"]


def test_the_mistakes_pages_keep_room_to_grow(site):
    # Every family's new miscounts land on these pages: they keep 15% of the page limit free, so that an entry
    # never has to wait for a split.
    for path in sorted(site.glob("mistakes*.html")):
        assert path.stat().st_size <= 0.85 * MAX_PAGE_BYTES, f"{path.name}: {path.stat().st_size:,} bytes"


def test_every_page_leads_to_the_previous_and_the_next(site):
    # The footer links the neighbours in the navigation (Material's navigation.footer).
    from derivations import registry

    for name in registry.families():
        footer = soup(built_page(site, name)).select_one("footer")
        assert footer.select_one("a.md-footer__link--prev") and footer.select_one("a.md-footer__link--next"), name

# -- (j) the search index ----------------------------------------------------------------

def words(text: str) -> str:
    return " ".join(text.split())


@cache
def indexed_text(site: Path) -> dict[str, str]:
    """What the search indexes for each page (every section's title and text), as plain text: the
    index of the served site (search_index.json) and of the site from disk (search_index.js) alike."""
    import html
    import json

    served = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    from_disk = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert from_disk.startswith("var __index = ") and json.loads(from_disk.removeprefix("var __index = ")) == served
    pages: dict[str, list[str]] = {}
    for entry in served["docs"]:
        text = html.unescape(re.sub(r"<[^>]+>", "", f"{entry['title']} {entry['text']}"))
        pages.setdefault(entry["location"].split("#")[0], []).append(text)
    return {page: words(" ".join(texts)) for page, texts in pages.items()}


def test_the_search_index_holds_the_notebooks_prose_and_not_their_code(site):
    from derivations import registry

    for name in registry.families():
        url = page_url(f"notebooks/{name}")
        page, index = soup(built_page(site, f"notebooks/{name}")), indexed_text(site)[url]
        page = BeautifulSoup(page.decode(), "html.parser")  # a copy: its formulas are removed below
        for formula in page.select(".jp-MarkdownCell .katex"):  # the index holds no formula
            formula.decompose()
        prose = [words(paragraph.get_text()) for paragraph in page.select(".jp-MarkdownCell p")]
        assert prose and not [text for text in prose if text not in index], f"{url}: prose missing from the index"
        # Every line of code and of output the cells show, but a few words of output that the prose says too.
        lines = {words(line) for cell in page.select(".jp-CodeCell") for line in cell.get_text("\n").splitlines()}
        shown = [line for line in lines if len(line) >= 16 and not any(line in text for text in prose)]
        assert len(shown) > 5, f"{url}: no code found to check"
        assert not [line for line in shown if line in index], f"{url}: code or output in the search index"


def indexed_lines(cell) -> list[str]:
    """A table cell's text as the index reads it, one piece a line (lines broken with <br>): no formula (the index
    holds none)."""
    lines = [""]
    for element in cell.descendants:
        if element.name == "br":
            lines.append("")
        elif isinstance(element, NavigableString) and not isinstance(element, Comment) \
                and not element.find_parent(class_="katex"):
            lines[-1] += element
    return lines


@pytest.mark.parametrize("page", PAGES)
def test_the_search_index_separates_table_cells(site, page):
    # A snippet reads "RMSNorm before attention 8,192", not "RMSNorm before attention8,192": no two
    # neighbouring cells of a row, nor two lines of a cell broken with <br>, run together in the index.
    index = indexed_text(site).get(page)
    if index is None:  # the 404 page
        return
    checked = 0
    for row in soup(site / page).select("article tr"):
        pieces = [words(piece) for cell in row.select("td, th") for piece in indexed_lines(cell)]
        pieces = [piece for piece in pieces if piece]
        for before, after in zip(pieces, pieces[1:]):
            run = before[-12:] + after[:12]
            if len(run) >= 8:  # shorter, as "64" and "8", it may be part of a number ("648")
                checked += 1
                assert run not in index, f"{page}: {before!r} and {after!r} run together"
    # A family's page has tables of its checkpoints: the check found cells to compare there.
    from derivations import registry

    assert checked > 0 or page.removesuffix(".html") not in registry.families(), page


def test_the_search_index_reads_inline_symbols_as_text(site):
    # The formulas are not indexed (their glyphs read as nothing), but a symbol is written out beside it.
    assert "With H query heads of size d_h and biases" in indexed_text(site)["components.html"]


@pytest.mark.parametrize("page", PAGES)
def test_the_search_index_leaves_out_pictures_option_lists_and_anchor_marks(site, page):
    text = indexed_text(site).get(page, "")
    # The ¶ of every permanent link (those of headings, formulas and notebook headings): only the ones
    # the prose writes are left.
    built = soup(site / page)
    article = built.select_one("article")
    marks = sum(link.get_text().count("¶") for link in article.select("a.headerlink, a.anchor-link"))
    assert text.count("¶") == article.get_text().count("¶") - marks, f"{page}: a permanent link's ¶ in the index"
    for svg in built.select("article svg"):
        drawn = words(svg.get_text(" "))
        assert len(drawn) < 40 or drawn[:40] not in text, f"{page}: a picture's text in the index"
    for select in built.select("article select"):
        options = [option.get_text() for option in select.select("option")]
        assert len(options) < 2 or "".join(options[:2]) not in text, f"{page}: a list of options in the index"


def test_every_word_of_the_search_index_can_be_found(site):
    # Material's search worker, run by node on the built index (tests/search_words.cjs, which says why a
    # word can be lost): a search reaches every indexed word, and no word the index does not hold. Should
    # new words trip lunr's trie, a change of the search separator (mkdocs.yml) rearranges the words.
    import json
    import shutil
    import subprocess

    import material

    # The worker the site ships (hooks/search.py fixes lunr's trie in it), as a reader's browser runs it.
    workers = sorted((site / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    assert len(workers) == 1, workers
    shipped = sorted((Path(material.__file__).parent / "templates/assets/javascripts/workers").glob("search.*.min.js"))
    assert [w.name for w in shipped] == [w.name for w in workers], (shipped, workers)
    script, index = Path(__file__).parent / "search_words.cjs", site / "search" / "search_index.json"
    run = subprocess.run([shutil.which("node") or "node", str(script), str(workers[0]), str(index)],
                         capture_output=True, text=True, check=True)
    found = json.loads(run.stdout)
    assert found["words"] > 1000 and not found["phantom"] and not found["lost"], found


def test_the_search_index_makes_each_list_item_and_table_row_a_block(site):
    # Material's snippet is the blocks of a section that hold a match, a block an element at the top of the text it
    # indexes: a list whole (the sources page's, a version's changes) was one block, and a table's text was loose text
    # cut at its code (hooks/search.py). Each item and row is a paragraph instead; the sources are one each.
    import html
    import json

    from derivations import sources

    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    assert not [entry["location"] for entry in docs if re.search(r"<(ul|ol|li)\b", entry["text"])]
    listed = " ".join(entry["text"] for entry in docs if entry["location"].startswith("sources.html"))
    assert all(f"<p><code>{key}</code>: " in listed for key in sources.SOURCES)
    rows = soup(built_page(site, "notation")).select("article table tbody tr")
    notation = next(entry["text"] for entry in docs if entry["location"] == "notation.html")
    assert len(rows) > 10
    for row in rows:  # its symbol (a formula, written out), then its meaning, in a paragraph of its own
        meaning = words(row.select("td")[1].get_text())[:40]
        assert re.search(rf"<p>[^<]{{1,12}} {re.escape(html.escape(meaning, quote=False))}", notation), meaning


def test_the_coverage_page_lists_the_model_types_derived_and_those_not(site):
    # What the package reads, from the package (the command line's list of model_types), each with its family's page;
    # then the model types readers ask about that no family reads (none that one does). Reached from the navigation,
    # and searched.
    from derivations import configs, registry
    from derivations.site.families import NOT_DERIVED

    page = soup(built_page(site, "coverage"))
    rows = [(row.select_one("td code").get_text(), row.select_one("a")["href"]) for row in page.select("article tbody tr")]
    assert rows == [(family.model_type, f"{name}.html") for name, family in registry.families().items()]
    assert {model_type for model_type, _ in rows} == set(configs.READERS)
    listed = [item.select_one("code").get_text() for item in page.select("article li")]
    assert listed == [model_type for model_type in NOT_DERIVED if model_type not in configs.READERS] and listed
    nav = [a["href"] for a in soup(built_page(site, "index")).select("nav.md-nav--primary a.md-nav__link[href]")]
    assert "coverage.html" in nav
    assert all(model_type in indexed_text(site)["coverage.html"] for model_type in listed)
    # Then every other model_type of the pinned transformers, which search finds by name.
    from derivations.site.families import transformers_types

    others = page.select_one("p.dv-model-types").get_text()
    for model_type in transformers_types()[1]:
        if model_type not in configs.READERS and model_type not in NOT_DERIVED:
            assert f" {model_type}," in others or f" {model_type}." in others, model_type
    assert all(name in indexed_text(site)["coverage.html"] for name in ("mamba", "sam", "llava_next", "wav2vec2"))


def test_the_list_of_model_types_is_the_pinned_transformers():
    # derivations/site/model_types.json, which the coverage page lists, is what transformers knows.
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    from derivations.site.families import transformers_types

    assert transformers_types() == (transformers.__version__, sorted(CONFIG_MAPPING_NAMES))


def test_only_the_pages_with_a_calculator_load_its_arithmetic(site):
    # js/calculators.js is the site's heaviest script: a page loads it only to run a calculator.
    for path in html_files(site):
        page = soup(path)
        scripts = [tag["src"] for tag in page.select("script[src]") if tag["src"].endswith("calculators.js")]
        calculators = page.select("form.dv-calculator")
        assert len(scripts) == (1 if calculators else 0), path.relative_to(site)
        if calculators:  # in the content, which instant navigation swaps in with its scripts
            assert page.select_one("article script[src$='calculators.js']"), path.relative_to(site)
            assert (path.parent / scripts[0]).resolve() == (site / "js" / "calculators.js").resolve()


def test_katex_kern_classes_are_styled(site):
    # hooks/minify.py replaces KaTeX's inline kerns by classes: each one must be in site.css with its value, and no
    # kern left inline should be a listed one.
    minify = hook("minify")
    css = (DOCS / "css" / "site.css").read_text(encoding="utf-8")
    for value in minify.KERNS:
        assert f".katex .{minify.kern_class(value)} {{ margin-right: {value[1:]}em; }}" in css, value
    page = (site / "bert.html").read_text(encoding="utf-8")
    assert "k2222" in page and "margin-right:.2222em" not in page

# -- (k) the Python API's page -------------------------------------------------------------

API_FUNCTIONS = ("count", "flop_count", "memory_use")


def docstring_words(markdown: str) -> str:
    """A docstring's Markdown as a page's text reads it: no backticks, a cross-reference as its words."""
    return words(re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", markdown).replace("`", ""))


def test_the_api_page_documents_each_function_from_its_docstring(site):
    # docs/api.md holds mkdocstrings' directives (::: derivations.api.count), not the text: each function is
    # shown with its signature, every parameter with its type, and the words of its docstring, parameter by
    # parameter, as griffe (which mkdocstrings reads them with) parses them.
    import inspect

    from griffe import Docstring, DocstringSectionKind

    from derivations import api

    page = soup(built_page(site, "api"))
    for name in API_FUNCTIONS:
        function = getattr(api, name)
        heading = page.find(id=f"derivations.api.{name}")
        assert heading is not None and heading.name == "h3", name
        signature = words(heading.find_next_sibling("div", class_="doc-signature").get_text())
        body = heading.find_next_sibling("div", class_="doc-contents")
        text = words(body.get_text())
        parameters = inspect.signature(function).parameters
        assert signature.startswith(f"{name}(") and signature.endswith(") -> Result"), signature
        for parameter in parameters.values():
            assert f"{parameter.name}: {parameter.annotation}" in signature, f"{name}: {parameter.name}"
        sections = {s.kind: s.value for s in Docstring(inspect.getdoc(function), parser="google").parse()}
        assert docstring_words(sections[DocstringSectionKind.text]) in text, name
        shown = {item.select_one("b code").get_text(): words(item.get_text())
                 for item in body.select("li.doc-section-item") if item.select_one("b code")}
        assert list(shown) == list(parameters), f"{name}: the page lists {list(shown)}"
        for parameter in sections[DocstringSectionKind.parameters]:
            assert docstring_words(parameter.description) in shown[parameter.name], f"{name}: {parameter.name}"
        for raised in sections[DocstringSectionKind.raises]:
            assert docstring_words(raised.description) in text, f"{name}: what it raises"
        assert body.select_one(".highlight .gp"), f"{name}: no example"  # the >>> of its examples


def test_the_api_page_documents_the_results_and_the_error(site):
    # The results' classes and the error, each with its docstring's summary; Component with its fields. No
    # private member, no source, and no cross-reference left as its Markdown.
    import inspect

    from derivations import api, configs

    page = soup(built_page(site, "api"))
    assert page.find(id="derivations.api") is not None
    for ref, documented in (("derivations.api.Result", api.Result), ("derivations.api.Result.json", api.Result.json),
                            ("derivations.api.Component", api.Component),
                            ("derivations.configs.ConfigError", configs.ConfigError)):
        heading = page.find(id=ref)
        assert heading is not None, ref
        body = words(heading.find_next_sibling("div", class_="doc-contents").get_text())
        assert docstring_words(inspect.getdoc(documented).split("\n\n")[0]) in body, ref
    fields = page.find(id="derivations.api.Component").find_next_sibling("div", class_="doc-contents")
    assert [code.get_text() for code in fields.select("li b code")] == ["name", "expr", "latex", "value"]
    assert not page.select('[id*="._"]'), "a private member on the page"
    assert not page.select(".doc-source, details.quote"), "source code on the page"
    assert "][" not in visible_text(page), "a cross-reference left unresolved"


def test_the_api_page_follows_memory_and_is_searched(site):
    nav = [a["href"] for a in soup(built_page(site, "index")).select("nav.md-nav--primary a.md-nav__link[href]")]
    assert nav.index("api.html") == nav.index("memory.html") + 1, nav
    index = indexed_text(site)["api.html"]
    from derivations import api

    for name in API_FUNCTIONS:
        summary = docstring_words(getattr(api, name).__doc__.split("\n\n")[0])
        assert summary in index, f"{name}: its summary is not in the search index"
