"""MkDocs hook: what the site's search indexes, and which page it lists first.

Material's search plugin indexes each page's HTML in its ``on_page_context`` (priority 0). This hook
hands it a copy of the page made for the index, and gives the page back as it was once the plugin has
read it: the pages readers see are not changed by any of this. The copy is made before the shortcodes
hook sets the formulas aside (priority 100), so that it sets them aside in the copy: the plugin reads
none, and the page given back has them in place.

- A family's page outranks its notebook and the common mistakes page for its own terms: the families'
  pages (``hooks/families.py``, from the package) get ``search: boost:`` in their meta, as front matter
  would set it, so that a new family has it without an edit; notebooks and the mistakes page get less.
  The sections every family page has (Compute, Memory, Calculator: the same prose, captions and column
  heads on each) are the template's words, not the family's: their entries lose the boost once the
  plugin has made them, so that "bf16" lists the Memory page, which explains it, before the family
  pages that repeat it.
- A notebook's code cells, input and output, are left out of the copy: the index keeps a notebook's
  prose and headings, not its Python. (Material's ``data-search-exclude`` cannot say it: its parser
  ends an exclusion at the first closing tag of the same name, and a cell is divs within divs.)
- An inline formula that reads as text, a symbol or a product of a few (H, d_h, 3 D F), is written
  out beside it, so that a snippet reads "H query heads of size d_h", not "query heads of size  and".
- Table cells, list items, paragraphs and lines broken with ``<br>`` are separated by a space: the
  parser keeps the text of a cell, not the cell, and the shortcodes' tables have nothing between their
  cells, so a snippet read "RMSNorm before attention8,192".
- Each table row, caption and list item is a paragraph of its own in the copy. Material's snippet is
  the blocks of a section that hold a match (two at most), a block being an element at the top of the
  text it indexes; it drops the tags of tables and keeps those of lists, so a match in a table (the
  notation's) gave loose text cut at its code, and a match in a list (the sources', a version's changes)
  the whole list. Now it is the row, or the item, that matched.
- The search worker the site ships gets one fix (:func:`on_post_build`): lunr 2.3.9, inside it, minimizes the
  trie of indexed words by a description of each node, its edges' characters each followed by the child's number
  with nothing between them, so that with digits in words two different nodes can read the same and be merged: the
  trie then reaches words the index does not hold (a search for one fails as a whole) and loses words it does
  (``tests/search_words.cjs`` finds both). A separator after each number makes every description unique.
- Pictures (an SVG's ticks, labels and metadata; a family's bars and their numbers), the calculators' lists of options and the anchor
  links of formulas and notebook headings (a lone "¶") carry ``data-search-exclude``, which holds for
  them: none holds an element of its own name.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority

import listing  # sibling module: MkDocs puts this folder on sys.path while loading a hook
from derivations.site.syntax import element_end  # no SymPy

# Material multiplies a section's score by its page's boost (lunr's document boost). Measured on the
# built index (tests/test_browser.py): these put each family's page first for its own terms.
FAMILY_BOOST = 2.0
NOTEBOOK_BOOST = 0.5
# The common mistakes pages tell of the families, and the changelog names what each version explained:
# below the page that explains a term.
# The memory page explains the data types (bf16, int4) that every family's memory table and some families' notes
# on their released files name: it outranks them, as a family's page does for its own terms.
# The calculators' page and the API's repeat the data types the memory page explains: below it.
# The memory page (its words on each format fewer since the calculators have a page of their own) a half more.
OTHER_BOOSTS = {"mistakes.md": 0.5, "changelog.md": 0.5, "memory.md": 1.5 * FAMILY_BOOST, "calculators.md": 0.5,
                "api.md": 0.5}
MISTAKES_PAGES = "mistakes-*.md"  # a family's entries of the common mistakes (docs/), as mistakes.md

CODE_CELL = re.compile(r'<div class="[^"]*\bjp-CodeCell\b[^"]*"')
# An inline formula's opening tags (expanders.py, katex_render.py), its TeX in the label.
INLINE_FORMULA = re.compile(r'(<span class="dv-math"[^>]*>)(<span class="katex" role="math" aria-label="([^"]*)">)')
SUBSCRIPT = re.compile(r"_\{\\mathrm\{(\w+)\}\}|_\{(\w+)\}")  # d_{\mathrm{h}}: d_h; l_{2}: l_2
READS_AS_TEXT = re.compile(r"[\w +\-=]+")  # no braces, powers or commands left
# A closing cell, caption, row, list item, paragraph or block with a tag right after it, or a line break with
# anything but a space after it (text follows one as often as a tag does: "“40 GB”<br>40,000,000,000").
RUN_TOGETHER = re.compile(r"(</t[dhr]>|</caption>|</li>|</p>|</div>)(?=<)|(<br\s*/?>)(?=\S)")
# Opening tags of what a reader never searches for: pictures (a family's bars and their numbers, drawn
# again in the tables and the at-a-glance box's legend), option lists, lone anchors.
EXCLUDED = re.compile(r'<(svg|select)\b|<figure class="dv-figure[^"]*"|<div class="dv-bar"|<a class="(headerlink|anchor-link)"')
# A row, caption or list item opens or closes a paragraph; a list itself goes (its items are paragraphs).
ROW_OR_ITEM = re.compile(r"<(/?)(?:tr|caption|li)\b[^>]*>")
LIST = re.compile(r"</?(?:ul|ol)\b[^>]*>")
DOUBLED = re.compile(r"<p>(\s*)<p>|</p>(\s*)</p>")  # an item that held a paragraph: one paragraph
_boosts: dict[str, float] = {}  # source path -> boost
_shared: set[str] = set()  # the titles of the sections every family page has
_pages: dict[str, str] = {}  # page URL -> its content, while the search plugin reads the copy


def on_config(config):
    _boosts.clear()
    _boosts.update(OTHER_BOOSTS)
    _boosts.update({md.name: OTHER_BOOSTS["mistakes.md"] for md in listing.DOCS.glob(MISTAKES_PAGES)})
    for family in listing.families():
        _boosts[listing.NAV_SECTIONS["Families"].format(**family)] = FAMILY_BOOST
        _boosts[listing.NAV_SECTIONS["Notebooks"].format(**family)] = NOTEBOOK_BOOST
    _shared.clear()
    _shared.update(set.intersection(*(_headings(family["name"]) for family in listing.families())))
    return config


def _headings(name: str) -> set[str]:
    """The second-level headings of a family's page, as written ("## Memory" is "Memory")."""
    text = (listing.DOCS / listing.NAV_SECTIONS["Families"].format(name=name)).read_text(encoding="utf-8")
    return {line[3:].strip() for line in text.splitlines() if line.startswith("## ")}


