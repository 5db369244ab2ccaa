"""The families as the site lists them: each page's title, the home page's table of the counts each family is known
by, and the common-mistakes page's summary of every family's miscounts with a link to the entry that details it.

A family is a record of :mod:`derivations.registry` with a page ``docs/<name>.md`` (its title is the page's first
heading). Reading titles and entries needs no SymPy (the hooks call them on every build); the tables do.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import NamedTuple

from .syntax import SHORTCODE

DOCS = Path(__file__).resolve().parents[2] / "docs"


def page_title(name: str) -> str:
    """A family's name as its page's title gives it (docs/<name>.md starts with "# Title"); LookupError otherwise."""
    first = (DOCS / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# "):
        raise LookupError(f"docs/{name}.md must start with its title (# Title)")
    return first.removeprefix("# ").strip()


def table() -> str:
    """``<!-- families:table -->``, the home page's table: for every family, the counts it is known by, each beside
    the family's name, with its class and checkpoint, linked to the checkpoint's row on the family's page."""
    from .. import registry
    from .expanders import number
    from .references import Reference

    rows = []
    for name, family in registry.families().items():
        title = html.escape(page_title(name))
        for headline in family.headlines:
            note = f" ({html.escape(headline.note)})" if headline.note else ""
            count = number(Reference(f"{name}.{headline.name}", headline.checkpoint))
            where = f"{name}.html#checkpoint-{headline.checkpoint}"
            counted = html.escape(headline.label) if headline.label else f"<code>{headline.architecture}</code>"
            rows.append(f'<tr><td><a href="{name}.html">{title}</a>{note}</td><td style="text-align: right">{count}</td>'
                        f'<td>{counted} on <a href="{where}"><code>'
                        f"{headline.checkpoint}</code></a></td></tr>")
    return ('<table>\n<thead><tr><th>family</th><th style="text-align: right">parameters</th>'
            "<th>class, on checkpoint</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>")


# A heading of a page (ATX: "## Title"), and the fence of a code block, in which neither counts.
HEADING = re.compile(r"^#{1,6}\s+\S")
FENCE = re.compile(r"^\s*(?:```|~~~)")


class Entry(NamedTuple):
    """Where a miscount is detailed: the page, the anchor of the heading its verdict opens, and the order of the
    verdict on the page."""

    page: str
    anchor: str
    position: int

    @property
    def href(self) -> str:
        return f"{self.page.removesuffix('.md')}.html#{self.anchor}"


def heading_ids(headings: list[str]) -> list[str]:
    """The ids the pages' headings get: Python-Markdown's toc extension, as MkDocs runs it, on the headings of one
    page in their order (a repeated title gets "_1")."""
    import markdown

    md = markdown.Markdown(extensions=["toc", "attr_list"])
    md.convert("\n\n".join(headings))

    def flat(tokens):
        for token in tokens:
            yield token["id"]
            yield from flat(token["children"])

    return list(flat(md.toc_tokens))


def entries() -> dict[str, Entry]:
    """Every miscount that a page details, and its entry: the heading that ``<!-- verdict:REFERENCE -->`` opens."""
    found: dict[str, Entry] = {}
    for md in sorted(DOCS.glob("*.md")):
        headings: list[str] = []
        verdicts: list[tuple[str, int]] = []  # reference, index of the heading above it
        fenced = False
        for line in md.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            if HEADING.match(line):
                headings.append(line)
            verdicts += [(m[2].strip(), len(headings) - 1) for m in SHORTCODE.finditer(line) if m[1] == "verdict"]
        ids = heading_ids(headings)
        for position, (ref, heading) in enumerate(verdicts):
            if ref in found:
                raise LookupError(f"{ref}: a verdict on {found[ref].page} and on {md.name}; an entry has one page")
            if heading < 1:  # the first heading is the page's title
                raise LookupError(f"{md.name}: <!-- verdict:{ref} --> must open an entry, under its heading")
            found[ref] = Entry(md.name, ids[heading], position)
    return found


def mistakes() -> str:
    """``<!-- families:mistakes -->``, the common-mistakes page's summary: every miscount of every family, in the
    families' order and each page's, with a link to the entry that details it. Each row carries its entry's anchor,
    so that a link to an entry made when the entries were all on this page (0.4.0) lands on its row."""
    from .. import registry
    from .expanders import mistakes as summary
    from .references import Reference

    found = entries()
    rows = []
    for order, (name, family) in enumerate(registry.families().items()):
        for claim in family.miscounts:
            ref = f"{name}.{claim.name}"
            if ref not in found:
                raise LookupError(f"{ref}: a miscount that no page details (write <!-- verdict:{ref} --> under the "
                                  f"heading of its entry, and <!-- miscount:{ref} --> below it)")
            entry = found[ref]
            rows.append(((order, entry.page, entry.position), (Reference(ref), entry.href, entry.anchor)))
    return summary([row for _, row in sorted(rows, key=lambda r: r[0])])
