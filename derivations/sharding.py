r"""Where a model can be split, read off its tree: the layers a device map keeps whole, and the cuts tensor
parallelism makes in each tensor and in the key/value cache.

* Layers: a device map (accelerate's ``infer_auto_device_map``) places whole blocks. A *layer* here is one copy of
  the outermost repeated part (a decoder layer, a T5 block, ALBERT's shared group), or a tensor outside every
  repeated part (the embeddings, a norm, the head): :func:`layers`.
* Cuts: each leaf states how Megatron's layers divide it (:class:`derivations.components.Shard`: attention by
  heads, the feed-forward by its inner width); a tensor with a row for each token of the vocabulary (an embedding
  table, an output head and its bias) is cut by vocabulary, as Megatron's ``VocabParallelEmbedding`` and its
  column-parallel output layer are: :func:`cuts`.

The command line evaluates these with plain integers (:mod:`derivations.parallel`), from the compiled section
``split`` (:mod:`derivations.compiled`): one entry for each tensor of :func:`derivations.memory.tensors`, in its
order.
"""

from __future__ import annotations

from typing import NamedTuple

import sympy

from .components import Expr, Part, Shard
from .symbols import V, V_d

# The symbols of a vocabulary: a model's (or an encoder's), and an encoder-decoder's target vocabulary (Marian).
VOCABULARIES = (V, V_d)


class Layer(NamedTuple):
    """The layer a tensor belongs to: its dotted ``name`` in the tree and its ``copies`` (L for a decoder layer,
    1 for a tensor outside the repeated parts)."""

    name: str
    copies: Expr


def _leaves(part: Part):
    """(leaf, its copies, its layer) for every leaf, in the order of :meth:`Part.kinds` (memory.tensors')."""
    def visit(p: Part, qualified: str, copies: Expr, layer: Layer | None):
        copies = copies * p.repeat
        if layer is None and p.repeat != 1:  # the outermost repeated part: one copy of it is a layer
            layer = Layer(qualified, copies)
        if p.expr is not None:
            yield p, copies, layer if layer is not None else Layer(qualified, copies)
        for c in p.children:
            yield from visit(c, f"{qualified}.{c.name}", copies, layer)

    for leaf, copies, layer in visit(part, part.name, sympy.Integer(1), None):
        yield leaf, copies, layer._replace(name=layer.name.split(".", 1)[1] if "." in layer.name else layer.name)


def _vocabulary(size: Expr) -> sympy.Symbol | None:
    """The vocabulary a tensor has one row (or column) for: a symbol of :data:`VOCABULARIES` it is a multiple of."""
    for v in VOCABULARIES:
        if v in size.free_symbols and sympy.degree(size, v) == 1 and sympy.expand(size.subs(v, 0)) == 0:
            return v
    return None


def cuts(part: Part) -> list[list[tuple[Expr, Expr, str]]]:
    """For each tensor of ``part`` (memory.tensors' order), its cuts: (elements cut, slices, kind) each; an empty
    list for a tensor every device keeps whole."""
    out = []
    for leaf, _, _ in _leaves(part):
        for i, size in enumerate(leaf.tensor_sizes):
            declared = [c for c in leaf.shards if c.tensor == i]
            if not declared and (v := _vocabulary(size)) is not None:
                declared = [Shard("vocab", v, i)]
            # One cut of the whole tensor, or cuts of parts of it (a fused map's query rows, its key and value rows).
            assert len(declared) <= 1 or all(c.size is not None for c in declared), f"{leaf.name}: cuts overlap"
            out.append([(size if c.size is None else c.size, c.count, c.kind) for c in declared])
    return out


def layers(part: Part) -> list[Layer]:
    """For each tensor of ``part`` (memory.tensors' order), the layer it belongs to."""
    return [layer for leaf, _, layer in _leaves(part) for _ in leaf.tensor_sizes]


def cache_cuts(part: Part) -> list[Shard | None]:
    """For each caching block (memory.cache_rows' order), how its cache divides among devices (None: whole)."""
    out: list[Shard | None] = []

    def visit(p: Part) -> None:
        if p.applied == 0:
            return
        if p.cache != 0:
            out.append(p.cache_shard)
        for c in p.children:
            visit(c)

    visit(part)
    return out