def _formula_text(match: re.Match) -> str:
    text = SUBSCRIPT.sub(lambda m: "_" + (m[1] or m[2]), html.unescape(match[3]))
    return match[1] + (html.escape(text) if READS_AS_TEXT.fullmatch(text) else "") + match[2]


def indexed(content: str) -> str:
    """The page as the search plugin gets to read it."""
    pieces, at = [], 0
    while match := CODE_CELL.search(content, at):
        pieces.append(content[at:match.start()])
        at = element_end(content, match.start(), "div")
    content = "".join(pieces) + content[at:]
    content = INLINE_FORMULA.sub(_formula_text, content)
    content = RUN_TOGETHER.sub(lambda m: m[0] + " ", content)
    content = LIST.sub("", ROW_OR_ITEM.sub(r"<\1p>", content))
    content = DOUBLED.sub(lambda m: f"{m[1]}<p>" if m[0].startswith("<p>") else f"</p>{m[2]}", content)
    return EXCLUDED.sub(lambda m: m[0] + " data-search-exclude", content)


@event_priority(150)  # before the shortcodes hook sets the formulas aside (100) and the search plugin (0)
def _before_search(context, page, config, nav):
    if page.file.src_uri in _boosts:
        page.meta.setdefault("search", {}).setdefault("boost", _boosts[page.file.src_uri])
    _pages[page.url] = page.content
    page.content = indexed(page.content)
    return context


@event_priority(-50)  # after the search plugin; what changed the page in between changed the copy
def _after_search(context, page, config, nav):
    page.content = _pages.pop(page.url)
    if _boosts.get(page.file.src_uri) == FAMILY_BOOST:
        # The plugin has just appended this page's entries (one a section) to its index.
        for entry in reversed(config.plugins["material/search"].search_index.entries):
            if entry["location"].split("#")[0] != page.url:
                break
            if entry["title"] in _shared:
                entry.pop("boost", None)
    return context


on_page_context = CombinedEvent(_before_search, _after_search)


# lunr's TokenSet.prototype.toString as Material's minified worker has it, and the same with a separator after each
# child's number ("|": an edge is one character, so "<char><digits>|" reads one way only).
TRIE_KEY = 'e=e+s+o.id}return e}'
TRIE_KEY_FIXED = 'e=e+s+o.id+"|"}return e}'


def on_post_build(config) -> None:
    """The site's search worker with lunr's trie keys made unique (see the module's docstring); a worker that no
    longer holds the line fixed fails the build, for a new Material to be looked at."""
    workers = sorted((Path(config.site_dir) / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if len(workers) != 1:
        raise PluginError(f"hooks/search.py: expected one search worker, found {[w.name for w in workers]}")
    text = workers[0].read_text(encoding="utf-8")
    if text.count(TRIE_KEY) != 1 and TRIE_KEY_FIXED not in text:
        raise PluginError(f"hooks/search.py: {workers[0].name} no longer holds lunr's TokenSet key as 2.3.9 wrote it")
    workers[0].write_text(text.replace(TRIE_KEY, TRIE_KEY_FIXED), encoding="utf-8")
