"""Pictures drawn at build time from the derivations (never by hand, never committed), each with a caption
that says where the numbers come from and a "show the numbers" table.

``<!-- figure:FAMILY -->`` shows where the parameters of a family's main class go on each of its
checkpoints: bars in HTML, whose text is the page's (readable on a phone, in either colour scheme), each
checkpoint linked to its row of the checkpoint table. ``<!-- figure:families -->`` shows how the
embeddings' share falls as models grow, across every family: SVG from matplotlib, inlined with alt
text, drawn narrow and in the page's text colour. The numbers are those of ``derivations.site.breakdown``,
the same expressions as the tables.
"""

from __future__ import annotations

import html
import io
import re
from functools import cache

from .. import components, registry, render
from ..storage import BINARY, in_unit
from . import breakdown, compute, memory
from .families import page_title

# matplotlib is imported where it is used (most of a second): a rebuild finds its pictures drawn already (the
# shortcodes hook's memo).


@cache
def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot

    return matplotlib.pyplot

KINDS = components.KINDS  # in the order the bars and the legends show them
# A marker and a colour per family, cycled: 13 markers and 15 colours (the ten of matplotlib's default cycle,
# then five more, none near black or white: the picture shows on both schemes), lengths without a common factor, give every one of the first 195 families a pair of its own.
# The home page's picture: each kind of model (derivations.contract.KINDS), its legend's name, marker and colour.
KIND_STYLES = {"encoder": ("Encoders", "o", "#1f77b4"), "encoder-decoder": ("Encoder-decoders", "s", "#2ca02c"),
               "decoder": ("Decoders", "^", "#d62728"), "vision": ("Vision", "D", "#9467bd")}
FAMILY_MARKERS = "osD^v<>p*hXP8"
FAMILY_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#e7ba52", "#6b6ecf", "#8c6d31", "#d6616b", "#637939"]


def _svg(figure, name: str) -> str:
    """The figure as an <svg> element: text kept as text (small, and searchable), ids salted by the
    figure's name (two figures on a page must not share ids) and no date (the build is reproducible)."""
    out = io.StringIO()
    plt = pyplot()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None}, transparent=True)
    plt.close(figure)
    svg = out.getvalue()
    return svg[svg.index("<svg"):]


def _figure(svg: str, name: str, alt: str, caption: str, after: str = "", before: str = "") -> str:
    svg = re.sub(r"<svg\b", f'<svg role="img" aria-label="{html.escape(alt)}"', svg, count=1)
    svg = re.sub(r'(<svg[^>]*?)\s(width|height)="[^"]*"', r"\1", svg, count=2)  # scale with the page
    # Black (text, axes) takes the page's text colour, and the background stays transparent: the picture
    # reads in the dark scheme as in the light one.
    svg = svg.replace("#000000", "currentColor")
    return (f'<figure class="dv-figure" id="figure-{name}" data-alt="{html.escape(alt)}">{svg}'
            f"{before}<figcaption>{caption}</figcaption>{after}</figure>")


def percent(share: float) -> str:
    """A share as a legend prints it: one decimal, and a share too small for one said so (never "0.0%" for
    a part that is there)."""
    if share == 0:
        return "0%"
    return "&lt;0.1%" if share < 0.0005 else f"{100 * share:.1f}%"  # HTML


def share_bar(row) -> str:
    """One model's count as a bar of HTML, a segment per kind, its width the kind's share; a segment wide
    enough for it prints its percentage (the legend prints every one). Text is the page's, so it reads at
    the page's size on a phone and in either colour scheme; a screen reader reads the label."""
    label = ", ".join(f"{kind} {percent(row.share(kind))}" for kind in KINDS)  # escaped already
    segments = "".join(
        f'<span class="dv-seg dv-k-{kind.replace("-", "")}" style="width:{100 * row.share(kind):.3f}%">'
        + (f"<span>{percent(row.share(kind))}</span>" if row.share(kind) >= 0.15 else "") + "</span>"
        for kind in KINDS if row.by_kind[kind])
    return f'<div class="dv-bar" role="img" aria-label="{label}">{segments}</div>'


def legend(row=None) -> str:
    """The kinds' colours; with a model, each kind's share and exact count as well."""
    items = []
    for kind in KINDS:
        swatch = f'<span class="dv-swatch dv-k-{kind.replace("-", "")}"></span>'
        value = (f' <strong>{percent(row.share(kind))}</strong> <span class="dv-count">{render.number(row.by_kind[kind])}'
                 "</span>") if row is not None else ""
        items.append(f"<li>{swatch}{kind}{value}</li>")
    return '<ul class="dv-legend">' + "".join(items) + "</ul>"


