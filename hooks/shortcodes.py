"""MkDocs hook: expand `<!-- NAME:REFERENCE -->` shortcodes from the `derivations` package.

A page names an expression (`<!-- eq:bert.layer -->`, `<!-- num:bert.BertModel @ bert-base-chinese -->`;
the pattern is `derivations.site.syntax.SHORTCODE`); `derivations.site.shortcodes.expand(name, text, tex)`, the
one table of shortcodes, turns it into HTML, with `tex` rendering TeX through KaTeX at build time. An unknown shortcode or
reference, or TeX that KaTeX rejects, fails the build with the page and the shortcode in the message.

KaTeX HTML is full of `_`, `*` and `\\`, which Python-Markdown would mangle, so the
expansion is two-step: `on_page_markdown` swaps each shortcode for an alphanumeric
placeholder that Markdown leaves alone, and `on_page_content` swaps the HTML back in.

An expansion depends on its shortcode and on nothing but the files ``_inputs`` names: it is kept
between builds (``build_cache.Memo``), so a rebuild with none of them changed evaluates no derivation,
draws no picture and typesets nothing.

The hook also ships KaTeX's CSS and woff2 fonts with the site (from node_modules, never
committed) and the calculators' arithmetic (``js/calculators.js``), which only a page with a calculator
loads, and stops the node renderer when the build ends.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url

import build_cache  # sibling modules: MkDocs puts this folder on sys.path while loading a hook
import katex_render
import listing
from derivations.site.syntax import (SHORTCODE, SHORTCODE_LIKE, anchored, anchored_table, element_end,
                                     formula_anchor, table_anchor)
# Fixed width + terminator: no placeholder is a prefix of another.
PLACEHOLDER = re.compile(r"DVSC\d{6}Z")
BLOCK_HTML = re.compile(r"\s*<(?:div|table|figure|p|ul|ol|dl|pre|blockquote|section|details|h[1-6])\b")
ELEMENT_ID = re.compile(r"""\sid=["']([^"']+)["']""")

KATEX_CSS = "css/katex/katex.min.css"  # site path; listed in mkdocs.yml extra_css
CALCULATORS_JS = "js/calculators.js"  # site path; a page with a calculator loads it (on_page_content)
CALCULATOR_FORM = '<form class="dv-calculator"'  # derivations/site/expanders.py writes each calculator so

_expanded: dict[str, tuple[str, str]] = {}  # placeholder -> (shortcode, html)
_anchors: dict[str, int] = {}  # formula anchor -> times used on the page being built
_counter = 0
_memo: build_cache.Memo | None = None


def _fail(page, message: str) -> PluginError:
    return PluginError(f"{page.file.src_uri}: {message}")


# -- configuration ----------------------------------------------------------------

def _inputs() -> str:
    """What an expansion can depend on: the package, the hooks (the pictures are drawn there, the
    formulas typeset), the pinned versions, the pages' titles (the home picture names families by them),
    and where each miscount's entry is."""
    docs = katex_render.ROOT / "docs"
    titles = [md.read_text(encoding="utf-8").split("\n", 1)[0] for md in sorted(docs.glob("*.md"))]
    root = katex_render.ROOT
    # Where each miscount's entry is: the mistakes page's summary links to it.
    miscounts = [f"{ref}@{entry.href}" for ref, entry in listing.entries().items()]
    return build_cache.digest([root / "derivations", root / "hooks", root / "constraints.txt",
                               root / "package-lock.json"], *titles, *miscounts)


def on_config(config):
    global _memo
    # Drop cached derivations modules so `mkdocs serve` picks up edits on rebuild; they are imported
    # again at the first expansion the memo does not hold (a rebuild with none may not import SymPy).
    for name in [n for n in sys.modules if n == "derivations" or n.startswith("derivations.")]:
        del sys.modules[name]
    _memo = build_cache.Memo("shortcodes", _inputs())
    _expanded.clear()
    return config


def _expand(name: str, text: str) -> str:
    from derivations.site.shortcodes import expand  # imported afresh at each build (on_config drops it)

    return expand(name, text, katex_render.render)


def _calculators() -> str:
    from derivations.site.calculator import script

    return script()


def on_serve(server, config, builder):
    server.watch(str(katex_render.ROOT / "derivations"))
    return server


