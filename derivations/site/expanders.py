"""The HTML the derivations' shortcodes expand to: presentation, over the references the package resolves.

A page writes ``<!-- NAME:REFERENCE -->`` (:mod:`derivations.site.syntax`); the MkDocs hook calls
:func:`derivations.site.shortcodes.expand`, which finds the expander here (or a picture's, or a list of the
families') and fails the build on a ``LookupError``. Each number carries its reference (``data-ref``), which the
site test resolves again to check the page; the cells of a table are built from resolved objects.

Shortcodes here: ``eq`` (display formula), ``math`` (inline formula), ``sym`` (a symbol), ``num`` (a number),
``parts`` (a part's children, one row each), ``leaves`` (every leaf of a model), ``checkpoints``
(a family's checkpoint table), ``architectures`` (a family's classes on one checkpoint),
``notation`` (the notation table), ``miscount`` and ``rounded`` (reconciliations of published counts),
``verdict`` (the sentence that opens a miscount's entry),
``published`` (a table of rounded figures against exact counts), ``hypothesis`` (does one value of
one size reproduce several published figures?), ``calculator`` (a family's in-page calculator), ``cite``
(a source of :mod:`derivations.sources`, by key), ``sources`` (the sources page's list) and ``accelerators``
(the accelerators' table).
"""

from __future__ import annotations

import html
import json
from fractions import Fraction
import re
from collections.abc import Callable


from .. import configs, flops, registry, render, sources, storage, symbols
from ..claims import Hypothesis, Miscount, Rounded
from ..components import Part, evaluate
from . import breakdown, calculator, memory
from .references import Reference, Target, UnknownReference, family, formula_text, module, resolve

Tex = Callable[[str, bool], str]


def number(ref: Reference | Target) -> str:
    """A number as a page shows it, carrying its reference (the site test resolves it again)."""
    target = ref if isinstance(ref, Target) else resolve(ref)
    return f'<span class="dv-num" data-ref="{html.escape(target.ref)}">{target.text()}</span>'


def _math(tex: Tex, source: str, display: bool, ref: Reference | None = None) -> str:
    rendered = tex(source, display)
    tag = "div" if display else "span"
    attr = f' data-ref="{html.escape(str(ref))}"' if ref else ""
    return f'<{tag} class="dv-{"eq" if display else "math"}"{attr}>{rendered}</{tag}>'


def _table(head: list[str], rows: list[list[str]], caption: str = "", row_ids: list[str] | None = None) -> str:
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{caption}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>")
    ids = row_ids or [""] * len(rows)
    out += [(f'<tr id="{i}">' if i else "<tr>") + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
            for i, row in zip(ids, rows, strict=True)]
    out.append("</tbody></table>")
    return "\n".join(out)


def expand_eq(ref: Reference, tex: Tex, display: bool = True) -> str:
    return _math(tex, formula_text(ref), display, ref)


def expand_sym(text: str, tex: Tex) -> str:
    symbol = symbols.BY_NAME.get(text.strip())
    if symbol is None:
        raise UnknownReference(f"{text}: not a symbol of derivations.symbols")
    return _math(tex, render.latex(symbol), False)


def expand_parts(ref: Reference, tex: Tex) -> str:
    """One row per child of a part: what it is, its formula, and its count on a checkpoint."""
    target = resolve(ref)
    part = target.obj
    if not isinstance(part, Part) or not part.children:
        raise UnknownReference(f"{ref}: not a part with children")
    with_values = target.values is not None
    rows = []
    for child in part.children:
        below = target.below(child.name)  # a child reached through a repeated part counts every copy
        cells = [html.escape(child.label) + (f"<br><small>{html.escape(child.note)}</small>" if child.note else ""),
                 _math(tex, render.latex(below.expression), False)]
        if with_values:
            cells.append(number(below))
        rows.append(cells)
    rows.append(["<strong>total</strong>", _math(tex, render.latex(target.expression), False)]
                + ([f"<strong>{number(target)}</strong>"] if with_values else []))
    head = ["part", "parameters"] + ([f"on {html.escape(target.checkpoint)}"] if with_values else [])
    return _table(head, rows)


def expand_leaves(ref: Reference, tex: Tex) -> str:
    """Every leaf of a model, with the copies above it folded in: the command line's table."""
    target = resolve(ref)
    part = target.obj
    if not isinstance(part, Part) or target.values is None:
        raise UnknownReference(f"{ref}: needs a part and '@ CHECKPOINT'")
    modules = {qualified.split(".", 1)[1]: module for qualified, module in part.modules() if "." in qualified}
    rows = []
    for row in part.rows():
        leaf = target.leaf(row.name, row.expr)
        module = modules.get(row.name, "")
        name = f"<code>{html.escape(row.name)}</code>"
        rows.append([name + (f'<br><small class="dv-module">{html.escape(module)}</small>' if module else ""),
                     _math(tex, render.latex(leaf.expression), False), number(leaf)])
    rows.append(["<strong>total</strong>", "", f"<strong>{number(target)}</strong>"])
    return _table(["component<br><small>module in transformers</small>", "formula",
                   f"on {html.escape(target.checkpoint)}"], rows)