def numbers_table(rows, link=None) -> str:
    """The numbers of a picture as a table, each checkpoint's count per kind: "show the numbers"."""
    head = "".join(f"<th>{h}</th>" for h in ("checkpoint", "total", *KINDS))
    body = []
    for row in rows:
        name = f"<code>{html.escape(row.checkpoint)}</code>"
        if link:
            name = f'<a href="{link(row)}">{name}</a>'
        cells = [name, render.number(row.total)] + [render.number(row.by_kind[kind]) for kind in KINDS]
        body.append("<tr>" + "".join(f'<td{"" if i == 0 else " class=dv-r"}>{c}</td>' for i, c in enumerate(cells)) + "</tr>")
    return (f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(body) + "</tbody></table>")


def family_figure(name: str) -> str:
    """Stacked bars in HTML: the share of each kind of parameter in the family's main class, per checkpoint,
    with the numbers as a table beside them."""
    rows = breakdown.family(registry.family(name))
    architecture = rows[0].architecture
    bars = "".join(
        f'<div class="dv-bar-row"><div class="dv-bar-label"><a href="#checkpoint-{row.checkpoint}"><code>'
        f"{html.escape(row.checkpoint)}</code></a> {render.number(row.total)}</div>{share_bar(row)}</div>"
        for row in rows)
    caption = (f"Where the parameters of <code>{html.escape(architecture)}</code> go, per checkpoint (each name leads "
               "to its row of the checkpoint table). Drawn at build time from the derivation of this page, evaluated on "
               "each checkpoint's config.json.")
    return (f'<figure class="dv-figure dv-bars" id="figure-{name}">{legend()}{bars}'
            f"<figcaption>{caption}</figcaption>"
            f'<details class="dv-numbers"><summary>Show the numbers</summary>'
            f"{numbers_table(rows, lambda row: f'#checkpoint-{row.checkpoint}')}</details></figure>")


def _marker(marker: str, colour: str) -> str:
    """A matplotlib marker as a small inline SVG, for a legend written as HTML."""
    from matplotlib.markers import MarkerStyle
    from matplotlib.path import Path

    style = MarkerStyle(marker)
    path = style.get_path().transformed(style.get_transform())
    letters = {Path.MOVETO: "M", Path.LINETO: "L", Path.CURVE3: "Q", Path.CURVE4: "C", Path.CLOSEPOLY: "Z"}
    d = " ".join(letters[code] + ("" if code == Path.CLOSEPOLY else " " + " ".join(f"{v:.3f}" for v in points))
                 for points, code in path.iter_segments())
    return (f'<svg class="dv-marker" viewBox="-0.6 -0.6 1.2 1.2" aria-hidden="true">'
            f'<path d="{d}" fill="{colour}" transform="scale(1,-1)"/></svg>')


def _short(x: float) -> str:
    """A power of ten as a tick label: 10M, 100M, 1B, 10B..."""
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= size:
            return f"{x / size:g}{unit}"
    return f"{x:g}"


