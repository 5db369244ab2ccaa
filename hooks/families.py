"""MkDocs hook: the families as the package has them, so that adding one touches no shared file.

A family is a module of ``derivations/families/`` with a page ``docs/<name>.md`` (its title is the
page's first heading) and a notebook ``docs/notebooks/<name>.py``. This hook fills the navigation's
"Families" and "Notebooks" sections with them (mkdocs.yml leaves both empty), in the order of the
families' first papers (``FIRST_PUBLISHED``), and draws the home page's table of the counts each family
is known by (``<!-- families:table -->``, from each module's ``HEADLINES``).

The list is kept between builds under a digest of the package and the pages' titles: a rebuild with
neither changed does not import the derivations (SymPy).
"""

from __future__ import annotations

import html
from pathlib import Path

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


def shown_on() -> dict[str, list[str]]:
    """Every miscount shown on a page (``<!-- miscount:REFERENCE -->``), and the pages that show it."""
    from derivations.syntax import SHORTCODE  # no SymPy

    shown: dict[str, list[str]] = {}
    for md in sorted(DOCS.glob("*.md")):
        for match in SHORTCODE.finditer(md.read_text(encoding="utf-8")):
            if match[1] == "miscount":
                shown.setdefault(match[2].strip(), []).append(md.name)
    return shown


def elsewhere_items(claims: list[tuple[str, str, str]], shown: dict[str, list[str]], here: str = "mistakes.md"
                    ) -> list[tuple[str, str, str]]:
    """The miscounts (``(reference, family title, what)``) that ``here`` does not detail, each with the page
    that does: ``(page, family title, what)``. A miscount that no page shows is an error."""
    items = []
    for ref, title, what in claims:
        pages = shown.get(ref, [])
        if not pages:
            raise LookupError(f"{ref}: a miscount that no page shows (write <!-- miscount:{ref} --> on its family's page)")
        if here not in pages:
            items.append((pages[0], title, what))
    return items


def elsewhere() -> str:
    """``<!-- families:elsewhere -->`` on the mistakes page: the miscounts that a family's page details and
    this page does not, one linked line each, so that a new family's miscounts are listed here without
    an edit to this page."""
    from derivations import configs

    claims = [(f"{family['name']}.{claim.name}", family["title"], claim.what)
              for family in families() for claim in configs.family_modules()[family["name"]].MISCOUNTS]
    items = elsewhere_items(claims, shown_on())
    if not items:
        return "<p>Every miscount the site reconciles is detailed above.</p>"
    return "<ul>\n" + "\n".join(f'<li><a href="{page.removesuffix(".md")}.html">{html.escape(title)}</a>: {what}</li>'
                                for page, title, what in items) + "\n</ul>"
