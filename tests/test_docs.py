"""The docs and the package describe the same things, and no formula is typed by hand in docs/."""

import re
from pathlib import Path

import pytest

from derivations import configs, references, symbols
from derivations.claims import Hypothesis, Miscount, Rounded
from derivations.syntax import SHORTCODE

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def shortcodes(page: str) -> list[str]:
    return [match[2] for match in SHORTCODE.finditer(text(page))]


FAMILIES = sorted(configs.family_modules().items())


def claims(family) -> list:
    """Everything a family reconciles: its miscounts, its rounded figures, and its hypotheses' figures."""
    hypotheses = getattr(family, "HYPOTHESES", ())
    return [*family.MISCOUNTS, *family.ROUNDED, *hypotheses, *(c for h in hypotheses for c in h.claims)]


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
                    continue  # kinds whose reference is not a name (architectures: FAMILY @ CHECKPOINT)
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


def test_every_family_module_has_a_page_in_the_nav():
    nav = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    for name in configs.family_modules():
        assert (DOCS / f"{name}.md").is_file(), f"no docs/{name}.md"
        assert f"{name}.md" in nav, f"{name}.md is not in the nav of mkdocs.yml"


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_class_is_on_its_family_page(name, family):
    page = text(f"{name}.md")
    named = set(re.findall(r"`(\w+)`", page))
    missing = {architecture for variants in family.VARIANTS.values() for architecture in variants} - named
    assert not missing, f"classes not on {name}.md: {missing}"


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_miscount_is_on_the_mistakes_page(name, family):
    shown = {r.strip() for r in shortcodes("mistakes.md")}
    declared = {f"{name}.{claim.name}" for claim in family.MISCOUNTS}
    assert declared <= shown, f"not on mistakes.md: {declared - shown}"


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
