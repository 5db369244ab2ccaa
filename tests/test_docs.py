"""The docs and the package describe the same things, and no formula is typed by hand in docs/."""

import re
from pathlib import Path

import pytest

from derivations import configs, symbols

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def shortcodes(page: str) -> list[str]:
    return re.findall(r"<!--\s*[a-z]+:(.+?)\s*-->", text(page))


FAMILIES = sorted({module.__name__.split(".")[-1]: module for module in configs.families().values()}.items())


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_class_is_on_its_family_page(name, family):
    page = text(f"{name}.md")
    named = set(re.findall(r"`(\w+)`", page))
    missing = {architecture for variants in family.VARIANTS.values() for architecture in variants} - named
    assert not missing, f"classes not on {name}.md: {missing}"


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_every_reconciled_claim_is_on_the_mistakes_page(name, family):
    shown = {r.strip() for r in shortcodes("mistakes.md")}
    declared = {f"{name}.{claim.name}" for claim in family.MISCOUNTS + family.ROUNDED}
    assert declared <= shown, f"not on mistakes.md: {declared - shown}"


def test_every_symbol_is_in_the_notation():
    declared = {v for v in vars(symbols).values() if isinstance(v, type(symbols.D))}
    assert declared == {n.symbol for n in symbols.NOTATION}


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
    claims = {c.claim for _, family in FAMILIES for c in family.MISCOUNTS + family.ROUNDED}
    source = re.sub(r"```.*?```|`[^`]*`|<!--.*?-->", "", page.read_text(encoding="utf-8"), flags=re.S)
    for match in re.finditer(r"\b\d{1,3}(?:,\d{3})+\b", source):
        assert int(match[0].replace(",", "")) in claims, f"{page.name}: {match[0]} typed by hand"
    for match in re.finditer(r"\b(\d+)M\b", source):
        assert int(match[1]) * 10**6 in claims, f"{page.name}: {match[0]} typed by hand"
