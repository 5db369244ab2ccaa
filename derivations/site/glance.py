"""The box that opens every family page: its answer, generated from the package.

``<!-- glance:FAMILY -->`` (hooks/families.py puts it under each family page's title): the counts the
family is known by (its record's ``headlines``), each exact, with its class and checkpoint and, for a
count that depends on a convention (a mixture's active parameters), the convention; where the first of
them goes, kind by kind (embeddings, attention, feed-forward, norms, heads), as a bar and a legend with
each share and count; what serving its running example takes at a long context and which accelerators hold it
(:func:`serving`); and the page's running example (``example``), named here once.
"""

from __future__ import annotations

import html

from .. import accelerators, answers, configs, registry, storage
from . import breakdown, figures
from .expanders import number
from .references import Reference

# "A long context" for the box: the context the example's config declares, up to this many tokens.
LONG_CONTEXT = 32768
SERVING_DTYPE = "bf16"


def serving(checkpoint: str) -> str:
    """One sentence: the inference bytes of ``checkpoint`` in bf16 at a long context (its declared context, at most
    :data:`LONG_CONTEXT` tokens), batch 1, and the accelerators whose memory holds them; or why there is no total."""
    config = configs.load(checkpoint)
    # A model that reads images: one image of its config's size.
    image = answers.reads_images(config)
    tokens = None if image else min(answers.context(config), LONG_CONTEXT)
    held = answers.memory(config, None, tokens, None, 1, SERVING_DTYPE)
    if "inference_bytes" not in held:
        return (f'<p class="dv-glance-serving">No inference total for <code>{checkpoint}</code> yet: '
                f"{html.escape(held['inference_refused'])}.</p>")
    total = held["inference_bytes"]
    cards = accelerators.ACCELERATORS.values()
    fits = [card.name for card in cards if total <= card.memory_bytes]
    short = [card.name for card in cards if total > card.memory_bytes]
    where = (f"fits on {', '.join(fits)}" if fits else "fits on none of the accelerators of the table") + (
        f"; not on {', '.join(short)}" if fits and short else "")
    attention = held.get("attention", "eager")
    routed = "transient_routing" in held  # a mixture's: the most any routing of its experts holds
    return (f'<p class="dv-glance-serving">Serving <code>{checkpoint}</code> in {SERVING_DTYPE} at '
            f"{'one image' if image else f'{tokens:,} tokens'}, batch 1, holds {'at most ' if routed else ''}"
            f"{storage.in_unit(total, storage.DECIMAL)} (weights, key/value cache and the forward's transient peak"
            f"{' at the routing that holds the most' if routed else ''}, {attention} attention): {where} "
            f'(<a href="memory.html#does-it-fit">what is not counted</a>).</p>')


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
            f"{serving(family.example)}"
            f'<p class="dv-glance-example">Running example of this page: <code>{family.example}</code>. Every table '
            "is evaluated on it unless its caption says otherwise. "
            '<a href="#cite-this">Cite this page</a></p></section>')
