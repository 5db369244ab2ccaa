"""The box that opens every family page: its answer, generated from the package.

``<!-- glance:FAMILY -->`` (hooks/families.py puts it under each family page's title): the counts the
family is known by (its record's ``headlines``), each exact, with its class and checkpoint and, for a
count that depends on a convention (a mixture's active parameters), the convention; where the first of
them goes, kind by kind (embeddings, attention, feed-forward, norms, heads), as a bar and a legend with
each share and count; and the page's running example (``example``), named here once.
"""

from __future__ import annotations

import html

from .. import registry
from . import breakdown, figures
from .expanders import number
from .references import Reference


def render(name: str) -> str:
    families = registry.families()
    if name not in families:
        raise LookupError(f"glance:{name}: no such family (known: {', '.join(families)})")
    family = families[name]
    counts = []
    for headline in family.headlines:
        what = "active per token" if headline.active else html.escape(headline.unit)
        counted = html.escape(headline.label) if headline.label else f"<code>{headline.architecture}</code>"
        note = f" ({html.escape(headline.note)})" if headline.note else ""
        convention = f'<p class="dv-glance-convention">{html.escape(headline.convention)}</p>' if headline.convention else ""
        counts.append(
            f'<div class="dv-glance-count"><p class="dv-glance-number">'
            f"{number(Reference(f'{name}.{headline.name}', headline.checkpoint))} <span>{what}</span></p>"
            f'<p class="dv-glance-what">{counted} on <a href="#checkpoint-{headline.checkpoint}"><code>'
            f"{headline.checkpoint}</code></a>{note}</p>{convention}</div>")
    first = next(h for h in family.headlines if not h.active and not h.label)
    part = registry.as_built(family, first.name, first.checkpoint) or family.architectures[first.name]
    row = breakdown.breakdown(part, first.checkpoint)
    return (f'<section class="dv-glance" id="at-a-glance" aria-label="At a glance">'
            f'<div class="dv-glance-counts">{"".join(counts)}</div>'
            f'<p class="dv-glance-lead">Where the parameters of <code>{row.architecture}</code> on '
            f"<code>{row.checkpoint}</code> go:</p>{figures.share_bar(row)}{figures.legend(row)}"
            f'<p class="dv-glance-example">Running example of this page: <code>{family.example}</code>. Every table '
            "is evaluated on it unless its caption says otherwise. "
            '<a href="#cite-this">Cite this page</a></p></section>')