def expand_checkpoints(text: str, tex: Tex) -> str:
    """A family's bundled checkpoints: their sizes and the exact totals of its main classes.

    The family's ``table_columns`` map a name in the family module (a class, a part, an expression), with an
    optional unit (``"kaplan_error | percent"``), to its column header; ``FAMILY.COLUMNS`` takes another such
    mapping of the module instead."""
    name, _, columns = text.strip().partition(".")
    record = family(name)
    shown = getattr(module(name), columns, None) if columns else record.table_columns
    if not isinstance(shown, dict):
        raise UnknownReference(f"{text}: {columns} is not a mapping of columns")
    head = (["checkpoint"] + [_math(tex, render.latex(s), False) for s in record.table_symbols]
            + [f"<code>{header}</code>" for header in shown.values()])
    rows = []
    for checkpoint in record.checkpoints:
        # Each row has an anchor (checkpoint-NAME), its name the link to it: a count can be cited alone.
        cells = ([f'<a href="#checkpoint-{checkpoint}"><code>{checkpoint}</code></a>']
                 + [number(Reference(f"symbols.{s}", checkpoint)) for s in record.table_symbols])
        for column in shown:
            inside, _, unit = column.partition("|")
            cells.append(number(Reference(f"{name}.{inside.strip()}", checkpoint, unit=unit.strip() or None)))
        rows.append(cells)
    return _table(head, rows, row_ids=[f"checkpoint-{c}" for c in record.checkpoints])


def expand_compute(text: str, tex: Tex) -> str:
    """What a family's main class computes (derivations.flops): on each bundled checkpoint the forward of one
    sequence (whole and causal), a training step and the share of attention's products, at the longest sequence
    its position table allows, up to :data:`derivations.flops.TABLE_SEQUENCE`. (The formulas are the command
    line's, component by component; the pages are kept within their weight.)"""
    from ..symbols import P, s, s_d

    name = text.strip()
    record = family(name)
    main = breakdown.main_class(record, record.example)
    rows = []
    for checkpoint in record.checkpoints:
        part = breakdown.main_class(record, checkpoint)
        values = dict(registry.checkpoint(checkpoint).values)
        image = record.image_tokens is not None and flops.fixed_input(part)
        length = (evaluate(record.image_tokens, values) if image  # a class that reads an image alone: one image
                  else min(values.get(P, flops.TABLE_SEQUENCE), flops.TABLE_SEQUENCE))
        values |= {s: length, s_d: length}
        training = flops.training(part)
        forward, step = evaluate(training.forward, values), evaluate(training.step, values)
        needed = evaluate(flops.forward_needed(part), values)
        # Attention's products: what selective recomputation runs again.
        products = evaluate(training.selective_recomputation, values)
        rows.append([f"<code>{checkpoint}</code>", render.number(length), render.number(forward),
                     render.number(needed) if needed != forward else "the same", render.number(step),
                     f"{render.decimal(Fraction(100 * products, forward), 1)}%"])
    head = ["checkpoint", _math(tex, render.latex(s), False), "forward", "forward, causal half",
            "training step", "attention products"]
    one = ("one image (its patches and class token)" if record.image_tokens is not None and flops.fixed_input(main)
           else "one sequence")
    caption = (f"<code>{html.escape(main.name)}</code>: FLOPs of {one}, as the eager implementation computes "
               "them (the whole attention square); the causal half cuts a decoder's self-attention to the keys "
               "each query needs; a training step is the forward and a backward of twice its FLOPs.")
    return _table(head, rows, caption)


def _bytes(count: int) -> str:
    """Bytes as a table shows them: the exact number, and under it in decimal and binary units."""
    from ..storage import BINARY, DECIMAL, in_unit

    return f"{render.number(count)}<br><small>{in_unit(count, DECIMAL)}, {in_unit(count, BINARY)}</small>" if count else "none"


