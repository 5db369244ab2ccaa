"""Pictures drawn at build time from the derivations (never by hand, never committed): SVG from matplotlib,
inlined in the page with alt text and a caption that says where the numbers come from.

``<!-- figure:FAMILY -->`` shows where the parameters of a family's main class go on each of its
checkpoints; ``<!-- figure:families -->`` how the embeddings' share falls as models grow, across
every family. The numbers are those of ``derivations.breakdown``, the same expressions as the tables.
"""

from __future__ import annotations

import html
import io
import re
from functools import cache

import families as families_hook  # a sibling module: hooks/families.py

# The derivations are imported where they are used: shortcodes.on_config reloads them on every build.
# So is matplotlib (most of a second): a rebuild finds its pictures drawn already (shortcodes' memo).


@cache
def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot

    return matplotlib.pyplot

KINDS = ("embeddings", "attention", "feed-forward", "norms", "heads")  # derivations.components.KINDS, in order
COLORS = {"embeddings": "#4c72b0", "attention": "#dd8452", "feed-forward": "#55a868", "norms": "#c44e52",
          "heads": "#8172b3"}
# A marker and a colour per family, cycled: 13 markers and 15 colours (the ten of matplotlib's default cycle,
# then five more), lengths without a common factor, give every one of the first 195 families a pair of its own.
FAMILY_MARKERS = "osD^v<>p*hXP8"
FAMILY_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#000000", "#393b79", "#8c6d31", "#843c39", "#637939"]


def _svg(figure, name: str) -> str:
    """The figure as an <svg> element: text kept as text (small, and searchable), ids salted by the
    figure's name (two figures on a page must not share ids) and no date (the build is reproducible)."""
    out = io.StringIO()
    plt = pyplot()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    svg = out.getvalue()
    return svg[svg.index("<svg"):]


def _figure(svg: str, name: str, alt: str, caption: str) -> str:
    svg = re.sub(r"<svg\b", f'<svg role="img" aria-label="{html.escape(alt)}"', svg, count=1)
    svg = re.sub(r'(<svg[^>]*?)\s(width|height)="[^"]*"', r"\1", svg, count=2)  # scale with the page
    return (f'<figure class="dv-figure" id="figure-{name}" data-alt="{html.escape(alt)}">{svg}'
            f"<figcaption>{caption}</figcaption></figure>")


def family_figure(name: str) -> str:
    """Stacked bars: the share of each kind of parameter in the family's main class, per checkpoint."""
    from derivations import breakdown, configs, render

    module = configs.family_modules()[name]
    rows = breakdown.family(module)
    figure, axes = pyplot().subplots(figsize=(8, 0.45 * len(rows) + 1.3))
    for i, row in enumerate(reversed(rows)):
        left = 0.0
        for kind in KINDS:
            width = 100 * row.share(kind)
            axes.barh(i, width, left=left, color=COLORS[kind], label=kind if i == 0 else None)
            left += width
    axes.set_yticks(range(len(rows)), [f"{r.checkpoint}  ({render.number(r.total)})" for r in reversed(rows)])
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of the parameters (%)")
    axes.legend(ncol=len(KINDS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False, fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    architecture = rows[0].architecture
    alt = (f"Stacked bars, one per checkpoint, of where the parameters of {architecture} go. "
           + " ".join(f"{r.checkpoint}, {render.number(r.total)} parameters: "
                      + ", ".join(f"{kind} {render.number(r.by_kind[kind])}" for kind in KINDS) + "."
                      for r in rows))
    caption = (f"Where the parameters of <code>{html.escape(architecture)}</code> go, per checkpoint. "
               "Drawn at build time from the derivation of this page, evaluated on each checkpoint's config.json "
               "(the numbers of the checkpoint table); the norms are too small to show at this scale.")
    return _figure(_svg(figure, f"family-{name}"), name, alt, caption)


def families_figure() -> str:
    """The embeddings' share against the total, for every checkpoint of every family, on a log scale."""
    from derivations import breakdown, render

    figure, axes = pyplot().subplots(figsize=(9, 4.6))
    alt_parts = []
    families = breakdown.families()
    for i, (name, rows) in enumerate(families.items()):
        marker, colour = FAMILY_MARKERS[i % len(FAMILY_MARKERS)], FAMILY_COLOURS[i % len(FAMILY_COLOURS)]
        rows = sorted(rows, key=lambda r: r.total)  # a family's checkpoints from the smallest
        xs, ys = [r.total for r in rows], [100 * r.share("embeddings") for r in rows]
        title = families_hook.page_title(name)
        # Points only: checkpoints of one family differ in vocabulary as well as in size.
        axes.plot(xs, ys, marker=marker, color=colour, linestyle="none", label=title)
        alt_parts.append(f"{title}: " + ", ".join(f"{r.checkpoint} {render.number(r.total)} parameters, "
                                                  f"embeddings {render.number(r.by_kind['embeddings'])}" for r in rows))
    axes.set_xscale("log")
    axes.set_xlabel("parameters (log scale)")
    axes.set_ylabel("share in the embedding tables (%)")
    axes.set_ylim(0, None)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    axes.spines[["top", "right"]].set_visible(False)
    alt = "The embeddings' share of the parameters against the total, per checkpoint. " + "; ".join(alt_parts) + "."
    caption = ("The share of the parameters in the embedding tables falls as models grow: the tables grow with "
               "the width, the layers with its square. At one size a larger vocabulary raises it (the multilingual "
               "BERT checkpoints). Each point is a bundled checkpoint's main class, its numbers evaluated from the "
               "derivations at build time.")
    return _figure(_svg(figure, "families"), "families", alt, caption)


def render_figure(ref: str) -> str:
    """The HTML of ``<!-- figure:REF -->``; LookupError for an unknown REF."""
    from derivations import components, configs

    assert tuple(components.KINDS) == KINDS, "the kinds drawn are not the derivations' kinds"
    ref = ref.strip()
    if ref == "families":
        return families_figure()
    if ref in configs.family_modules():
        return family_figure(ref)
    raise LookupError(f"no figure {ref!r} (known: families, {', '.join(configs.family_modules())})")
