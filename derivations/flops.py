r"""What a model computes: the FLOPs of every component, read off the same trees as the parameters.

Every leaf that multiplies its input by a weight matrix does 2 FLOPs per weight element and input row
(:attr:`~derivations.components.Part.matrix`): one multiply, one add. The rows are the sequence's tokens
(``s``), except where a part says otherwise (:attr:`~derivations.components.Part.tokens`): a pooler or a
sequence classifier reads one row, an encoder-decoder's decoder reads ``s_d``, its cross-attention keys
and values the encoder's ``s``. A part runs ``repeat`` times (its copies), or ``applied`` times where
that differs: ALBERT's one shared layer L times, X_a of a mixture's X experts for each token. Attention
adds two products between activations (:class:`~derivations.components.Op`): the scores and the
weighted values, over every query-key pair.

$$C_\mathrm{forward} = \sum_\text{matrices} 2\,n_\mathrm{in} n_\mathrm{out} \cdot \text{rows}
  + \sum_\text{attention} (2 H d_k + 2 H d_h) \cdot \text{queries} \cdot \text{keys}$$

Counted as ``torch.utils.flop_counter.FlopCounterMode`` counts: matrix products only. A lookup (an
embedding) is 0 FLOPs; adds, norms, activations and softmax are element-wise work that it does not count
either (and that no published form counts, except Chinchilla's softmax). The forward is of one sequence;
a batch of ``b`` sequences is ``b`` times it.

One generated token after T cached ones (:func:`decode`) is the same sum on one row: each matrix on the new
token alone, each self-attention product one query against the k = T + 1 keys of its layer (at most its
sliding window), cross-attention's one query against the source's s keys; the encoder, and cross-attention's
keys and values, ran once and are in the cache.

$$C_\mathrm{decode} = \sum_\text{matrices} 2\,n_\mathrm{in} n_\mathrm{out}
  + \sum_\text{self-attention} (2 H d_k + 2 H d_h) \cdot k$$
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .components import Expr, Part
from .symbols import s, s_d

# The backward of a matrix product Y = X W is two products of the same size: dX = dY W^T and dW = X^T dY
# (and for attention's products, the gradients of both operands).
BACKWARD_FACTOR = 2
# The longest sequence the tests run transformers' models on to compare (tests/reference.py): the meta device
# holds no data, so a length costs nothing there.
LONGEST_CHECKED = 4096
# The sequence length the family pages' tables evaluate at (or the position table's length, if shorter).
TABLE_SEQUENCE = 2048
# The query-key pairs a causal query set needs: the query at position i reads the i keys up to it.
causal_pairs = s * (s + 1) / 2


@dataclass(frozen=True)
class FlopRow:
    """One component's forward FLOPs for one sequence, its copies folded in.

    ``name``: the dotted name of the leaf (as in the parameter table) or of the attention block and its
    product (``layer.attention.scores``); ``causal``: for a decoder's self-attention products, the FLOPs of
    the causal half that is actually needed (each query against the keys up to its own position), else
    None; ``in_layer``: inside the repeated layers (what full recomputation runs again); ``product``: a
    product between activations (what selective recomputation runs again)."""

    name: str
    label: str
    expr: Expr
    kind: str
    causal: Expr | None = None
    in_layer: bool = False
    product: bool = False
    # One generated token (:func:`decode`): this component's FLOPs for it, and for a causal self-attention
    # product (or a leaf that expands the cache), its FLOPs per key in each of its ``copies`` (each layer
    # attends to its own cache).
    decode: Expr = sympy.Integer(0)
    copies: Expr | None = None

    @property
    def needed(self) -> Expr:
        """The FLOPs needed: the causal half where there is one, else the whole."""
        return self.expr if self.causal is None else self.causal


def rows(part: Part, tokens: Expr = s) -> list[FlopRow]:
    """One row per leaf (0 for those that only add, scale or look up) and per attention product."""
    out: list[FlopRow] = []
    step = _step(part)

    def visit(p: Part, qualified: str, times: Expr, tokens: Expr, in_layer: bool, kind: str) -> None:
        tokens = p.tokens if p.tokens is not None else tokens
        copies = p.applied if p.applied is not None else p.repeat
        times, in_layer, kind = times * copies, in_layer or copies != 1, p.kind or kind
        name = qualified.split(".", 1)[1] if "." in qualified else qualified
        if p.expr is not None:
            # A leaf that expands the cache runs, per copy, on each of its layer's keys (as a product does).
            decode = 2 * p.matrix * step(tokens) if p.expands_cache else times * 2 * p.matrix * step(tokens)
            out.append(FlopRow(name, p.label, sympy.expand(times * 2 * p.matrix * tokens), kind, in_layer=in_layer,
                               decode=sympy.expand(decode), copies=times if p.expands_cache else None))
        for c in p.children:
            visit(c, f"{qualified}.{c.name}", times, tokens, in_layer, kind)
        # After the projections that make their operands.
        for op in p.ops:
            keys = tokens if op.keys is None else op.keys
            queries = tokens if op.queries is None else op.queries
            assert op.queries is None or not op.causal, f"{name}.{op.name}: a causal product's queries are its rows"
            whole = sympy.expand(times * op.per_pair * queries * keys)
            causal = sympy.expand(times * op.per_pair * causal_pairs.subs(s, tokens)) if op.causal else None
            # One new query: against its cache per key (causal), else against the source's keys.
            decode = sympy.expand(op.per_pair * step(tokens) * (1 if op.causal else times * keys))
            out.append(FlopRow(f"{name}.{op.name}", op.label, whole, kind, causal, in_layer or op.in_layers,
                               product=True, decode=decode, copies=times if op.causal else None))

    visit(part, part.name, sympy.Integer(1), tokens, False, "")
    return out


def _step(part: Part):
    """The rows a part runs on in one decode step, from the rows it runs on in a forward: the new token (1) for
    the decoder's rows (``s_d`` in an encoder-decoder, else ``s``); none for the source's (``s`` in an
    encoder-decoder: the encoder ran once, and cross-attention's keys and values are in the cache); none for a
    count of the input's own size (a symbol other than the lengths: Whisper's N_f frames, which its encoder and
    cross-attention's keys and values ran on once, before the first token); a number (a head that reads one row)
    as it is."""
    def walk(p: Part):
        yield p
        for c in p.children:
            yield from walk(c)

    query = s_d if any(p.tokens is not None and s_d in sympy.sympify(p.tokens).free_symbols for p in walk(part)) else s

    def step(tokens: Expr) -> Expr:
        free = sympy.sympify(tokens).free_symbols
        return sympy.sympify(tokens).subs(query, 1) if query in free else (0 if free else tokens)

    return step


def fixed_input(part: Part) -> bool:
    """The part's forward holds no length (s, s_d): it reads an input whose size its config sets alone (one image's
    patches, one window of audio), whatever the tokens asked for."""
    return not forward(part).free_symbols & {s, s_d}


def forward(part: Part) -> Expr:
    """Forward FLOPs of one sequence, as the eager implementation computes them (the whole attention
    square, causal or not): what FlopCounterMode counts."""
    # A part is immutable: the tests and the pages ask for the same model's forward many times.
    key = id(part)
    if key not in _FORWARD or _FORWARD[key][0] is not part:
        _FORWARD[key] = (part, sympy.expand(sympy.Add(*(r.expr for r in rows(part)))))
    return _FORWARD[key][1]


_FORWARD: dict[int, tuple[Part, Expr]] = {}


def forward_needed(part: Part) -> Expr:
    """Forward FLOPs of one sequence with a decoder's self-attention cut to its causal half."""
    return sympy.expand(sympy.Add(*(r.needed for r in rows(part))))