def expand_memory(text: str, tex: Tex) -> str:
    """What models hold (derivations.memory): ``family NAME`` (each bundled checkpoint of a family's main class:
    its weights in bf16 and int4, the key/value cache of one token and of a sequence), ``formats CHECKPOINT`` (its weights in every format), ``optimizers CHECKPOINT``
    (training state by optimizer), ``contexts CHECKPOINT`` (weights and cache at 8K, 32K and 128K tokens),
    ``fits CHECKPOINT`` (the longest context and largest batch on each accelerator), ``zero`` (ZeRO's stages on
    the paper's example), ``published`` (published figures read in their units), ``measured`` (a published
    measurement of peak memory beside the derivation) and ``quantized CHECKPOINT`` (its weights under each method
    of a config's quantization_config, and what one linear map holds under it)."""
    from .. import memory as held
    from ..symbols import P

    kind, _, argument = text.strip().partition(" ")
    argument = argument.strip()
    if kind == "family":
        record = family(argument)
        rows = []
        for checkpoint in record.checkpoints:
            part, config = breakdown.main_class(record, checkpoint), configs.load(checkpoint)
            values = dict(registry.checkpoint(checkpoint).values)
            tensors = held.evaluated(part, values)
            length = min(values.get(P, memory.TABLE_CONTEXT), memory.TABLE_CONTEXT)
            one, sequence = (held.cached(part, values, config, n) for n in (1, length))
            rows.append([f"<code>{checkpoint}</code>", _bytes(storage.weight_bytes(tensors, storage.FORMATS["bf16"])),
                         _bytes(storage.weight_bytes(tensors, storage.FORMATS["int4"])), _bytes(2 * one),
                         _bytes(2 * sequence) + (f"<br><small>at {render.number(length)}</small>"
                                                 if sequence and length != memory.TABLE_CONTEXT else "")])
        main = record.main
        head = ["checkpoint", "weights, bf16", "weights, int4", "cache, one token",
                f"cache, {render.number(memory.TABLE_CONTEXT)} tokens"]
        # Training with mixed-precision Adam is a multiple of the bf16 weights: said, not tabulated (page weight).
        training = storage.OPTIMIZERS["adam-mixed"].per_parameter // 2
        caption = (f"<code>{html.escape(main)}</code>: bytes it holds; int4 quantizes attention's and the "
                   "feed-forward's matrices in groups of 128 and keeps the rest at 16 bits; training with "
                   f"mixed-precision Adam holds {training} times the bf16 weights")
        if all(row[3] == "none" for row in rows):  # an encoder keeps no cache: no columns for it
            head, rows = head[:3], [row[:3] for row in rows]
            caption += "; an encoder keeps no key/value cache."
        else:
            caption += ("; the key/value cache in bf16, batch 1, as transformers keeps it (a sliding-window layer "
                        "keeps its window).")
        return _table(head, rows, caption)
    if kind == "quantized":
        from .. import answers, quantization

        config = dict(configs.load(argument))
        rows = []
        for example, per_map, replaced in memory.QUANTIZED:
            scheme = quantization.read({"quantization_config": example})
            held_bytes = answers.memory(config | {"quantization_config": example}, None, 1)["weights_bytes"]
            written = ", ".join(f"{k}: {json.dumps(v)}" for k, v in example.items() if k != "quant_method")
            rows.append([f"<code>{html.escape(example['quant_method'])}</code><br><small>{html.escape(written)}</small>",
                         html.escape(scheme.label), _math(tex, render.latex(per_map), False), html.escape(replaced),
                         _bytes(held_bytes)])
        architecture = registry.checkpoint(argument).architecture
        return _table(["quant_method", "what it stores", "one map's bytes", "what it replaces", "weights"], rows,
                      f"<code>{html.escape(architecture)}</code> on <code>{argument}</code> under each "
                      "quantization_config, the rest in bf16; one map's bytes for a linear map of n<sub>in</sub> "
                      "inputs and n<sub>out</sub> outputs, b the bits and g the group_size")
    if kind == "contexts":
        # The weights and the cache of one sequence at three lengths, in bf16: the first answer to "does it fit".
        resolved, config = registry.checkpoint(argument), configs.load(argument)
        weights = storage.weight_bytes(held.evaluated(resolved.part, resolved.values), storage.FORMATS["bf16"])
        rows = []
        for length in memory.OPENING_LENGTHS:
            cache = 2 * held.cached(resolved.part, dict(resolved.values), config, length)
            rows.append([render.number(length), _bytes(cache), _bytes(weights + cache)])
        # The weights are the same at every length: said once, in the caption.
        return _table(["tokens", "key/value cache", "weights + cache"], rows,
                      f"<code>{html.escape(resolved.architecture)}</code> on <code>{argument}</code> in bf16, one "
                      f"sequence: weights of {render.number(weights)} bytes, and the cache; the forward's own "
                      "tensors, the framework and the allocator come on top")
    if kind == "inference":
        # The inference total at three lengths, as the command line answers it (answers.memory, compiled).
        from .. import answers

        config, rows = configs.load(argument), []
        for length in memory.INFERENCE_LENGTHS:
            out = answers.memory(config, None, length)
            rows.append([render.number(length), _bytes(out["kv_cache_bytes"]), _bytes(out["transient_bytes"]),
                         _bytes(out["transient_forward_bytes"]), _bytes(out["inference_bytes"])])
        return _table(["tokens", "key/value cache", "transient peak", "bare forward's peak", "inference total"], rows,
                      f"<code>{html.escape(out['architecture'])}</code> on <code>{argument}</code> in bf16, one "
                      f"sequence, {out['attention']} attention: weights of {render.number(out['weights_bytes'])} "
                      "bytes, the cache, and the peak of generate's forward on the prompt (the last token's logits); "
                      "the bare forward's (every token's logits) beside it")
    if kind in ("formats", "optimizers"):
        resolved = registry.checkpoint(argument)
        tensors = held.evaluated(resolved.part, resolved.values)
        if kind == "formats":
            rows = [[f"<code>{name}</code>", fmt.label, _bytes(storage.weight_bytes(tensors, fmt))]
                    for name, fmt in storage.FORMATS.items()]
            return _table(["format", "what it stores", "weights"], rows,
                          f"<code>{html.escape(resolved.architecture)}</code> on <code>{argument}</code>")
        parameters = resolved.total
        rows = [[f"<code>{name}</code>", o.label, f"{o.weights} + {o.gradients} + {o.states} = {o.per_parameter}",
                 _bytes(o.per_parameter * parameters)] for name, o in storage.OPTIMIZERS.items()]
        eight = 8 * parameters + storage.adam_8bit_states([(size, copies) for size, copies, _ in tensors])
        rows.append(["<code>adam-8bit</code>", "Adam with bitsandbytes' 8-bit states, fp32 weights",
                     "4 + 4 + about 2 (per tensor)", _bytes(eight)])
        return _table(["optimizer", "what it keeps", "bytes a parameter", "training state"], rows,
                      f"<code>{html.escape(resolved.architecture)}</code> on <code>{argument}</code>")
    if kind == "zero":
        psi, n = storage.ZERO_EXAMPLE_PARAMETERS, storage.ZERO_EXAMPLE_DEVICES
        names = ["no partition", "stage 1: optimizer states", "stage 2: and gradients", "stage 3: and weights"]
        rows = [[label, _bytes(storage.zero(psi, n, stage))] for stage, label in enumerate(names)]
        return _table(["ZeRO", "model states a device"], rows,
                      f"{render.number(psi)} parameters on {n} devices, mixed-precision Adam")
    if kind == "fits":
        # fit on every accelerator of the table (answers.fit, as the command line answers it).
        from .. import answers

        answer = answers.fit(configs.load(argument))
        eager = answers.fit(configs.load(argument), attention="eager")

        def longest(card: dict) -> str:
            tokens = card["max_tokens"]
            return "none" if tokens is None else render.number(tokens) + {
                "memory": "", "positions": " (its positions)", "longest": " or more"}[card["max_tokens_limit"]]

        rows = [[html.escape(card["name"]), _bytes(card["memory_bytes"]), longest(card),
                 "none" if card["max_batch"] is None else render.number(card["max_batch"]), longest(other)]
                for card, other in zip(answer["accelerators"], eager["accelerators"])]
        return _table(["accelerator", "memory", f"longest context, one sequence ({answer['attention']})",
                       f"largest batch at {render.number(answer['seq'])} tokens", "longest context, eager"], rows,
                      f"<code>{html.escape(answer['architecture'])}</code> on <code>{argument}</code> in "
                      f"{answer['dtype']}: weights, key/value cache and the forward's transient peak within each "
                      f"memory (<code>derivations fit</code>), under {answer['attention']} attention, and eager")
    if kind == "measured":
        # Qwen's published peaks beside the weights and the cache the last step holds, and the forward on the prompt
        # (weights, the input's cache, the transient peak) under sdpa and under eager attention.
        rows = [[render.number(tokens), f"“{printed}”<br><small>GiB</small>",
                 _bytes(derived), _bytes(sdpa), _bytes(eager),
                 f"{storage.in_unit(exact - max(derived, sdpa), storage.BINARY)}"]
                for tokens, cached_tokens, printed, exact, derived, sdpa, eager in memory.measured()]
        return _table(["input tokens", "measured peak", "weights + cache at the last step",
                       "the prompt's forward, sdpa", "the prompt's forward, eager", "the rest"], rows,
                      "Qwen2.5-7B-Instruct in BF16, flash attention, batch 1, "
                      f"{render.number(memory.MEASURED_GENERATED)} generated tokens: Qwen's peak; the weights and "
                      "cache of the last step; the inference total of the forward on the prompt under sdpa and "
                      "eager; the rest, beyond the larger under sdpa, is CUDA's and the rounding")
    if kind == "published":
        rows = [[f"“{html.escape(p.printed)}”", html.escape(p.claim), sources.cite(p.source, ""),
                 html.escape(p.reading), render.number(p.exact), html.escape(p.right)] for p in memory.published()]
        return _table(["printed", "for", "source", "what it is", "the exact number", "the model's figure"], rows)
    raise UnknownReference(f"memory:{text}: write memory:family NAME, contexts CHECKPOINT, formats CHECKPOINT, "
                           "optimizers CHECKPOINT, fits CHECKPOINT, zero, published or measured")


