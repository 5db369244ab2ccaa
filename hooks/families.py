"""MkDocs hook: the families as the package has them, so that adding one touches no shared file.

A family is a module of ``derivations/families/`` with a page ``docs/<name>.md`` (its title is the
page's first heading) and a notebook ``docs/notebooks/<name>.py``. This hook fills the navigation's
"Families" and "Notebooks" sections with them (mkdocs.yml leaves both empty), in the order of the
families' first papers (``FIRST_PUBLISHED``), draws the home page's table of the counts each family
is known by (``<!-- families:table -->``, from each module's ``HEADLINES``) and the common-mistakes page's
summary of every family's miscounts (``<!-- families:mistakes -->``, from each module's ``MISCOUNTS``).

The list is kept between builds under a digest of the package and the pages' titles: a rebuild with
neither changed does not import the derivations (SymPy).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import NamedTuple

import markdown
from mkdocs.exceptions import PluginError

import build_cache  # sibling modules: MkDocs puts this folder on sys.path while loading a hook

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# Each section of the navigation that lists the families, and the file of a family it lists.
NAV_SECTIONS = {"Families": "{name}.md", "Notebooks": "notebooks/{name}.py"}


def page_title(name: str) -> str:
    """A family's name as its page's title gives it (docs/<name>.md starts with "# Title")."""
    first = (DOCS / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# "):
        raise PluginError(f"docs/{name}.md must start with its title (# Title)")
    return first.removeprefix("# ").strip()


def families() -> list[dict[str, str]]:
    """Every family, in the navigation's order: its module's name and its page's title."""
    titles = [md.read_text(encoding="utf-8").split("\n", 1)[0] for md in sorted(DOCS.glob("*.md"))]
    memo = build_cache.Memo("families", build_cache.digest([ROOT / "derivations"], *titles))

    def listed() -> list[dict[str, str]]:
        from derivations import configs

        return [{"name": name, "title": page_title(name), "example": module.EXAMPLE}
                for name, module in configs.family_modules().items()]

    found = memo.get("families", listed)
    memo.save()
    return found


_listed: list[dict[str, str]] = []  # this build's families, for the pages


def refresh() -> list[dict[str, str]]:
    """This build's families, listed again. A sibling hook that imports this module has a copy of its own,
    which MkDocs does not call: it refreshes it in its own on_config."""
    _listed[:] = families()
    return _listed


def on_config(config):
    listed = refresh()
    for item in config.nav or ():
        if not (isinstance(item, dict) and len(item) == 1):
            continue
        (section, entries), = item.items()
        if section in NAV_SECTIONS:
            if entries:
                raise PluginError(f"nav: {section!r} lists the families of derivations/families/ itself (see "
                                  "hooks/families.py); leave it empty in mkdocs.yml")
            item[section] = [{family["title"]: NAV_SECTIONS[section].format(**family)} for family in listed]
    return config


def example(src_uri: str) -> str | None:
    """The running example of a family's page (``docs/<name>.md``), None for any other page."""
    return next((family["example"] for family in _listed if f"{family['name']}.md" == src_uri), None)


def on_page_markdown(markdown: str, page, config, files):
    # Every family page opens with its answer: the at-a-glance box, right under the title.
    if example(page.file.src_uri) is None:
        return markdown
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n<!-- glance:{page.file.src_uri.removesuffix('.md')} -->\n{rest}"


def table() -> str:
    """The home page's table: for every family, the counts it is known by, each beside the family's name,
    with its class and checkpoint, linked to the checkpoint's row on the family's page."""
    from derivations import configs
    from derivations.expanders import number
    from derivations.references import Reference

    rows = []
    for family in _listed or families():
        name, title = family["name"], html.escape(family["title"])
        for headline in configs.family_modules()[name].HEADLINES:
            note = f" ({html.escape(headline.note)})" if headline.note else ""
            count = number(Reference(f"{name}.{headline.name}", headline.checkpoint))
            where = f"{name}.html#checkpoint-{headline.checkpoint}"
            rows.append(f'<tr><td><a href="{name}.html">{title}</a>{note}</td><td style="text-align: right">{count}</td>'
                        f'<td><code>{headline.name.split(".")[-1]}</code> on <a href="{where}"><code>'
                        f"{headline.checkpoint}</code></a></td></tr>")
    return ('<table>\n<thead><tr><th>family</th><th style="text-align: right">parameters</th>'
            "<th>class, on checkpoint</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>")


# A heading of a page (ATX: "## Title"), and the fence of a code block, in which neither counts.
HEADING = re.compile(r"^#{1,6}\s+\S")
FENCE = re.compile(r"^\s*(?:```|~~~)")


class Entry(NamedTuple):
    """Where a miscount is detailed: the page, the anchor of the heading its verdict opens, and the order of
    the verdict on the page."""

    page: str
    anchor: str
    position: int

    @property
    def href(self) -> str:
        return f"{self.page.removesuffix('.md')}.html#{self.anchor}"


def heading_ids(headings: list[str]) -> list[str]:
    """The ids the pages' headings get: Python-Markdown's toc extension, as MkDocs runs it, on the headings of
    one page in their order (a repeated title gets "_1")."""
    md = markdown.Markdown(extensions=["toc", "attr_list"])
    md.convert("\n\n".join(headings))

    def flat(tokens):
        for token in tokens:
            yield token["id"]
            yield from flat(token["children"])

    return list(flat(md.toc_tokens))


def entries() -> dict[str, Entry]:
    """Every miscount that a page details, and its entry: the heading that ``<!-- verdict:REFERENCE -->`` opens."""
    from derivations.syntax import SHORTCODE  # no SymPy

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
    """``<!-- families:mistakes -->``, the common-mistakes page's summary: every miscount of every family
    (``MISCOUNTS``), in the families' order and each page's, with a link to the entry that details it. Each
    row carries its entry's anchor, so that a link to an entry made when the entries were all on this page
    (0.4.0) lands on its row."""
    from derivations import configs
    from derivations.expanders import mistakes as summary
    from derivations.references import Reference

    found = entries()
    rows = []
    for order, family in enumerate(families()):
        for claim in configs.family_modules()[family["name"]].MISCOUNTS:
            ref = f"{family['name']}.{claim.name}"
            if ref not in found:
                raise LookupError(f"{ref}: a miscount that no page details (write <!-- verdict:{ref} --> under the "
                                  f"heading of its entry, and <!-- miscount:{ref} --> below it)")
            entry = found[ref]
            rows.append(((order, entry.page, entry.position), (Reference(ref), entry.href, entry.anchor)))
    return summary([row for _, row in sorted(rows, key=lambda r: r[0])])