def families_figure() -> str:
    """The embeddings' share against the total, for every checkpoint of every family, on a log scale; drawn
    narrow with large text, so that on a phone, scaled to the screen, the text stays at least 12 px."""
    plt = pyplot()
    with plt.rc_context({"font.size": 13}):
        figure, axes = plt.subplots(figsize=(4.2, 3.2))
        alt_parts, keys, rows_by_family = [], [], breakdown.families()
        families = registry.families()
        # One marker and colour a kind of model (forty families would exhaust any palette a reader can tell apart);
        # the legend names each kind's families, and the table below gives every point.
        for kind, (label, marker, colour) in KIND_STYLES.items():
            names = [name for name in rows_by_family if families[name].kind == kind]
            if not names:
                continue
            links = ", ".join(f'<a href="{name}.html">{html.escape(page_title(name))}</a>' for name in names)
            keys.append(f"<li>{_marker(marker, colour)}{label}: {links}</li>")
            points = sorted((r for name in names for r in rows_by_family[name]), key=lambda r: r.total)
            # Points only: checkpoints differ in vocabulary as well as in size.
            axes.plot([r.total for r in points], [100 * r.share("embeddings") for r in points], marker=marker,
                      color=colour, linestyle="none", label=label, markersize=5, alpha=0.8)
            for name in names:
                rows = sorted(rows_by_family[name], key=lambda r: r.total)  # a family's checkpoints from the smallest
                alt_parts.append(f"{page_title(name)}: " + ", ".join(
                    f"{r.checkpoint} {render.number(r.total)} parameters, "
                    f"embeddings {render.number(r.by_kind['embeddings'])}" for r in rows))
        axes.set_xscale("log")
        # Tick labels as words (100M, 1B), not powers of ten, whose exponents would print at 70% of the text.
        axes.xaxis.set_major_formatter(plt.FuncFormatter(lambda x, _: _short(x)))
        axes.set_xlabel("parameters (log scale)")
        axes.set_ylabel("embeddings (% of parameters)")
        axes.set_ylim(0, None)
        axes.grid(True, which="major", alpha=0.3)
        axes.spines[["top", "right"]].set_visible(False)
        svg = _svg(figure, "families")
    alt = "The embeddings' share of the parameters against the total, per checkpoint. " + "; ".join(alt_parts) + "."
    caption = ("The share of the parameters in the embedding tables falls as models grow: the tables grow with "
               "the width, the layers with its square. At one size a larger vocabulary raises it (the multilingual "
               "BERT checkpoints). Each point is a bundled checkpoint's main class, marked by its kind of model, its "
               "numbers evaluated from the derivations at build time; the table below gives them, each checkpoint "
               "linked to its family's page.")
    rows = [row for rows in rows_by_family.values() for row in rows]
    family_of = {row.checkpoint: name for name, rows in rows_by_family.items() for row in rows}
    table = numbers_table(rows, lambda row: f"{family_of[row.checkpoint]}.html#checkpoint-{row.checkpoint}")
    # The legend is the page's text (the picture's own would shrink with it on a phone).
    return _figure(svg, "families", alt, caption,
                   f'<details class="dv-numbers"><summary>Show the numbers</summary>{table}</details>',
                   before=f'<ul class="dv-legend dv-markers">{"".join(keys)}</ul>')


def compute_figure() -> str:
    """The share of a forward's FLOPs in attention's two products (scores and weighted values) against the
    sequence length, for a few real models; the numbers (every split, exact) in a table below."""
    plt = pyplot()
    data = {checkpoint: compute.shares(checkpoint, architecture) for checkpoint, architecture in compute.SHARE_MODELS}
    with plt.rc_context({"font.size": 13}):
        figure, axes = plt.subplots(figsize=(4.2, 3.2))
        for i, (checkpoint, rows) in enumerate(data.items()):
            axes.plot([length for length, _, _ in rows], [100 * split["attention products"] / total
                                                          for _, total, split in rows],
                      marker=FAMILY_MARKERS[i], color=FAMILY_COLOURS[i], label=checkpoint, markersize=5)
        axes.set_xscale("log", base=2)
        # Every other length, in binary thousands (2K = 2,048 tokens), as sequence lengths are spoken of.
        ticks = list(compute.SHARE_LENGTHS[::2])
        axes.set_xticks(ticks, [f"{t // 1024}K" if t >= 1024 else str(t) for t in ticks])
        axes.minorticks_off()
        axes.set_xlabel("tokens in the sequence (log scale; 1K = 1,024)")
        axes.set_ylabel("attention products, %")
        axes.set_ylim(0, 100)
        axes.grid(True, which="major", alpha=0.3)
        axes.spines[["top", "right"]].set_visible(False)
        svg = _svg(figure, "compute")
    keys = "".join(f"<li>{_marker(FAMILY_MARKERS[i], FAMILY_COLOURS[i])}{html.escape(checkpoint)}</li>"
                   for i, checkpoint in enumerate(data))
    alt = ("The share of the forward FLOPs in attention's scores and weighted values against the sequence length. "
           + "; ".join(f"{checkpoint}: " + ", ".join(f"{render.number(length)} tokens "
                                                     f"{100 * split['attention products'] / total:.1f}%"
                                                     for length, total, split in rows[::2])
                       for checkpoint, rows in data.items()) + ".")
    caption = ("Attention's two products grow with the square of the sequence, everything else with the sequence: "
               "at a few hundred tokens they are a rounding error, at a hundred thousand most of the work. "
               "Forward FLOPs as the eager implementation computes them (the whole square); the causal half "
               "halves the products. Every number is evaluated from the derivations at build time.")
    head = "<tr><th>model</th><th>s</th><th>forward FLOPs</th>" + "".join(
        f"<th>{html.escape(k)}</th>" for k in ("attention products", "attention projections", "feed-forward", "head")
    ) + "</tr>"
    body = "".join(
        f"<tr><td>{html.escape(checkpoint)}</td><td>{render.number(length)}</td><td>{render.number(total)}</td>"
        + "".join(f"<td>{render.number(v)}</td>" for v in split.values()) + "</tr>"
        for checkpoint, rows in data.items() for length, total, split in rows[::2])
    table = f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"
    return _figure(svg, "compute", alt, caption,
                   f'<details class="dv-numbers"><summary>Show the numbers</summary>{table}</details>',
                   before=f'<ul class="dv-legend dv-markers">{keys}</ul>')