def expand_architectures(text: str, tex: Tex) -> str:
    """Every class of a family on one checkpoint: what it adds to the body, and its total."""
    match = re.fullmatch(r"\s*(\w+)\s*@\s*([\w.-]+)\s*", text)
    if not match:
        raise UnknownReference(f"{text}: write FAMILY @ CHECKPOINT")
    name, checkpoint = match[1], match[2]
    rows = [[f"<code>{architecture}</code>", html.escape(part.label),
             number(Reference(f"{name}.{architecture}", checkpoint))]
            for architecture, part in family(name).architectures.items()]
    return _table(["class", "what it holds", f"parameters on {html.escape(checkpoint)}"], rows)


def expand_notation(ref: Reference, tex: Tex) -> str:
    notation = resolve(ref).obj
    if not isinstance(notation, tuple) or not all(isinstance(n, symbols.Notation) for n in notation):
        raise UnknownReference(f"{ref}: not a tuple of Notation")
    rows = [[_math(tex, render.latex(n.symbol), False), html.escape(n.meaning),
             ", ".join(f"<code>{f}</code>" for f in n.hf_fields), html.escape(n.elsewhere)]
            for n in notation]
    return _table(["symbol", "meaning", "config.json", "elsewhere"], rows)


def expand_sizes(text: str, tex: Tex) -> str:
    """The sizes a family's counts are written in, each with its meaning and its config field, in the notation
    page's order: for a page that uses symbols another page introduces."""
    from .. import registry

    family = registry.families().get(text.strip())
    if family is None:
        raise UnknownReference(f"sizes:{text}: no such family")
    used = set().union(*(part.total.free_symbols for variant in (*family.variants.values(), *family.active.values())
                         for part in variant.values()))
    rows = [[_math(tex, render.latex(n.symbol), False), html.escape(n.meaning),
             ", ".join(f"<code>{f}</code>" for f in n.hf_fields)] for n in symbols.NOTATION if n.symbol in used]
    table = _table(["symbol", "meaning", "config.json"], rows,
                   'The sizes this page&rsquo;s formulas are written in (all of them: <a href="notation.html">Notation</a>)')
    # The notation page's rows again: search finds them there, not on every page that repeats them.
    return f"<div data-search-exclude>{table}</div>"