def decode(part: Part, keys: Expr) -> Expr:
    """Forward FLOPs of one generated token of one sequence, every self-attention layer attending to ``keys``
    keys (the T cached tokens and the new one: T + 1, or a sliding window's fewer). A causal model only: an
    encoder generates nothing. The command line takes each layer's own keys (answers.flops)."""
    return sympy.expand(sympy.Add(*(r.decode * (1 if r.copies is None else r.copies * keys) for r in rows(part))))


@dataclass(frozen=True)
class Training:
    """FLOPs of one training step on one sequence: forward, backward (twice the forward), and what
    recomputing activations adds (a forward of the layers for full recomputation; a forward of attention's
    products for the selective recomputation of Korthikanti et al.)."""

    forward: Expr
    backward: Expr
    full_recomputation: Expr
    selective_recomputation: Expr

    @property
    def step(self) -> Expr:
        """Forward and backward, no recomputation: the model FLOPs (MFU's numerator)."""
        return self.forward + self.backward


def training(part: Part) -> Training:
    table = rows(part)
    fwd = sympy.Add(*(r.expr for r in table))
    return Training(sympy.expand(fwd), sympy.expand(BACKWARD_FACTOR * fwd),
                    sympy.expand(sympy.Add(*(r.expr for r in table if r.in_layer))),
                    sympy.expand(sympy.Add(*(r.expr for r in table if r.in_layer and r.product))))
