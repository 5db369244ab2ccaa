"""The docs and the package describe the same things, and no formula is typed by hand in docs/."""

import functools
import re
from pathlib import Path

import pytest
import yaml

from derivations import configs, registry, symbols
from derivations.site import references
from derivations.site import families as site_families
from derivations.claims import Hypothesis, Miscount, Rounded
from derivations.site.syntax import SHORTCODE

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def shortcodes(page: str) -> list[str]:
    return [match[2] for match in SHORTCODE.finditer(text(page))]


FAMILIES = sorted(registry.families().items())


def claims(family) -> list:
    """Everything a family reconciles: its miscounts, its rounded figures, and its hypotheses' figures."""
    return list(family.claims())


def shown_claims() -> set[int]:
    """The claims that some page shows, by identity: named directly, in a tuple, by a hypothesis, or
    through one of their numbers (transformer.base_rows.common.0 shows transformer.base_rows)."""
    shown: set[int] = set()
    for page in PAGES:
        for ref in shortcodes(page.name):
            names = ref.split("@")[0].split("|")[0].strip().split(".")
            for end in range(2, len(names) + 1):
                try:
                    obj = references.resolve(".".join(names[:end])).obj
                except LookupError:
                    continue  # shortcodes whose text is not a reference (architectures: FAMILY @ CHECKPOINT)
                shown |= _claims_in(obj)
    return shown


def _claims_in(obj) -> set[int]:
    """The claims an object is or holds (a tuple of them, a hypothesis and its figures), by identity."""
    shown: set[int] = set()
    for item in obj if isinstance(obj, tuple) else (obj,):
        if isinstance(item, (Miscount, Rounded, Hypothesis)):
            shown.add(id(item))
        if isinstance(item, Hypothesis):
            shown.update(id(c) for c in item.claims)
    return shown


def test_every_family_has_its_page_and_its_notebook():
    for name in registry.families():
        assert (DOCS / f"{name}.md").is_file(), f"no docs/{name}.md"
        assert (DOCS / "notebooks" / f"{name}.py").is_file(), f"no docs/notebooks/{name}.py"


# The files a family does not own. Adding one must not mean editing them: the navigation, the home page's
# table, the pictures and the mistakes page's list take the families from the package.
SHARED = ["mkdocs.yml", "README.md", "CONTRIBUTING.md", *(f"hooks/{p.name}" for p in sorted((DOCS.parent / "hooks").glob("*.py")))]


@pytest.mark.parametrize("shared", SHARED)
def test_no_shared_file_lists_the_families(shared):
    source = (DOCS.parent / shared).read_text(encoding="utf-8")
    for name in registry.families():
        for written in (f"{name}.md", f"notebooks/{name}.py", f"families/{name}.py", f"readers/{name}.py"):
            assert written not in source, f"{shared} names {written}: a new family would have to edit it"
    if shared == "mkdocs.yml":
        nav = yaml.safe_load(source.replace("!ENV", ""))["nav"]
        sections = {key: value for item in nav if isinstance(item, dict) for key, value in item.items()}
        assert sections["Families"] == [] and sections["Notebooks"] == [], "hooks/families.py fills these"


def test_the_home_page_takes_its_table_from_the_families():
    home = text("index.md")
    assert "<!-- families:table -->" in home
    assert not re.search(r"^\|.*\|$", home, flags=re.M), "a table typed in index.md: the families' table is generated"
    for _, family in FAMILIES:
        assert family.headlines and all(h.checkpoint in configs.bundled() for h in family.headlines)


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_class_is_on_its_family_page(name, family):
    page = text(f"{name}.md")
    named = set(re.findall(r"`(\w+)`", page))
    missing = {architecture for variants in family.variants.values() for architecture in variants} - named
    assert not missing, f"classes not on {name}.md: {missing}"


entries = functools.cache(site_families.entries)  # every page read once, not once a family


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_miscount_has_an_entry_that_opens_with_its_verdict(name, family):
    # An entry: a heading, the verdict right under it, and the table of differences below, before the next
    # heading (the mistakes page's summary links to the heading).
    for claim in family.miscounts:
        ref = f"{name}.{claim.name}"
        assert ref in entries(), f"{ref}: no page gives its verdict"
        page = text(entries()[ref].page)
        verdict = page.index(f"<!-- verdict:{ref} -->")
        above = page[:verdict].rstrip().splitlines()[-1]
        assert above.startswith("#"), f"{ref}: the verdict must follow its heading, not {above!r}"
        below = page[verdict:]
        table = below.find(f"<!-- miscount:{ref} -->")
        following = re.search(r"^#", below, flags=re.M)
        assert table > 0 and (following is None or table < following.start()), f"{ref}: no table in its entry"


