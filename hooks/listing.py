"""The families as the hooks list them: each one's name, page title and running example, and where each
miscount's entry is. A helper of the hooks, not a hook: MkDocs loads each hook from its file, and the hooks that
need the list import this module, so that there is one list per build.

The list is kept between builds under a digest of the package and the pages' titles (``build_cache``): a rebuild
with neither changed does not import the derivations (SymPy). What a page shows of the families (the home page's
table, the mistakes page's summary) is the site layer's: ``derivations/site/families.py``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

import build_cache  # sibling module: MkDocs puts this folder on sys.path while loading a hook

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# Each section of the navigation that lists the families, and the file of a family it lists.
NAV_SECTIONS = {"Families": "{name}.md", "Notebooks": "notebooks/{name}.py"}

_listed: list[dict[str, str]] = []  # this build's families, listed by refresh()


def refresh() -> list[dict[str, str]]:
    """List the families again (each build's first hook calls it): the package's, in the navigation's order, each
    with its page's title and its running example."""
    titles = [md.read_text(encoding="utf-8").split("\n", 1)[0] for md in sorted(DOCS.glob("*.md"))]
    memo = build_cache.Memo("families", build_cache.digest([ROOT / "derivations"], *titles))

    def listed() -> list[dict[str, str]]:
        from derivations import registry
        from derivations.site.families import page_title

        try:
            return [{"name": name, "title": page_title(name), "example": family.example, "kind": family.kind,
                     "maker": family.maker} for name, family in registry.families().items()]
        except LookupError as error:  # a page without its title
            raise PluginError(str(error)) from None

    _listed[:] = memo.get("families", listed)
    memo.save()
    return _listed


# The navigation's groups of families: what their layers are, in this order; within each, who published them.
KINDS = {"encoder": "Encoders", "encoder-decoder": "Encoder-decoders", "decoder": "Decoders", "vision": "Vision"}


def grouped(entry: str) -> list[dict]:
    """A navigation section of the families (``entry`` formats each family's file): by kind, then by maker, each
    group in the order of its first family (the families are listed in the order of their first papers); a maker
    with one family in a kind is listed under the kind itself, not in a group of one."""
    sections = []
    for kind, label in KINDS.items():
        makers: dict[str, list[dict]] = {}
        for family in families():
            if family["kind"] == kind:
                makers.setdefault(family["maker"], []).append({family["title"]: entry.format(**family)})
        items = [pages[0] if len(pages) == 1 else {maker: pages} for maker, pages in makers.items()]
        if items:
            sections.append({label: items})
    return sections


def families() -> list[dict[str, str]]:
    """This build's families (listed on first use)."""
    return _listed or refresh()


def example(src_uri: str) -> str | None:
    """The running example of a family's page (``docs/<name>.md``), None for any other page."""
    return next((family["example"] for family in families() if f"{family['name']}.md" == src_uri), None)


def entries() -> dict:
    """Where each miscount's entry is (derivations.site.families.entries: no SymPy); a verdict out of place fails
    the build in one line."""
    from derivations.site.families import entries

    try:
        return entries()
    except LookupError as error:
        raise PluginError(str(error)) from None
