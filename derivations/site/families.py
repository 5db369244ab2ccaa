"""The families as the site lists them: each page's title, the home page's table of the counts each family is known
by, the common-mistakes page's summary of every family's miscounts with a link to the entry that details it, and
the coverage page's lists: the model_types derived, and those readers ask about that are not.

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


# Model types readers ask about that no family derives yet, each with what it is: the coverage page lists them,
# with no number. One that a family comes to read leaves that list by itself (a new family edits nothing here).
NOT_DERIVED = {
    "whisper": "Whisper: speech recognition, an audio encoder and a text decoder",
    "vit": "ViT: an image cut into patches, read by an encoder",
    "clip": "CLIP: an image encoder and a text encoder, trained to match",
    "llava": "LLaVA: a vision encoder joined to a language model by a projection",
    "gemma3": "Gemma 3 with its vision encoder (the text model alone, gemma3_text, is derived)",
    "qwen2_vl": "Qwen2-VL: a vision encoder joined to Qwen2's decoder",
    "bart": "BART: an encoder-decoder with learned positions",
    "xlm-roberta": "XLM-RoBERTa: RoBERTa's layout, trained on many languages",
    "electra": "ELECTRA: an encoder trained to spot replaced tokens",
    "deberta-v2": "DeBERTa-v2 and v3: an encoder whose attention keeps content and relative position apart",
    "falcon": "Falcon: a decoder with multi-query or grouped attention, attention and feed-forward side by side",
    "mpt": "MPT: a decoder with ALiBi in place of position embeddings",
    "bloom": "BLOOM: a decoder with ALiBi, and a norm after the embeddings",
    "opt": "OPT: a decoder with learned positions",
    "gptj": "GPT-J: a decoder with rotary positions, attention and feed-forward side by side",
    "mamba": "Mamba: a state-space model, with no attention",
}


def derived() -> str:
    """``<!-- families:derived -->``, the coverage page's table: every family with the model_type of the configs it
    counts, the number of classes derived and the checkpoints bundled, linked to its page."""
    from .. import registry

    rows = []
    for name, family in registry.families().items():
        checkpoints = ", ".join(f"<code>{html.escape(c)}</code>" for c in family.checkpoints)
        rows.append(f"<tr><td><code>{html.escape(family.model_type)}</code></td>"
                    f'<td><a href="{name}.html">{html.escape(page_title(name))}</a></td>'
                    f'<td style="text-align: right">{len(family.architectures)}</td><td>{checkpoints}</td></tr>')
    return ('<table>\n<thead><tr><th>model_type</th><th>family</th><th style="text-align: right">classes</th>'
            "<th>checkpoints bundled</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>")


def transient() -> str:
    """``<!-- families:transient -->``, the memory page's list: the families whose forward at inference is derived
    (derivations.transient) and checked against torch, each with its classes, linked to its page."""
    from .. import registry

    return ", ".join(f'<a href="{name}.html">{html.escape(page_title(name))}</a> ('
                     + ", ".join(f"<code>{html.escape(c)}</code>"
                                 for c in sorted({c for by_class in record.transient.values() for c in by_class}))
                     + ")" for name, record in registry.families().items() if record.transient)


def transient_sdpa() -> str:
    """``<!-- families:transient-sdpa -->``, the memory page's list: the families whose forward at inference is
    derived under sdpa attention too, linked to their pages."""
    from .. import registry

    return ", ".join(f'<a href="{name}.html">{html.escape(page_title(name))}</a>'
                     for name, record in registry.families().items() if record.transient_sdpa)


def not_derived() -> str:
    """``<!-- families:not-derived -->``: the model types of :data:`NOT_DERIVED` that no family reads, a list."""
    from .. import configs

    items = "\n".join(f"<li><code>{html.escape(t)}</code>: {html.escape(what)}</li>"
                      for t, what in NOT_DERIVED.items() if t not in configs.READERS)
    return f"<ul>\n{items}\n</ul>"


# Every model_type transformers knows (CONFIG_MAPPING_NAMES of the pinned version; tests/test_site.py compares the
# file with the installed transformers), so that the coverage page names any model a reader searches for.
MODEL_TYPES = Path(__file__).with_name("model_types.json")


def transformers_types() -> tuple[str, list[str]]:
    """The pinned transformers' version and its model_types, from :data:`MODEL_TYPES`."""
    import json

    known = json.loads(MODEL_TYPES.read_text(encoding="utf-8"))
    return known["transformers"], known["model_types"]


def others() -> str:
    """``<!-- families:others -->``: every other model_type the pinned transformers knows, that no family reads and
    :data:`NOT_DERIVED` does not describe, as one paragraph of names."""
    from .. import configs

    version, types = transformers_types()
    rest = [t for t in types if t not in configs.READERS and t not in NOT_DERIVED]
    names = ", ".join(f"<code>{html.escape(t)}</code>" for t in rest)
    return f'<p class="dv-model-types">{len(rest)} more in transformers {html.escape(version)}: {names}.</p>'


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