def _miscount(ref: Reference) -> Miscount:
    item = resolve(ref).obj
    if not isinstance(item, Miscount):
        raise UnknownReference(f"{ref}: not a Miscount")
    item.check()
    return item


def expand_miscount(ref: Reference, tex: Tex) -> str:
    item = _miscount(ref)
    claim, on = ref.at(None), ref.at(item.checkpoint)
    printed = f" (printed “{html.escape(item.printed)}”)" if item.printed else ""
    rows = [["claimed", f"{item.what}<br><small>source: {item.source.html()}</small>", number(claim.child("claim")) + printed],
            ["exact", html.escape(item.correct.label), number(on.child("correct"))]]
    if item.reconstruction is not None:
        rows.append(["the claim's arithmetic, rebuilt",
                     _math(tex, render.terms(item.reconstruction), False), number(on.child("reconstruction"))])
    parts = [_table(["", "what", "parameters"], rows)]
    if item.terms:
        term_rows = [[html.escape(t.label), _math(tex, render.latex(t.total), False),
                      number(on.child("difference", t.name))] for t in item.terms]
        term_rows.append(["<strong>exact − claimed</strong>", "", f"<strong>{number(on.child('difference'))}</strong>"])
        parts.append(_table(["the difference, term by term", "formula", "parameters"], term_rows))
    return '<div class="dv-miscount">' + "\n".join(parts) + "</div>"


def _as_published(ref: Reference, item: Miscount) -> str:
    """The claim as its source gives it: the rounded figure it prints, or the number."""
    return f"“{html.escape(item.printed)}”" if item.printed else number(ref.at(None).child("claim"))


def _judged(ref: Reference) -> Miscount:
    """A miscount with what a verdict says of it: its model and its cause."""
    item = _miscount(ref)
    if not (item.model and item.cause):
        raise UnknownReference(f"{ref}: a miscount needs its model and its cause for a verdict")
    return item


