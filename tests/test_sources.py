"""Sources a reader can open: every citation names a key of derivations/sources.py, every source is
cited, and no file of the project cites a document outside it."""

import re
from pathlib import Path

import pytest

from derivations import registry, sources
from derivations.site import shortcodes
from derivations.sources import CITATION, Citation, UnknownSource
from derivations.site.syntax import SHORTCODE

# The families declare their own sources as they are imported (sources.declare): import them all first.
registry.families()
ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in ("derivations", "tests", "hooks", "benchmarks", "docs") for p in (ROOT / folder).rglob("*")
               if p.suffix in (".py", ".md", ".js", ".yml") and "__pycache__" not in p.parts)
FILES += [ROOT / "README.md", ROOT / "mkdocs.yml", ROOT / "CITATION.cff"]
# In code: Citation("KEY"...) and cite("KEY"...); in pages: <!-- cite:KEY ... -->; in comments: [cite: KEY].
IN_CODE = re.compile(r"""\b(?:Citation|cite)\(\s*["']([a-z0-9][a-z0-9.-]*)["']""")


def cited(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    keys = set(CITATION.findall(text)) | set(IN_CODE.findall(text))
    keys |= {m[2].split()[0] for m in SHORTCODE.finditer(text) if m[1] == "cite"}
    return {key for key in keys if re.fullmatch(r"[a-z0-9][a-z0-9.-]*", key)}  # not a placeholder such as KEY


def test_every_key_cited_is_a_source():
    unknown = {f"{path.relative_to(ROOT)}: {key}" for path in FILES if path.name != "test_sources.py"
               for key in cited(path) if key not in sources.SOURCES}
    assert not unknown, f"citations of keys derivations/sources.py does not have: {sorted(unknown)}"


def test_every_source_is_cited():
    used = set().union(*(cited(path) for path in FILES if path.name not in ("sources.py", "test_sources.py")))
    assert set(sources.SOURCES) - used == set(), "sources nothing cites"


def test_an_unknown_key_is_refused_wherever_it_is_written():
    with pytest.raises(UnknownSource, match="unknown source 'nope'"):
        Citation("nope")
    with pytest.raises(LookupError):
        shortcodes.expand("cite", "nope Table 2", lambda tex, display: tex)
    assert "[cite: nope]" not in "".join(p.read_text(encoding="utf-8") for p in FILES if p.name != "test_sources.py")


def test_every_source_can_be_opened_and_dated():
    for source in sources.SOURCES.values():
        assert source.authors and source.title and source.where, source.key
        if source.category == "note":
            continue  # three of the five notes give no address: the sources page says so
        assert source.url.startswith("https://"), source.key
        assert source.category == "paper" or source.revision.startswith("https://") or source.read, source.key


def test_a_citation_links_its_entry_which_links_the_source():
    out = Citation("touvron2023", "Table 2").html()
    assert 'href="sources.html#touvron2023"' in out and ">Touvron et al. 2023</a>, Table 2" in out
    entry = sources.entry(sources.get("llama2-card"))
    assert entry.startswith('<li id="llama2-card">') and 'href="https://github.com/meta-llama/llama/blob/689c7f2/' in entry


# Documents a reader of the repository does not have: the project's own notes and issue tracker.
OUTSIDE = re.compile(r"shared reference|\.\./shared|published-totals|seed[ -]notes?\b|\bissue \d|"
                     r"section [AB]\d*\b|popular derivation|widely (?:read|copied)")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_cites_a_document_outside_the_repository(path):
    if path.name == "test_sources.py":
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert not OUTSIDE.search(line), f"{path.relative_to(ROOT)}:{number}: {line.strip()}"


def test_a_family_may_declare_a_source_of_its_own(monkeypatch):
    # A new family cites what only it cites from its own module (sources.declare, before its first Citation): the
    # claim's citation resolves, the sources page lists it after the shared ones, and a key taken by another source
    # is refused. (The table is the test's copy: no other test sees the source.)
    monkeypatch.setattr(sources, "SOURCES", dict(sources.SOURCES))
    monkeypatch.setattr(sources, "_DECLARED", {})
    own = sources.Source("example-card", "card", "Example Labs", "Example-7B model card", "Hugging Face", 2026,
                         "https://huggingface.co/example/Example-7B", read="2026-11-25")
    assert sources.declare(own) == (own,)
    assert sources.declare(own) == (own,)  # declared again by a module imported again: the same source
    assert 'href="sources.html#example-card"' in Citation("example-card", "Table 1").html()
    page = sources.page()
    assert '<li id="example-card">' in page and page.index('id="llama3-card"') < page.index('id="example-card"')
    with pytest.raises(ValueError, match="taken"):
        sources.declare(sources.Source("vaswani2017", "paper", "Someone", "Another paper", "arXiv", 2026,
                                       "https://arxiv.org/abs/0000.00000"))