def test_heading_ids_are_the_ones_mkdocs_gives():
    families = site_families
    headings = ["# Common mistakes", '## "72.1 MB"', "## GPT-2's retracted counts", "### `n_params` twice",
                "## GPT-2's retracted counts", "## Pythia-70M {#seventy}"]
    assert families.heading_ids(headings) == ["common-mistakes", "721-mb", "gpt-2s-retracted-counts", "n_params-twice",
                                              "gpt-2s-retracted-counts_1", "seventy"]


def test_the_mistakes_summary_takes_every_miscount_from_the_families(monkeypatch):
    families = site_families
    assert "<!-- families:mistakes -->" in text("mistakes.md")
    monkeypatch.setattr(families, "entries", lambda: {})
    with pytest.raises(LookupError, match="a miscount that no page details"):
        families.mistakes()


def test_a_verdict_outside_an_entry_is_refused(tmp_path, monkeypatch):
    families = site_families
    (tmp_path / "a.md").write_text("# A\n\n<!-- verdict:bert.chinese_75m -->\n", encoding="utf-8")
    monkeypatch.setattr(families, "DOCS", tmp_path)
    with pytest.raises(LookupError, match="must open an entry"):
        families.entries()
    (tmp_path / "a.md").write_text("# A\n\n## One\n\n<!-- verdict:bert.chinese_75m -->\n\n"
                                   "```\n# not a heading\n```\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\n## Two\n\n<!-- verdict:bert.pooler_in_encoder -->\n", encoding="utf-8")
    found = families.entries()
    assert found["bert.chinese_75m"].href == "a.html#one" and found["bert.pooler_in_encoder"].href == "b.html#two"
    (tmp_path / "b.md").write_text("# B\n\n## Two\n\n<!-- verdict:bert.chinese_75m -->\n", encoding="utf-8")
    with pytest.raises(LookupError, match="a verdict on a.md and on b.md"):
        families.entries()


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_reconciled_claim_is_shown(name, family):
    shown = shown_claims()
    missing = [claim.name for claim in claims(family) if id(claim) not in shown]
    assert not missing, f"{name}: reconciled but on no page: {missing}"


def test_every_symbol_is_in_the_notation():
    declared = {v for v in vars(symbols).values() if isinstance(v, type(symbols.D))}
    assert declared == {n.symbol for n in symbols.NOTATION}


NOTEBOOKS = sorted((DOCS / "notebooks").glob("*.py"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_type_no_tex_by_hand(notebook):
    # A notebook shows a formula by displaying an expression of the package; its text cells hold none.
    text = "\n".join(line for line in notebook.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
    for pattern in (r"\$", r"\\\(", r"\\\[", r"\\frac", r"\^", "²"):
        assert not re.search(pattern, text), f"{notebook.name}: hand-typed math matching {pattern!r}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_tex_typed_by_hand(page):
    source = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code blocks may show anything
    source = re.sub(r"<!--.*?-->", "", source, flags=re.S)
    for pattern in (r"\$", r"\\\(", r"\\\[", r"\\frac", r"\\left", r"\\cdot", r"\^", "²"):
        assert not re.search(pattern, source), f"{page.name}: hand-typed math matching {pattern!r}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_count_typed_by_hand(page):
    # Counts in prose come from shortcodes; the only ones typed are published claims being quoted,
    # and each of those is declared, with its source, as a claim in the package.
    declared = [c for _, family in FAMILIES for c in claims(family) if not isinstance(c, Hypothesis)]
    numbers = {c.claim for c in declared}
    printed = {c.printed for c in declared if c.printed}
    source = re.sub(r"```.*?```|`[^`]*`|<!--.*?-->", "", page.read_text(encoding="utf-8"), flags=re.S)
    for match in re.finditer(r"\b\d{1,3}(?:,\d{3})+\b", source):
        assert int(match[0].replace(",", "")) in numbers, f"{page.name}: {match[0]} typed by hand"
    for match in re.finditer(r"\b(\d+)M\b", source):
        assert int(match[1]) * 10**6 in numbers or match[0] in printed, f"{page.name}: {match[0]} typed by hand"