def verdict(ref: Reference) -> str:
    """A miscount in one sentence, from its data: "T5-Large (t5-large) has 737,668,096 parameters, not “770M”:
    770M is reached only by ..." (or "..., as published, but ..." when the number is right and what the source
    says of it is not)."""
    item = _judged(ref)
    exact = number(ref.at(item.checkpoint).child("correct"))
    against = "as published, but" if item.right else f"not {_as_published(ref, item)}:"
    subject = item.model[0].upper() + item.model[1:]  # "the encoder of ..." opens a sentence
    return f"{subject} has {exact} parameters, {against} {item.cause}."


def expand_verdict(ref: Reference, tex: Tex) -> str:
    """The bold sentence that opens a miscount's entry; the table of differences (``miscount``) follows it."""
    return f'<p class="dv-verdict"><strong>{verdict(ref)}</strong></p>'


def mistakes(entries: list[tuple[Reference, str, str]]) -> str:
    """The summary of the common mistakes: one row per miscount, given as (reference, link to its entry, id of
    the row): the claim as published (the link), the model, its exact count and the cause."""
    rows = []
    for ref, href, _ in entries:
        item = _judged(ref)
        rows.append([f'<a href="{html.escape(href)}">{_as_published(ref, item)}</a>', item.model,
                     number(ref.at(item.checkpoint).child("correct")), item.cause])
    # A table without a class of its own, so that the theme's and the site's styles for tables apply.
    table = _table(["claim, as published", "model", "exact count", "cause"], rows,
                   row_ids=[html.escape(anchor) for _, _, anchor in entries])
    return f'<div class="dv-mistakes">{table}</div>'


def expand_rounded(ref: Reference, tex: Tex) -> str:
    item = resolve(ref).obj
    if not isinstance(item, Rounded):
        raise UnknownReference(f"{ref}: not a Rounded claim")
    on = _on_claim(ref, item)  # its checkpoint with the claim's overrides (ViT-L/32's patches), as the claim counts
    rows = [[f"<code>{html.escape(candidate.name)}</code>", number(on.child("candidates", i)), number(on.child("gaps", i))]
            for i, candidate in enumerate(item.candidates)]
    caption = f"“{html.escape(item.what)}”, {item.source.html()}"
    return _table([f"what could be counted on <code>{item.checkpoint}</code>", "exact",
                   f"claim ({number(ref.at(None).child('claim'))}) − exact"], rows, caption)


def _on_claim(ref: Reference, claim: Rounded, **extra: int) -> Reference:
    """``ref`` evaluated as the claim evaluates its candidates (its checkpoint and overrides), with
    ``extra`` overrides on top."""
    overrides = {str(symbol): value for symbol, value in claim.overrides.items()} | extra
    return ref.at(claim.checkpoint, tuple(overrides.items()))


def _both(number: str, mark: str) -> str:
    """A count and its mark, kept on one line."""
    return f'<span class="dv-nowrap">{number}&nbsp;{mark}</span>'


def _mark(ok: bool) -> str:
    return ('<span class="dv-yes" title="rounds to the published figure">✓</span>' if ok else
            '<span class="dv-no" title="does not round to the published figure">✗</span>')


def _claims(ref: Reference) -> tuple[tuple[Reference, Rounded], ...]:
    """A Rounded, or a tuple of them, with the reference of each."""
    obj = resolve(ref).obj
    if isinstance(obj, Rounded):
        return ((ref, obj),)
    if isinstance(obj, tuple) and obj and all(isinstance(c, Rounded) for c in obj):
        return tuple((ref.child(i), c) for i, c in enumerate(obj))
    raise UnknownReference(f"{ref}: not a Rounded claim or a tuple of them")


def expand_published(ref: Reference, tex: Tex) -> str:
    """Rounded figures as published, one row each, against each exact count they could mean (one
    column per candidate, ✓ where it rounds to the figure), with the gap where there is one candidate.

    A column whose rows all count the same thing says so in its heading; where the rows count different
    things (a total, then a count without the embeddings), each cell says what its count is."""
    claims = _claims(ref)
    width = len(claims[0][1].candidates)
    if any(len(c.candidates) != width for _, c in claims):
        raise UnknownReference(f"{ref}: the claims have different numbers of candidates")
    shared = [len({c.candidates[i].label for _, c in claims}) == 1 for i in range(width)]
    head = ["as published", "printed"] + [html.escape(claims[0][1].candidates[i].label) if shared[i] else
                                          "exact count" if width == 1 else f"exact count, reading {i + 1}"
                                          for i in range(width)]
    if width == 1:
        head.append("published − exact")
    rows = []
    for claim_ref, claim in claims:
        on = _on_claim(claim_ref, claim)
        cells = [f"{html.escape(claim.what)}", html.escape(claim.printed) or number(claim_ref.child("claim"))]
        for i, candidate in enumerate(claim.candidates):
            counted = _both(number(on.child("candidates", i)), _mark(claim.rounds(i)))
            cells.append(counted if shared[i] else
                         f'<span class="dv-counts">{html.escape(candidate.label)}</span><br>{counted}')
        if width == 1:
            cells.append(number(on.child("gaps", 0)))
        rows.append(cells)
    source = claims[0][1].source
    caption = f"Source: {source.html()}" if all(c.source == source for _, c in claims) else ""
    return _table(head, rows, caption)