def memory_figure() -> str:
    """Weights, the key/value cache and activations against the sequence length, for three ways of caching
    (grouped-query, a sliding window, a latent); the numbers (exact bytes) in a table below."""
    plt = pyplot()
    data = {checkpoint: memory.picture(checkpoint, architecture) for checkpoint, architecture in memory.PICTURE_MODELS}
    styles = (("weights", 1, "-"), ("cache", 2, "--"), ("activations", 3, ":"))
    with plt.rc_context({"font.size": 13}):
        figure, axes = plt.subplots(figsize=(4.2, 3.4))
        for i, (checkpoint, rows) in enumerate(data.items()):
            for _, column, line in styles:
                axes.plot([r[0] for r in rows], [r[column] / 2**30 for r in rows], line, marker=FAMILY_MARKERS[i],
                          color=FAMILY_COLOURS[i], markersize=4)
        axes.set_xscale("log", base=2)
        axes.set_yscale("log", base=2)
        ticks = list(memory.PICTURE_LENGTHS[::2])
        axes.set_xticks(ticks, [f"{t // 1024}K" for t in ticks])
        axes.minorticks_off()
        axes.set_xlabel("tokens in the sequence (1K = 1,024)")
        axes.set_ylabel("GiB (log scale)")
        axes.grid(True, which="major", alpha=0.3)
        axes.spines[["top", "right"]].set_visible(False)
        svg = _svg(figure, "memory")
    keys = "".join(f"<li>{_marker(FAMILY_MARKERS[i], FAMILY_COLOURS[i])}{html.escape(checkpoint)}</li>"
                   for i, checkpoint in enumerate(data)) + "<li>solid: weights; dashed: cache; dotted: activations</li>"
    alt = ("Bytes held against the sequence length, bf16, batch 1. " + "; ".join(
        f"{checkpoint}: weights {in_unit(rows[0][1], BINARY)}, " + ", ".join(
            f"at {render.number(r[0])} tokens cache {in_unit(r[2], BINARY)} and activations {in_unit(r[3], BINARY)}"
            for r in rows[::3]) for checkpoint, rows in data.items()) + ".")
    caption = ("The weights stay; the cache grows with the sequence, at the rate each way of caching sets: Llama 3.2 1B "
               "keeps 8 key/value heads, Mistral 7B stops growing at its window, DeepSeek-V2-Lite keeps one latent. "
               "Activations (Korthikanti et al.'s formula with selective recomputation, a training step's) grow "
               "fastest. bf16, batch 1; evaluated from the derivations at build time.")
    head = "<tr><th>model</th><th>tokens</th><th>weights</th><th>cache</th><th>activations</th></tr>"
    body = "".join(f"<tr><td>{html.escape(checkpoint)}</td>" + "".join(f"<td>{render.number(v)}</td>" for v in r)
                   + "</tr>" for checkpoint, rows in data.items() for r in rows[::2])
    table = f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"
    return _figure(svg, "memory", alt, caption,
                   f'<details class="dv-numbers"><summary>Show the numbers (bytes)</summary>{table}</details>',
                   before=f'<ul class="dv-legend dv-markers">{keys}</ul>')


def render_figure(ref: str) -> str:
    """The HTML of ``<!-- figure:REF -->``; LookupError for an unknown REF."""
    ref = ref.strip()
    if ref == "families":
        return families_figure()
    if ref == "compute":
        return compute_figure()
    if ref == "memory":
        return memory_figure()
    if ref in registry.families():
        return family_figure(ref)
    raise LookupError(f"no figure {ref!r} (known: families, compute, memory, {', '.join(registry.families())})")
