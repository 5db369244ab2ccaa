"""The derivations compiled to plain Python, so that the command line need not import SymPy.

Importing SymPy takes about 0.3 s, several times everything else a ``count`` does. So the first count
of a model_type after any change to the package compiles that family's architectures, in every
layout (name, LaTeX, formula, and the count as a polynomial in the symbols), and keeps the result
(:mod:`derivations.cache`: valid for one state of the source, as Python's .pyc files are); later runs
evaluate those polynomials with Python integers. A family is kept in three sections, so that a command
reads only what it shows: ``count`` (the base class, the component rows, the active count), ``flops`` and
``memory``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from math import prod

from . import cache

# What each section holds: the keys of compile_section's result for it.
SECTIONS = {"count": ("base", "variants", "active", "image_tokens", "image_only"), "flops": ("flops",), "memory": ("memory", "transient"),
            "split": ("split",)}


def compile_section(model_type: str, name: str) -> dict:
    """One section of a model_type's compiled family (:data:`SECTIONS`): its keys, per layout variant and
    architecture where they vary."""
    from . import registry

    family = registry.of_model_type(model_type)

    def each(build) -> dict:
        return {variant: {name: build(part) for name, part in architectures.items()}
                for variant, architectures in family.variants.items()}

    if name == "count":
        return {"base": family.base,
                "variants": each(rows),
                # A model that reads images: the tokens one image is, as a polynomial in its sizes (None: tokens),
                # and the classes that read an image alone (their FLOPs hold no length), by layout.
                "image_tokens": None if family.image_tokens is None else terms(family.image_tokens),
                "image_only": {variant: [name for name in architectures if image_only(family, variant, name)]
                               for variant, architectures in family.variants.items()},
                # Mixtures of experts: the count of the parameters one token uses, as a polynomial.
                "active": {variant: {name: terms(active) for name in architectures
                                     if (active := active_part(family, variant, name)) is not None}
                           for variant, architectures in family.variants.items()}}
    if name == "flops":
        # What each class computes: one row per component (derivations.flops), in the sequence length s
        # (and s_d, an encoder-decoder's target length), and for one generated token.
        return {"flops": each(flop_rows)}
    if name == "split":
        # Where each class may be split (derivations.sharding): each tensor's layer and cuts, each cache's cut.
        return {"split": each(split_rows)}
    # What each class holds (derivations.memory): its tensors, and what a token leaves in the cache; and what its
    # forward holds at inference beyond them (derivations.transient).
    # The transient moments, the same in most layouts, are kept once: a class's rows name them by their index.
    assert name == "memory", name
    import json

    distinct: dict[str, int] = {}

    # Each class's forward under eager attention, and under sdpa (transformers' default where a model supports it).
    def transient_index(variant: str, name: str, attention: str = "eager") -> int:
        rows = transient_rows(family, variant, name, attention)
        return distinct.setdefault(json.dumps(rows, sort_keys=True), len(distinct))

    held = {variant: {name: memory_rows(part, model_type) | {"transient": transient_index(variant, name),
                                                            "transient_sdpa": transient_index(variant, name, "sdpa")}
                      for name, part in architectures.items()}
            for variant, architectures in family.variants.items()}
    return {"memory": held, "transient": [json.loads(text) for text in distinct]}


# What a class without a derived forward at inference answers instead of a transient peak. (A mixture's derived
# classes answer the most any routing holds: derivations.transient.WORST.)
NO_TRANSIENT = "transient peak not derived for this class yet"
# ... and under sdpa attention, where eager's is derived (the answer is then eager's, and says so).
NO_SDPA = "the forward under sdpa attention is not derived for this class yet"


def transient_rows(family, variant: str, name: str, attention: str = "eager") -> dict:
    """The moments of the class's forward at inference (derivations.transient) as polynomials: ``forward`` (the
    bare forward) and ``generate`` (generate's forward on the prompt; None for a class that does not generate);
    ``even``, the sizes it assumes even, ``requires``, the config fields it assumes (field, default, values),
    ``products``, the products of sizes it assumes (a, b, c: a b = c), ``derived``, the sizes it reads from a
    config's fraction of another (size, field, default, of), ``flags``, the conditions it reads from the config
    (symbol, field, default, value), ``fp16``, why fp16 runs another forward ("" where it does not), ``at_least``,
    the sizes it needs at least (name, a number or a size's name), ``matches``, the config fields that must equal a
    size (field, default, size), ``window``, the field (and default) of a sliding mask's window the model builds
    whatever its layers (None), ``bound``, where the moments are the most of what the forward's input decides (a
    mixture's routing), what they are, ``counts``, config fields read as sizes (name, field, default); or
    ``refused``: why there are none. ``attention``: eager's, or sdpa's (derivations.transient.ATTENTIONS)."""
    if attention == "sdpa":
        derived = family.transient_sdpa.get(variant, {}).get(name)
        if derived is None:
            return {"refused": family.no_sdpa or NO_SDPA}
    else:
        derived = family.transient.get(variant, {}).get(name)
    if derived is None:
        return {"refused": NO_TRANSIENT}
    # A family's layouts often share one forward (the same Transient object): its polynomials are made once.
    held = _TRANSIENT_ROWS.get(id(derived))
    if held is None or held[0] is not derived:
        held = _TRANSIENT_ROWS[id(derived)] = (derived, _transient_terms(derived))
    return held[1]


# id(Transient) -> (the Transient, kept alive so that its id is not reused; its rows).
_TRANSIENT_ROWS: dict[int, tuple] = {}


def _transient_terms(derived) -> dict:
    """:func:`transient_rows` of one derived forward."""
    return {"forward": [terms(m) for m in derived.forward],
            "generate": None if derived.generate is None else [terms(m) for m in derived.generate],
            "even": list(derived.even),
            "requires": [[field, default, list(accepted)] for field, default, accepted in derived.requires],
            "products": [list(names) for names in derived.products],
            "derived": [list(rule) for rule in derived.derived],
            "flags": [list(flag) for flag in derived.flags], "fp16": derived.fp16,
            "at_least": [list(least) for least in derived.at_least],
            "matches": [list(match) for match in derived.matches],
            "window": None if derived.window is None else list(derived.window),
            **({"bound": derived.bound} if derived.bound else {}),
            **({"counts": [list(count) for count in derived.counts]} if derived.counts else {})}


def memory_rows(part, model_type: str = "") -> dict:
    """Every tensor of ``part`` (size, copies, whether a 4-bit format quantizes it) and every attention block
    that caches (elements a token per copy, copies, whether it is cross-attention), as polynomials; and, beside each
    tensor, the module a config's quantizer would replace (derivations.memory.Module: path, role, shape, linear,
    conv1d, experts, output, numbered), None where it is no linear map's."""
    from . import memory

    held = memory.tensors(part, model_type)
    return {"tensors": [[terms(t.size), terms(t.copies), t.quantizable] for t in held],
            "modules": [None if (m := t.module) is None else
                        [m.path, m.role, [terms(x) for x in m.shape], m.linear, m.conv1d, m.experts, m.output,
                         m.numbered] for t in held],
            # A cross-attention over a fixed count of rows (Whisper's frames) gives that count in place of true.
            "cache": [[terms(r.per_copy), terms(r.copies), r.cross if r.source is None else terms(r.source)]
                      for r in memory.cache_rows(part)]}


def split_rows(part) -> dict:
    """For each tensor of ``part`` (memory_rows' order) its layer (name, copies) and its cuts under tensor
    parallelism ([elements, slices, kind] each), and for each caching block its cut ([slices, kind], or None), as
    polynomials."""
    from . import memory, sharding

    layers, cuts = sharding.layers(part), sharding.cuts(part)
    assert len(layers) == len(cuts) == len(memory.tensors(part)), part.name
    return {"layers": [[layer.name, terms(layer.copies)] for layer in layers],
            "cuts": [[[terms(size), terms(count), kind] for size, count, kind in pieces] for pieces in cuts],
            "cache": [None if c is None else [terms(c.count), c.kind] for c in sharding.cache_cuts(part)]}


def flop_rows(part) -> list[dict]:
    """One row per component of ``part``'s forward FLOPs: dotted name, LaTeX, formula, the FLOPs of one
    sequence as a polynomial, the causal half where there is one, and what recomputation runs again; and one
    generated token's FLOPs (per key and copy for a causal self-attention product, with its copies)."""
    from . import flops, render

    return [{"name": row.name, "latex": render.latex(row.expr), "formula": str(row.expr), "terms": terms(row.expr),
             "causal": None if row.causal is None else terms(row.causal), "in_layer": row.in_layer,
             "product": row.product, "decode": terms(row.decode),
             "copies": None if row.copies is None else terms(row.copies)}
            for row in flops.rows(part)]


def image_only(family, variant: str, name: str) -> bool:
    """The class reads an image alone: its family reads images and its FLOPs hold no length (s, s_d)."""
    from . import flops

    return family.image_tokens is not None and flops.fixed_input(family.variants[variant][name])


def active_part(family, variant: str, name: str):
    """The parameters one token uses, for a class with experts (None otherwise): the family's own ``active``
    counts where it declares them (experts stacked in tensors, as Mixtral's in transformers 5.x), else
    components.active_per_token, which cuts a repeat over the experts."""
    from .components import active_per_token
    from .symbols import X, X_a

    part = family.variants[variant][name]
    if X not in part.total.free_symbols:
        return None  # no experts (a family's class without them: Llama 4's vision tower alone)
    if family.active:
        return family.active[variant][name]
    active = active_per_token(part, X, X_a)
    # Experts stacked in tensors (X a factor of a leaf, not a repeat) are not cut: the family must say.
    assert active.total != part.total, f"{name}: no expert repeat to cut; declare its active counts"
    return active


def terms(part_or_expr) -> list:
    """An expression (or a part's total) as a polynomial: [[coefficient, {symbol: power}], ...]."""
    import sympy

    expr = sympy.expand(getattr(part_or_expr, "total", part_or_expr))
    if not expr.free_symbols:
        return [[str(expr), {}]] if expr != 0 else []
    polynomial = sympy.Poly(expr, *sorted(expr.free_symbols, key=str))
    return [[str(c), {str(s): int(k) for s, k in zip(polynomial.gens, powers) if k}]
            for powers, c in polynomial.terms()]


def rows(part) -> list[dict]:
    """One row per leaf of ``part``: dotted name, LaTeX, formula, and the count as a polynomial."""
    import sympy

    from . import render

    out = []
    for row in part.rows():
        expr = sympy.expand(row.expr)
        out.append({
            "name": row.name,
            "latex": render.latex(row.expr),
            # A tied tensor counts 0; say where it is counted instead.
            "formula": f"0 ({row.leaf.note})" if expr == 0 and row.leaf.note else str(row.expr),
            "terms": terms(expr),
        })
    total = sympy.Add(*(row.expr for row in part.rows()))
    assert sympy.expand(total - part.total) == 0, f"{part.name}: the components do not add up to the total"
    return out


# Sections kept in this process: what keep() was given holds even where nothing can be written (the
# browser's bundle brings its sections this way, and has no SymPy to compile them).
_held: dict[tuple[str, str], dict] = {}


def keep(model_type: str, name: str, section: dict, write: bool = True) -> None:
    """Keep one section of a compiled family: :func:`section` reads it from now on, in this process and, if
    ``write``, in the next ones (the cache's file)."""
    assert set(section) == set(SECTIONS[name]), (name, sorted(section))
    _held[model_type, name] = section
    if write:
        cache.write(f"compiled-{model_type}-{name}", section)


# A folder of compiled sections, one file a family's section (:data:`FILE`), read before anything is compiled: the
# site's bundle, which has no SymPy to compile them (derivations.pasted). Each is read when a command first needs it:
# a count of one family parses that family's sections, not every family's.
FILE = "compiled-{model_type}-{name}.json"
_folder: str | None = None


def read_from(folder: str) -> None:
    """Read the sections :func:`section` needs from the files in ``folder`` (:data:`FILE`), and compile none."""
    global _folder
    _folder = folder


def section(model_type: str, name: str) -> dict:
    """One section of a compiled family, kept, else read from :func:`read_from`'s folder, else compiled now and kept."""
    if (model_type, name) not in _held:
        if _folder is not None:
            with open(os.path.join(_folder, FILE.format(model_type=model_type, name=name)), encoding="utf-8") as file:
                keep(model_type, name, json.load(file), write=False)  # the folder is already the cache
        elif (kept := cache.read(f"compiled-{model_type}-{name}")) is not None:
            _held[model_type, name] = kept
        else:
            keep(model_type, name, compile_section(model_type, name))
    return _held[model_type, name]


def load(model_type: str) -> dict:
    """A whole compiled family: every section's keys."""
    return {key: value for name in SECTIONS for key, value in section(model_type, name).items()}


def count(terms: list, values: Mapping[str, int]) -> int:
    """Evaluate a compiled polynomial exactly."""
    if all("/" not in c for c, _ in terms):  # integer coefficients: no Fraction (nor its import) needed
        return sum(int(c) * prod(values[s] ** k for s, k in powers.items()) for c, powers in terms)
    from fractions import Fraction

    total = sum(Fraction(c) * prod(values[s] ** k for s, k in powers.items()) for c, powers in terms)
    assert total.denominator == 1, f"not an integer: {total}"
    return int(total)


# Moments parsed for evaluation, by the identity of their compiled list (kept for the process, as the sections are).
_parsed: dict[int, tuple] = {}


def largest(moments: list, values: Mapping[str, int]) -> int:
    """The largest of several compiled polynomials (a transient's moments), exactly: each distinct monomial is
    evaluated once, and the moments as integer sums over them (over their common denominator), so that a search that
    asks many times stays cheap."""
    key = id(moments)
    if key not in _parsed or _parsed[key][0] is not moments:
        from fractions import Fraction
        from math import lcm

        monomials: dict[tuple, int] = {}
        rational = [[(Fraction(c), monomials.setdefault(tuple(sorted(powers.items())), len(monomials)))
                     for c, powers in moment] for moment in moments]
        denominator = lcm(1, *(c.denominator for moment in rational for c, _ in moment))
        sums = [[(int(c * denominator), index) for c, index in moment] for moment in rational]
        _parsed[key] = (moments, list(monomials), sums, denominator)
    _, monomials, sums, denominator = _parsed[key]
    at = [prod(values[s] ** k for s, k in monomial) for monomial in monomials]
    most = max(sum(c * at[i] for c, i in moment) for moment in sums)
    assert most % denominator == 0, f"not an integer: {most}/{denominator}"
    return most // denominator