def expand_hypothesis(ref: Reference, tex: Tex) -> str:
    """Each claim, its exact count, its count under the hypothesis, and every value of the symbol that
    would reproduce it; the last row, the values that reproduce them all."""
    item = resolve(ref).obj
    if not isinstance(item, Hypothesis):
        raise UnknownReference(f"{ref}: not a Hypothesis")
    item.check()
    symbol = _math(tex, render.latex(item.symbol), False)
    # A column for the supposed value, unless every claim's config already has it (then "exact" is it).
    supposed = item.value is not None and any(c.values()[item.symbol] != item.value for c in item.claims)
    head = ["as published", "printed", "exact"]
    if supposed:
        head.append(f"with {symbol} = {number(ref.child('value'))}")
    head.append(f"{symbol} that reproduces it")

    def span(at: Reference, value: tuple[int, int] | None) -> str:
        return "none" if value is None else f"{number(at.child(0))} to {number(at.child(1))}"

    rows = []
    for i, claim in enumerate(item.claims):
        claim_ref = ref.child("claims", i)
        cells = [html.escape(claim.what), html.escape(claim.printed) or number(claim_ref.child("claim")),
                 _both(number(_on_claim(claim_ref, claim).child("candidates", 0)), _mark(claim.rounds()))]
        if supposed:
            with_value = _on_claim(claim_ref, claim, **{str(item.symbol): item.value})
            cells.append(_both(number(with_value.child("candidates", 0)), _mark(item.reproduces(claim))))
        cells.append(span(ref.child("ranges", i), item.ranges[i]))
        rows.append(cells)
    rows.append(["<strong>all of them</strong>", "", ""] + ([""] if supposed else [])
                + [f"<strong>{span(ref.child('common'), item.common)}</strong>"])
    caption = f"Hypothesis: {item.statement}. Source of the figures: {item.claims[0].source.html()}"
    return _table(head, rows, caption)