def on_files(files: Files, config) -> Files:
    # Generated files rather than a copy in on_post_build: MkDocs then knows them,
    # so `mkdocs serve` and `--dirty` ship them too.
    try:
        dist = katex_render.katex_dist()
    except katex_render.KatexError as e:
        raise PluginError(str(e)) from None
    css = (dist / "katex.min.css").read_text(encoding="utf-8")
    # Every browser this site targets reads woff2: keep only those sources, so the CSS
    # never asks for a .woff/.ttf that the site does not ship.
    css = re.sub(r',\s*url\([^)]*\.(?:woff|ttf)\)\s*format\("[a-z]+"\)', "", css)
    fonts = re.findall(r"url\(([^)]+)\)", css)
    if not fonts or any(not f.endswith(".woff2") for f in fonts):
        raise PluginError(f"unexpected font sources in KaTeX's katex.min.css: {sorted(set(fonts))}")
    files.append(File.generated(config, KATEX_CSS, content=css))
    # The calculators' arithmetic, generated from the derivations.
    script = _memo.get(CALCULATORS_JS, _calculators)
    files.append(File.generated(config, CALCULATORS_JS, content=script))
    css_dir = Path(KATEX_CSS).parent
    for font in sorted(set(fonts)):
        src = dist / font
        if not src.is_file():
            raise PluginError(f"KaTeX font {src} is missing: re-run `npm ci`")
        files.append(File.generated(config, (css_dir / font).as_posix(), abs_src_path=str(src)))
    return files


# -- pages ------------------------------------------------------------------------

def _unique(base: str) -> str:
    """An anchor not yet used on the page: ``base``, then ``base-2``, ``base-3``..."""
    _anchors[base] = _anchors.get(base, 0) + 1
    return base if _anchors[base] == 1 else f"{base}-{_anchors[base]}"


def _unique_ids(html: str) -> str:
    """The ids an expansion brings (a checkpoint table's rows), each made unique on the page: a page that
    shows a table twice keeps the first one's anchors."""
    return ELEMENT_ID.sub(lambda m: f' id="{_unique(m[1])}"', html)


CHECKPOINT = re.compile(r"@\s*([\w.-]+)")


def _caption(text: str, example: str | None) -> str:
    """A table evaluated on another checkpoint than its family page's running example says so."""
    match = CHECKPOINT.search(text)
    if example is None or match is None or match[1] == example:
        return ""
    return f"On <code>{match[1]}</code>, not this page's running example, <code>{example}</code>."


def _anchored(name: str, text: str, html: str, example: str | None) -> str:
    """A displayed formula or a table with a permanent anchor: an id from its shortcode (unique on the page)
    and a ¶ link to it, as headings have."""
    if name == "eq":
        return anchored(html, _unique(formula_anchor(text)))
    if html.startswith("<table>"):
        return anchored_table(_unique_ids(html), _unique(table_anchor(name, text)), _caption(text, example))
    return html


def on_page_markdown(markdown: str, page, config, files):
    _expanded.clear()  # pages are built one at a time: markdown, then content
    _anchors.clear()
    example = listing.example(page.file.src_uri)
    failed: list[str] = []  # every shortcode of the page that cannot be expanded, said at once

    def expand(match: re.Match) -> str:
        global _counter
        name, text, shortcode = match[1], match[2].strip(), match[0]
        try:
            html = _memo.get(f"{name}:{text}", lambda: _expand(name, text))
        except (LookupError, katex_render.KatexError) as e:
            failed.append(f"cannot expand {shortcode}: {e}")
            return shortcode
        except Exception as e:  # a bug: keep the traceback, add where it happened
            e.add_note(f"while expanding {shortcode} in {page.file.src_uri}")
            raise
        html = _anchored(name, text, html, example)
        _counter += 1
        token = f"DVSC{_counter:06d}Z"
        _expanded[token] = (shortcode, html)
        return token

    markdown = SHORTCODE.sub(expand, markdown)
    if failed:
        raise _fail(page, "; ".join(failed))
    return markdown


