"""What a docs page writes to bring in the package, and the anchors the expansions carry.

A page writes a *shortcode*, ``<!-- NAME:REFERENCE -->``: the shortcode's name (``eq``, ``num``,
``parts``, ...; :data:`derivations.site.shortcodes.SHORTCODES` lists them) and a *reference* to something in
the package (``bert.layer @ bert-base-uncased``; :mod:`derivations.site.references` resolves it). The hook
that expands them, the notebooks' hook and the tests share these definitions. Plain Python (no SymPy):
a rebuild with nothing changed reads pages without importing it.
"""

from __future__ import annotations

import html
import re

# <!-- eq:bert.layer -->: group 1 the shortcode's name, group 2 the reference.
SHORTCODE = re.compile(r"<!--\s*([a-z]+):(.+?)\s*-->")
# Any comment that starts like a shortcode: what survives expansion is an error, and a page that means
# to show one literally writes &lt;!-- … --&gt;.
SHORTCODE_LIKE = re.compile(r"<!--\s*[A-Za-z]+\s*:")


def formula_anchor(reference: str) -> str:
    """The permanent anchor of a displayed formula: ``eq-`` and its reference, in a URL's characters
    (``eq:bert.layer`` is ``#eq-bert-layer``)."""
    return "eq-" + re.sub(r"[^a-z0-9]+", "-", reference.lower()).strip("-")


FORMULA_OPEN, FORMULA_CLOSE = '<div class="dv-eq"', "</div>"


def anchored(formula: str, anchor: str) -> str:
    """A displayed formula (``<div class="dv-eq" ...>`` and its typeset HTML) with an id and a ¶ link
    to it, as headings have: the pages' formulas and the notebooks' outputs alike."""
    assert formula.startswith(FORMULA_OPEN) and formula.endswith(FORMULA_CLOSE), formula[:60]
    anchor = html.escape(anchor)
    link = f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a>'
    return f'{FORMULA_OPEN} id="{anchor}"{formula[len(FORMULA_OPEN):-len(FORMULA_CLOSE)]}{link}{FORMULA_CLOSE}'


def table_anchor(shortcode: str, reference: str) -> str:
    """The permanent anchor of a table a shortcode draws: ``table-``, its name and its reference
    (``parts:llama.layer @ llama-2-70b`` is ``#table-parts-llama-layer-llama-2-70b``)."""
    return "table-" + re.sub(r"[^a-z0-9]+", "-", f"{shortcode} {reference}".lower()).strip("-")


def anchored_table(table: str, anchor: str, caption: str = "") -> str:
    """A table (``<table>...``) with an id, a ¶ link to it in its last header cell, and a caption when given
    (before any it has)."""
    assert table.startswith("<table>") and "</th>" in table, table[:60]
    anchor = html.escape(anchor)
    link = f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a>'
    head_end = table.index("</tr></thead>")
    table = table[:head_end].removesuffix("</th>") + link + "</th>" + table[head_end:]
    return f'<table id="{anchor}">' + (f"<caption>{caption}</caption>" if caption else "") + table[len("<table>"):]


def element_end(text: str, start: int, tag: str) -> int:
    """Where the element ``<tag ...>`` opening at ``start`` closes, counting the same tags nested in it (a
    KaTeX formula is spans within spans, a notebook cell divs within divs)."""
    depth = 0
    for match in re.compile(rf"<{tag}\b|</{tag}>").finditer(text, start):  # re caches the pattern
        depth += 1 if match[0] != f"</{tag}>" else -1
        if depth == 0:
            return match.end()
    raise ValueError(f"a <{tag}> that does not close")