def expand_calculator(text: str, tex: Tex) -> str:
    """The calculator's form for a family: a checkpoint to start from, the class, one input per size, the
    rules it applies (those transformers applies, as the page states them), and where the page's script
    shows the total (above the table, in view on a phone) and every component (derivations/site/calculator.py
    generates the arithmetic)."""
    name = text.strip()
    record = family(name)
    classes = list(record.architectures)
    main = next((c for c in record.table_columns if c in classes), classes[0])
    # The checkpoints in the layout the calculator counts (not Llama 3.2, tied; not T5 1.1, gated).
    presets = calculator.presets(record)
    start = next(iter(presets.values()))
    sequence = flops.TABLE_SEQUENCE
    meaning = {n.symbol: n.meaning for n in symbols.NOTATION}
    option = '<option value="{0}"{1}>{0}</option>'.format
    inputs = "\n".join(
        f'<label title="{html.escape(meaning[s])}">{_math(tex, render.latex(s), False)} '
        f'<input name="{s}" inputmode="numeric" value="{start[str(s)]}" aria-label="{html.escape(meaning[s])}"></label>'
        for s in calculator.sizes(record))
    # The script copies a rule's words beside the field it concerns when the rule fails (data-rule: its
    # place in the family's rules on the form's sizes, and in the generated script's list).
    stated = [f"<li>{line}.</li>" for line in calculator.derived_text(record)] + [
        f'<li data-rule="{i}">{calculator.text_html(rule.text)}</li>' for i, rule in enumerate(calculator.rules(record))]
    rules = ('<div class="dv-calc-rules"><p>The sizes, as transformers takes them:</p><ul>' + "".join(stated)
             + "</ul></div>\n") if stated else ""
    active = ('<p class="dv-calc-summary">active per token <strong class="dv-calc-active"></strong> parameters'
              '<span class="dv-calc-active-more"></span></p>' if calculator.active(record) else "")
    head = "".join(f"<th>{h}</th>" for h in ("component", "one copy", "copies", "parameters", "share",
                                              '<span class="dv-calc-dtype">bf16</span> bytes'))
    # The data type of the bytes (derivations.storage.FORMATS: those that store every tensor at one width).
    types = "".join(f'<option value="{name}" data-bits="{bits}"{" selected" if name == "bf16" else ""}>{name}</option>'
                    for name, bits in calculator.data_types().items())
    caches = any(calculator.cache_elements(record, c) != 0 for c in classes)
    return (
        f'<form class="dv-calculator" id="calc-{html.escape(name)}" data-family="{html.escape(name)}" autocomplete="off">\n'
        '<div class="dv-calc-controls">'
        # "custom sizes" shows once the sizes are no checkpoint's; a reader cannot pick it.
        '<label>start from <select name="preset"><option value="" disabled hidden>custom sizes</option>'
        + "".join(option(c, " selected" if i == 0 else "") for i, c in enumerate(presets))
        + '</select></label> <label>class <select name="class">'
        + "".join(option(c, " selected" if c == main else "") for c in classes)
        + '</select></label> <label>data type <select name="dtype">' + types + "</select></label></div>\n"
        f'<div class="dv-calc-sizes">{inputs}</div>\n{rules}'
        '<div class="dv-calc-result">\n<p class="dv-calc-message" aria-live="polite" hidden></p>\n'
        '<p class="dv-calc-summary" aria-live="polite">total <strong class="dv-calc-total"></strong> parameters'
        f'<span class="dv-calc-total-more"></span></p>{active}\n'
        # What the class computes over a sequence of that many tokens (derivations.flops; the compute page), or for
        # one image of the sizes' patches (a model that reads images: its FLOPs are the image's, per image).
        '<p class="dv-calc-summary dv-calc-compute">forward <strong class="dv-calc-flops"></strong> FLOPs '
        + ('for one image<input name="seq" type="hidden" value="1" data-unit="image">' if calculator.reads_images(record)
           else f'over <label><input name="seq" inputmode="numeric" value="{sequence}" size="7" '
                'aria-label="tokens in the sequence"> tokens</label>')
        + '<span class="dv-calc-flops-more"></span> (<a href="compute.html">how</a>)</p>\n'
        # What the key/value cache holds over those tokens (derivations.memory; the memory page).
        + ('<p class="dv-calc-summary dv-calc-memory">key/value cache <strong class="dv-calc-cache"></strong> bytes'
           '<span class="dv-calc-cache-more"></span> (<a href="memory.html">how</a>)</p>\n' if caches else "")
        + f'<div class="dv-calc-scroll"><table class="dv-calc-table"><thead><tr>{head}</tr></thead><tbody></tbody>'
        "</table></div>\n</div>\n"
        '<p class="dv-calc-rules">A config.json of your own? <a href="config.html">Paste it</a> and count it as the '
        "command line does.</p>\n"
        "<noscript><p>The calculator runs in the page (JavaScript); the tables above give every count for "
        "the bundled checkpoints, and <code>python -m derivations count</code> any other.</p></noscript>\n"
        "</form>")


def expand_accelerators(text: str, tex: Tex) -> str:
    """``<!-- accelerators:table -->``: every accelerator of derivations/accelerators.py, each figure as its vendor
    writes it and as the exact number read from it, with where it is written."""
    from .. import accelerators

    if text.strip() != "table":
        raise UnknownReference(f"accelerators:{text}: write accelerators:table")
    rows = [[html.escape(f"{a.vendor} {a.name}"),
             f"“{html.escape(a.memory)}”<br>{_bytes(a.memory_bytes)}",
             # None: the vendor's text states no dense rate (a rate with sparsity only is not halved into one).
             f"not stated by {html.escape(a.vendor)}" if a.bf16 is None
             else f"“{html.escape(a.bf16)}”<br>{render.number(a.bf16_flops)} FLOP/s",
             f"“{html.escape(a.bandwidth)}”<br>{render.number(a.bandwidth_bytes)} bytes/s",
             sources.cite(a.source, html.escape(a.locator))]
            for a in accelerators.ACCELERATORS.values()]
    return _table(["accelerator", "memory", "dense bf16 peak", "memory bandwidth", "where the vendor writes it"],
                  rows, "Accelerators, as their vendors state them")


def expand_cite(text: str, tex: Tex) -> str:
    """``<!-- cite:KEY -->`` or ``<!-- cite:KEY where in it -->``: a source of derivations/sources.py."""
    key, _, locator = text.strip().partition(" ")
    return sources.cite(key, html.escape(locator.strip()))


def expand_sources(text: str, tex: Tex) -> str:
    """``<!-- sources:all -->``: every source, by category, each under an anchor of its key."""
    if text.strip() != "all":
        raise UnknownReference(f"sources:{text}: write sources:all")
    return sources.page()
