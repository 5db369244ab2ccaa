"""MkDocs hook: expand `<!-- KIND:REF -->` shortcodes from the `derivations` package.

A page names an expression (`<!-- eq:bert.layer -->`, `<!-- num:bert.BertModel @ bert-base-chinese -->`);
`derivations.references.expand(kind, ref, tex)` turns it into HTML, with `tex` rendering
TeX through KaTeX at build time. An unknown kind or ref, or TeX that KaTeX rejects, fails
the build with the page and the shortcode in the message.

KaTeX HTML is full of `_`, `*` and `\\`, which Python-Markdown would mangle, so the
expansion is two-step: `on_page_markdown` swaps each shortcode for an alphanumeric
placeholder that Markdown leaves alone, and `on_page_content` swaps the HTML back in.

The hook also ships KaTeX's CSS and woff2 fonts with the site (from node_modules, never
committed) and stops the node renderer when the build ends.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

import figures  # sibling modules: MkDocs puts this folder on sys.path while loading a hook
import katex_render

SHORTCODE = re.compile(r"<!--\s*([a-z]+):(.+?)\s*-->")
# Any comment that starts like a shortcode; what survives expansion is an error.
SHORTCODE_LIKE = re.compile(r"<!--\s*[A-Za-z]+\s*:")
# Fixed width + terminator: no placeholder is a prefix of another.
PLACEHOLDER = re.compile(r"DVSC\d{6}Z")
BLOCK_HTML = re.compile(r"\s*<(?:div|table|figure|p|ul|ol|dl|pre|blockquote|section|details|h[1-6])\b")
ELEMENT_ID = re.compile(r"""\sid=["']([^"']+)["']""")

KATEX_CSS = "css/katex/katex.min.css"  # site path; listed in mkdocs.yml extra_css
CALCULATORS_JS = "js/calculators.js"  # site path; listed in mkdocs.yml extra_javascript

_expanded: dict[str, tuple[str, str]] = {}  # placeholder -> (shortcode, html)
_anchors: dict[str, int] = {}  # formula anchor -> times used on the page being built
_counter = 0
_references = None


def _fail(page, message: str) -> PluginError:
    return PluginError(f"{page.file.src_uri}: {message}")


# -- configuration ----------------------------------------------------------------

def on_config(config):
    global _references
    # Drop cached derivations modules so `mkdocs serve` picks up edits on rebuild.
    for name in [n for n in sys.modules if n == "derivations" or n.startswith("derivations.")]:
        del sys.modules[name]
    _references = importlib.import_module("derivations.references")
    _expanded.clear()
    return config


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
    # The calculators' arithmetic, generated from the derivations (listed in mkdocs.yml extra_javascript).
    calculator = importlib.import_module("derivations.calculator")
    files.append(File.generated(config, CALCULATORS_JS, content=calculator.script()))
    css_dir = Path(KATEX_CSS).parent
    for font in sorted(set(fonts)):
        src = dist / font
        if not src.is_file():
            raise PluginError(f"KaTeX font {src} is missing: re-run `npm ci`")
        files.append(File.generated(config, (css_dir / font).as_posix(), abs_src_path=str(src)))
    return files


# -- pages ------------------------------------------------------------------------

def _anchored(ref: str, html: str) -> str:
    """A displayed formula with a permanent anchor: an id from its reference (unique on the page) and
    a ¶ link to it, as headings have."""
    base = "eq-" + re.sub(r"[^a-z0-9]+", "-", ref.lower()).strip("-")
    _anchors[base] = _anchors.get(base, 0) + 1
    anchor = base if _anchors[base] == 1 else f"{base}-{_anchors[base]}"
    link = f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a>'
    return re.sub(r'^<div class="dv-eq"', f'<div class="dv-eq" id="{anchor}"', html, count=1)[:-len("</div>")] + link + "</div>"


def on_page_markdown(markdown: str, page, config, files):
    _expanded.clear()  # pages are built one at a time: markdown, then content
    _anchors.clear()

    def expand(match: re.Match) -> str:
        global _counter
        kind, ref, shortcode = match[1], match[2].strip(), match[0]
        try:
            if kind == "figure":
                html = figures.render_figure(ref)
            else:
                html = _references.expand(kind, ref, katex_render.render)
        except (LookupError, katex_render.KatexError) as e:
            raise _fail(page, f"cannot expand {shortcode}: {e}") from e
        except Exception as e:  # a bug: keep the traceback, add where it happened
            e.add_note(f"while expanding {shortcode} in {page.file.src_uri}")
            raise
        if kind == "eq":
            html = _anchored(ref, html)
        _counter += 1
        token = f"DVSC{_counter:06d}Z"
        _expanded[token] = (shortcode, html)
        return token

    return SHORTCODE.sub(expand, markdown)


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
        def inline(match: re.Match) -> str:
            return f'<span class="dv-nowrap">{result}{match[1]}</span>' if match[1] else result

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


# -- end of build -----------------------------------------------------------------

def on_post_build(config):
    katex_render.close()


def on_shutdown():
    katex_render.close()