def on_page_content(html: str, page, config, files):
    for item in _walk_toc(page.toc):
        if m := PLACEHOLDER.search(item.title):
            shortcode = _expanded[m[0]][0] if m[0] in _expanded else m[0]
            raise _fail(page, f"shortcodes are not supported in headings: {shortcode}")
    for token, (shortcode, result) in _expanded.items():
        if html.count(token) != 1:  # e.g. swallowed by a construct that drops text
            raise _fail(page, f"{shortcode} was lost or duplicated by the Markdown conversion")
        html = _substitute(html, token, result, lambda msg: _fail(page, f"{shortcode} {msg}"))
        # MkDocs validates links to anchors after all pages are built: register the ids
        # the expansion brings (e.g. equation anchors) so links to them validate.
        if page.present_anchor_ids is not None:
            page.present_anchor_ids.update(ELEMENT_ID.findall(result))
    _expanded.clear()

    if CALCULATOR_FORM in html:
        # The arithmetic, the site's heaviest script, for the pages that use it alone: a script in the content,
        # which runs before js/calculator.js on a page's load, and which Material runs again when instant
        # navigation brings the page (js/calculator.js then waits for it).
        html += f'<script src="{get_relative_url(CALCULATORS_JS, page.url)}"></script>'

    if m := PLACEHOLDER.search(html):
        raise _fail(page, f"unknown placeholder {m[0]} left in the page")
    if m := SHORTCODE_LIKE.search(html):
        end = html.find("-->", m.start())
        raise _fail(page, f"unexpanded shortcode {html[m.start(): end + 3 if end >= 0 else m.end() + 40]}")
    return html


def _substitute(html: str, token: str, result: str, fail) -> str:
    if not BLOCK_HTML.match(result):
        # Punctuation right after an inline formula stays with it: KaTeX's inline-block boxes would
        # otherwise let a line break fall between the formula and its full stop.
        # Only a formula or a single word: a longer text (a list of links) kept on one line would widen the page.
        one_piece = "katex" in result or not re.search(r"\s", re.sub(r"<[^>]+>", "", result))

        def inline(match: re.Match) -> str:
            return f'<span class="dv-nowrap">{result}{match[1]}</span>' if match[1] and one_piece else result + match[1]

        return re.sub(re.escape(token) + r"([.,;:!?)]*)", inline, html)
    # Markdown wraps a shortcode standing alone in <p>; a block result replaces that <p>.
    alone = f"<p>{token}</p>"
    if alone in html:
        return html.replace(alone, result)
    before = html[: html.index(token)]
    opened = [m.start() for m in re.finditer(r"<p[\s>]", before)]
    if opened and opened[-1] > before.rfind("</p>"):
        raise fail("expands to a block: put it in a paragraph of its own")
    return html.replace(token, result)


def _walk_toc(items):
    for item in items:
        yield item
        yield from _walk_toc(item.children)


# -- formulas out of the search plugin's way --------------------------------------------

# The search plugin parses every page's HTML in Python, tag by tag, and KaTeX's HTML is most of the
# tags: indexing took longer than the rest of a rebuild together, for an index in which a formula read
# as a run of glyphs ("NT5=2BH+DV+…") that no reader searches for. So a formula is set aside before the
# plugin reads the page (an empty placeholder in its place: it indexes the prose around it) and put
# back into the page the theme renders.
FORMULA_START = re.compile(r'<span class="katex(?:-display)?"[ >]')
_set_aside: dict[str, list[str]] = {}  # page URL -> its formulas, in order


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context, page, config, nav):
    formulas, pieces, at = [], [], 0
    while match := FORMULA_START.search(page.content, at):
        end = element_end(page.content, match.start(), "span")  # KaTeX writes spans (and SVG, no span inside)
        pieces += [page.content[at:match.start()], f'<span data-dv-formula="{len(formulas)}"></span>']
        formulas.append(page.content[match.start():end])
        at = end
    if formulas:
        _set_aside[page.url] = formulas
        page.content = "".join(pieces) + page.content[at:]
    return context


FORMULA_PLACEHOLDER = re.compile(r'<span data-dv-formula="(\d+)"></span>')


def on_post_page(output: str, page, config) -> str:
    formulas = _set_aside.pop(page.url, None)
    if formulas is None:
        return output
    return FORMULA_PLACEHOLDER.sub(lambda m: formulas[int(m[1])], output)


# -- end of build -----------------------------------------------------------------

def on_post_build(config):
    _memo.save()
    katex_render.close()


def on_shutdown():
    katex_render.close()
