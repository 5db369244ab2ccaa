"""Building blocks: each returns a :class:`Part`, a named tree of SymPy expressions.

A ``Part`` is either a leaf holding an expression (a weight matrix, a bias, a norm) or a sum of
child parts, optionally repeated (``L`` identical layers). Each part may name the module that
holds its parameters in the reference implementation (``path``, relative to the parent's module),
so that the tests can compare every node of the tree with ``named_parameters()`` of the real model.

The blocks are written for the families to come as well as for BERT: attention with ``K`` key/value
heads and a head size that need not be ``D/H``, feed-forward with or without a gate, LayerNorm with
or without bias and RMSNorm, linear layers with or without bias, tied tensors counted once.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

import sympy

from .symbols import C, D, H, X_a

Expr = sympy.Expr


@dataclass(frozen=True)
class Op:
    """A matrix product between activations inside a part: ``per_pair`` FLOPs for every pair of a query
    row and a key row. The keys are the part's own rows (self-attention: the s-by-s square) unless
    ``keys`` names another length (cross-attention reads the encoder's). ``causal``: a decoder's
    self-attention, where a query needs only the keys up to its own position, although the eager
    implementation multiplies the whole square and masks the rest."""

    name: str
    label: str
    per_pair: Expr
    keys: Expr | None = None
    causal: bool = False
    # The query rows, where they are not the part's own: 1 where ``keys`` counts the query-key pairs themselves
    # (attention within windows, whose pairs are no rows-by-keys square: Qwen2.5-VL's tower).
    queries: Expr | None = None
    # The product runs in the repeated layers, though it sits on the part that holds them, its pairs summed over
    # them (Qwen2.5-VL's tower): recomputation runs it again, as the layers' own.
    in_layers: bool = False


# How tensor parallelism divides a tensor, as Megatron's layers do [cite: shoeybi2019]: the slices it shares out.
# "heads": query heads (q and the output projection, per-head parameters), each device H/N of them; "kv_heads":
# key/value heads, K/N each, or one each, replicated, where N > K (as vLLM does); "inner": the feed-forward's
# inner width (each expert's), F/N each; "vocab": rows of the vocabulary, padded to a multiple of 128 N
# (derivations.parallel holds these rules, on integers).
SHARD_KINDS = ("heads", "kv_heads", "inner", "vocab")


@dataclass(frozen=True)
class Shard:
    """A cut of a leaf's tensor under tensor parallelism: ``size`` of its elements (None: all) lie in ``count``
    equal slices along one dimension (heads, inner width, vocabulary), of which each device holds its share
    (``kind``: one of :data:`SHARD_KINDS`). ``tensor``: which of the leaf's tensors (0 the weight, 1 a bias)."""

    kind: str
    count: Expr
    tensor: int = 0
    size: Expr | None = None

    def __post_init__(self) -> None:
        assert self.kind in SHARD_KINDS, f"unknown kind of cut {self.kind!r}"

    def subs(self, mapping: Mapping[sympy.Symbol, Expr]) -> Shard:
        def sub(expr: Expr | None) -> Expr | None:
            return None if expr is None else sympy.expand(sympy.sympify(expr).subs(mapping))

        return replace(self, count=sub(self.count), size=sub(self.size))


@dataclass(frozen=True)
class Part:
    """A named group of parameters and the expression that counts them."""

    name: str
    label: str
    expr: Expr | None = None
    children: tuple[Part, ...] = ()
    repeat: Expr = sympy.Integer(1)
    # Module path in the reference implementation, relative to the parent's module. ``None``
    # groups children without a module of its own (they stay relative to the parent's module).
    path: str | None = None
    # Which copies of a repeated module this part holds, where siblings share the path (DeepSeek's
    # first layers are dense, the others hold experts): a parameter path below the module that only
    # those copies have ("mlp.experts"), or "!" and one that they lack ("!mlp.experts"). Empty: all.
    copies: str = ""
    note: str = ""
    symbol: str = field(default="", compare=False)
    # What the parameters are for (one of KINDS), for the pictures; a part without one takes its parent's.
    kind: str = ""
    # -- what it computes (derivations.flops reads these) --
    # A leaf's weight elements that multiply each of its input rows: 2 FLOPs each per row (a multiply and
    # an add). 0 for what is added, scaled or looked up (biases, norms, embedding tables).
    matrix: Expr = sympy.Integer(0)
    # Rows that run through this part in one sequence (the source length for an encoder's keys and
    # values); None: its parent's.
    tokens: Expr | None = None
    # Runs of this part (its copies together) each time its parent runs, where that is not ``repeat``: ALBERT's
    # G stored groups run L times in all; of X stored experts, X_a run for each token. None: ``repeat``.
    applied: Expr | None = None
    # Products of activations with activations, which hold no parameters (attention's scores and its
    # weighted sum of the values).
    ops: tuple[Op, ...] = ()
    # -- what it holds beyond its parameters (derivations.memory reads these) --
    # Elements one token leaves in the key/value cache, per copy: the keys and values a decoder's
    # self-attention keeps for the tokens to come (an encoder-decoder's cross-attention: those of each
    # source token), or what it keeps instead (DeepSeek's latent). 0: nothing cached.
    cache: Expr = sympy.Integer(0)
    # -- how tensor parallelism divides it (derivations.sharding reads these) --
    # A leaf's cuts (:class:`Shard`): the tensors, or elements of one, that devices share out; what no cut
    # names is replicated on every device (norms, a row-parallel map's bias, routers). A tensor with a row per
    # token of the vocabulary needs none: derivations.sharding cuts it by vocabulary.
    shards: tuple[Shard, ...] = ()
    # How ``cache`` divides: by key/value heads (each device caches its own); None: whole on every device.
    cache_shard: Shard | None = None
    # A leaf that runs on every cached row at each generated token, not on the new one alone: the cache keeps
    # its input, so each step expands the whole cache again (DeepSeek's kv_b_proj, in transformers).
    expands_cache: bool = False
    # A leaf's tensors, one size each, where it holds more than one (a linear map's weight and bias); empty:
    # one tensor of ``expr`` elements (none if ``expr`` is 0). What per-tensor schemes (8-bit optimizer
    # states, block-wise quantization) need.
    tensors: tuple[Expr, ...] = ()
    # A leaf's weight as matrices, (copies, pieces, n_in, n_out): ``copies`` stacked in one tensor (a mixture's X
    # experts; 1 for a linear map), each ``pieces`` maps of n_in inputs to n_out outputs fused along the outputs
    # (the experts' gate and up: 2, which quantized checkpoints store apart). What a format needs beyond the
    # size: GPTQ's groups run along the inputs, FP8's blocks are 128 x 128, int8 keeps a scale per output row
    # (derivations.quantization). Empty: no weight matrix (a table, a norm, a bias).
    shape: tuple[Expr, ...] = ()

    def __post_init__(self) -> None:
        assert (self.expr is None) != (not self.children), f"{self.name}: a leaf or a sum, not both"
        assert self.kind in ("", *KINDS), f"{self.name}: unknown kind {self.kind!r}"
        assert not self.shards or self.expr is not None, f"{self.name}: only a leaf has cuts"
        assert all(c.tensor < len(self.tensor_sizes) for c in self.shards), f"{self.name}: a cut of no tensor"
        assert not self.copies or (self.path is not None and self.repeat != 1), \
            f"{self.name}: only a repeated module can select its copies"
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name), f"not a Python name: {self.name!r}"
        names = [c.name for c in self.children]
        assert len(names) == len(set(names)), f"{self.name}: duplicate child names {names}"
        assert not self.tensors or (self.expr is not None and sympy.expand(sum(self.tensors) - self.expr) == 0), \
            f"{self.name}: its tensors do not add up to its count"
        assert not self.shape or (len(self.shape) == 4 and sympy.expand(
            sympy.Mul(*self.shape) - self.tensor_sizes[0]) == 0), f"{self.name}: its shape is not its weight's size"

    @property
    def tensor_sizes(self) -> tuple[Expr, ...]:
        """The sizes of a leaf's tensors (one copy)."""
        if self.tensors:
            return self.tensors
        return () if self.expr is None or self.expr == 0 else (self.expr,)

    # -- the expression -------------------------------------------------------------------------

    # Cached: a part is immutable, and pages, tables and readers ask for the same sums thousands of times.
    @cached_property
    def per_copy(self) -> Expr:
        """Parameters of one copy: the leaf expression, or the sum over the children."""
        if self.expr is not None:
            return self.expr
        return sympy.Add(*(c.total for c in self.children))

    @cached_property
    def total(self) -> Expr:
        """Parameters of all copies: ``repeat`` times :attr:`per_copy`."""
        return self.repeat * self.per_copy

    def count(self, values: Mapping[sympy.Symbol, int]) -> int:
        """The exact integer for given hyper-parameter values."""
        return evaluate(self.total, values)

    # -- navigation -------------------------------------------------------------------------------

    def child(self, name: str) -> Part:
        for c in self.children:
            if c.name == name:
                return c
        raise LookupError(f"{self.name} has no part {name!r} (it has {[c.name for c in self.children]})")

    def find(self, dotted: str) -> Part:
        part = self
        for name in dotted.split("."):
            part = part.child(name)
        return part

    def walk(self, prefix: str = "", multiplier: Expr = sympy.Integer(1)) -> Iterator[tuple[str, Part, Expr]]:
        """Yield ``(qualified name, part, copies of the enclosing parts)`` depth first."""
        qualified = f"{prefix}.{self.name}" if prefix else self.name
        yield qualified, self, multiplier
        for c in self.children:
            yield from c.walk(qualified, multiplier * self.repeat)

    def modules(self, prefix: str = "") -> Iterator[tuple[str, str]]:
        """Yield ``(qualified name, module path in the reference implementation)`` for every part
        that has one; a repeated part's copies are numbered ``<i>`` (``encoder.layer.<i>``)."""
        yield from self._modules(prefix, "")

    def _modules(self, prefix: str, module: str) -> Iterator[tuple[str, str]]:
        qualified = f"{prefix}.{self.name}" if prefix else self.name
        if self.path is not None:
            module = ".".join(filter(None, [module, self.path] + (["<i>"] if self.repeat != 1 else [])))
            yield qualified, module
        for c in self.children:
            yield from c._modules(qualified, module)

    def kinds(self, kind: str = "") -> Iterator[tuple[str, Part, Expr]]:
        """``(kind, leaf, copies)`` for every leaf, its kind the nearest one declared on it or above it."""
        kind = self.kind or kind
        if self.expr is not None:
            yield kind, self, self.repeat
        for c in self.children:
            for leaf_kind, leaf_part, copies in c.kinds(kind):
                yield leaf_kind, leaf_part, self.repeat * copies

    def leaves(self) -> Iterator[tuple[str, Part, Expr]]:
        """The leaves below this part, each with the product of the repeats above it."""
        for qualified, part, multiplier in self.walk():
            if part.expr is not None:
                yield qualified, part, multiplier * part.repeat

    def rows(self) -> list[Row]:
        """One row per leaf, its copies folded in: the component tables of the command line, the pages
        and the calculators. Their counts add up to :attr:`total`."""
        return [Row(qualified.split(".", 1)[1], leaf, copies) for qualified, leaf, copies in self.leaves()]

    # -- rewriting --------------------------------------------------------------------------------

    def subs(self, mapping: Mapping[sympy.Symbol, Expr]) -> Part:
        """The same tree with a substitution applied (and expanded) at every leaf and repeat."""
        def sub(expr: Expr | None) -> Expr | None:
            return None if expr is None else sympy.expand(sympy.sympify(expr).subs(mapping))

        cuts = dict(shards=tuple(c.subs(mapping) for c in self.shards),
                    cache_shard=None if self.cache_shard is None else self.cache_shard.subs(mapping))
        computes = dict(matrix=sub(self.matrix), tokens=sub(self.tokens), applied=sub(self.applied),
                        ops=tuple(replace(op, per_pair=sub(op.per_pair), keys=sub(op.keys), queries=sub(op.queries))
                                  for op in self.ops),
                        cache=sub(self.cache), tensors=tuple(sub(t) for t in self.tensors),
                        shape=tuple(sub(t) for t in self.shape))
        if self.expr is not None:
            return replace(self, expr=sub(self.expr), repeat=self.repeat.subs(mapping), **computes, **cuts)
        return replace(self, children=tuple(c.subs(mapping) for c in self.children),
                       repeat=self.repeat.subs(mapping), **computes, **cuts)

    def renamed(self, name: str, label: str, path: str | None) -> Part:
        """The same part under another name, label and module path (all three given: no silent default)."""
        return replace(self, name=name, label=label, path=path)


@dataclass(frozen=True)
class Row:
    """A leaf of a model with the copies of it the model holds: its dotted ``name`` below the model
    (``encoder.layer.attention.query``) and its count, ``copies`` times the leaf's expression."""

    name: str
    leaf: Part
    copies: Expr

    @property
    def expr(self) -> Expr:
        return self.copies * self.leaf.expr


# What a picture of a model tells apart. Every leaf of every model has one of these (tests/test_components.py).
KINDS = ("embeddings", "attention", "feed-forward", "norms", "heads")


def as_kind(part: Part, kind: str) -> Part:
    """The same part, declared to be of ``kind`` (its parts without a kind of their own take it)."""
    return replace(part, kind=kind)


def idle(part: Part) -> Part:
    """The same part, built but not run: a decoder's cross-attention when the model runs alone (transformers
    skips it unless it is given an encoder's states). Its parameters count; its FLOPs are 0."""
    return replace(part, applied=sympy.Integer(0))


def evaluate(expr: Expr, values: Mapping[sympy.Symbol, int]) -> int:
    """Evaluate exactly; every free symbol must be given, and the result must be an integer."""
    missing = expr.free_symbols - set(values)
    assert not missing, f"no value for {sorted(map(str, missing))}"
    # xreplace puts the numbers in and lets SymPy fold them, as subs does for symbols, about fifty times
    # faster (subs looks for patterns, of which a symbol has none).
    result = sympy.sympify(expr).xreplace({symbol: sympy.Integer(value) for symbol, value in values.items()})
    assert result.is_Integer, f"{expr} does not evaluate to an integer: {result}"
    return int(result)


def group(name: str, label: str, *children: Part, path: str | None = None, repeat: Expr = 1,
          note: str = "", symbol: str = "", kind: str = "", copies: str = "", tokens: Expr | None = None,
          applied: Expr | None = None, ops: tuple[Op, ...] = (), cache: Expr = 0) -> Part:
    """A sum of parts (``copies``: see :attr:`Part.copies`; ``tokens``, ``applied``, ``ops``: what it
    computes, and ``cache``: what it keeps for later tokens, see :class:`Part`)."""
    return Part(name, label, children=children, path=path, repeat=sympy.sympify(repeat), note=note,
                symbol=symbol, kind=kind, copies=copies, tokens=None if tokens is None else sympy.sympify(tokens),
                applied=None if applied is None else sympy.sympify(applied), ops=ops, cache=sympy.sympify(cache))


def leaf(name: str, label: str, expr: Expr, path: str | None = None, note: str = "", kind: str = "",
         matrix: Expr = 0, tensors: tuple[Expr, ...] = (), shape: tuple[Expr, ...] = ()) -> Part:
    """A tensor (or ``tensors``) of ``expr`` parameters; ``matrix``: the weight elements it multiplies each
    input row by (see :attr:`Part.matrix`)."""
    return Part(name, label, expr=sympy.sympify(expr), path=path, note=note, kind=kind, matrix=sympy.sympify(matrix),
                tensors=tuple(map(sympy.sympify, tensors)), shape=tuple(map(sympy.sympify, shape)))


# ---------------------------------------------------------------------------------------------
# Tables and norms
# ---------------------------------------------------------------------------------------------

# $$N = n \cdot d$$  one learned d-vector per row (token, position or segment).
def embedding(name: str, label: str, rows: Expr, dim: Expr, path: str | None = None, note: str = "") -> Part:
    return leaf(name, label, rows * dim, path, note, kind="embeddings")


# $$N_\mathrm{emb} = (V + P) D$$  GPT's embeddings: tokens and learned positions, summed, no LayerNorm.
def token_and_position_embeddings(V: Expr, P: Expr, D: Expr, *, tokens: str, positions: str) -> Part:
    return group("embeddings", "embeddings",
                 embedding("token", "token embeddings (also the output head)", V, D, tokens),
                 embedding("position", "learned position embeddings", P, D, positions),
                 symbol=r"N_{\mathrm{emb}}")


# $$\mathrm{LN}(x) = \gamma \odot (x - \mu) / \sqrt{\sigma^2 + \epsilon} + \beta$$  gamma and beta: 2d.
def layer_norm(name: str, dim: Expr, path: str | None = None, bias: bool = True, label: str = "LayerNorm") -> Part:
    return leaf(name, label, (2 if bias else 1) * dim, path,
                note="" if bias else "no bias: the scale gamma only", kind="norms", tensors=(dim, dim) if bias else ())


# $$\mathrm{RMSNorm}(x) = g \odot x / \sqrt{\mathrm{mean}(x^2) + \epsilon}$$  a scale only: d.
def rms_norm(name: str, dim: Expr, path: str | None = None, label: str = "RMSNorm") -> Part:
    return leaf(name, label, dim, path, kind="norms")


# $$N = V E + (E D + D)$$  ALBERT factorizes the table: V rows of width E, then one projection to D.
def factorized_embedding(V: Expr, E: Expr, D: Expr, *, table: str, projection: str,
                         name: str = "factorized_embedding") -> Part:
    return group(name, "factorized word embeddings",
                 embedding("table", "word embeddings of width E", V, E, table),
                 linear("projection", "projection from E to D", E, D, True, projection), kind="embeddings")


def shared(part: Part, times: Expr) -> Part:
    """One part applied ``times`` times with the same weights (ALBERT's layers): stored, so counted, once;
    computed ``times`` times."""
    # repeat stays 1 because of parameter sharing; the note keeps the depth visible.
    return replace(part, note=f"shared: applied {times} times, stored once", applied=sympy.sympify(times))


# ---------------------------------------------------------------------------------------------
# Linear maps
# ---------------------------------------------------------------------------------------------

# $$y = x W + b,\quad W \in \mathbb{R}^{n_\mathrm{in} \times n_\mathrm{out}},\ b \in \mathbb{R}^{n_\mathrm{out}}$$
def linear(name: str, label: str, n_in: Expr, n_out: Expr, bias: bool = True, path: str | None = None,
           note: str = "") -> Part:
    # 2 n_in n_out FLOPs a row: each weight one multiply and one add; the bias add is not a matrix product.
    return leaf(name, label, n_in * n_out + (n_out if bias else 0), path, note, matrix=n_in * n_out,
                tensors=(n_in * n_out, n_out) if bias else (), shape=(1, 1, n_in, n_out))


def tied_tensor(name: str, label: str, to: str, path: str | None = None, matrix: Expr = 0) -> Part:
    """A tensor that *is* another one: counted once, where it is first defined. Its parameters count 0;
    its arithmetic does not (``matrix``: a tied output head multiplies by the whole table)."""
    # 0 because the tensor is shared: parameters() yields it once, under its first name.
    return leaf(name, label, sympy.Integer(0), path, note=f"tied to {to}: counted there", matrix=matrix)


# Megatron's two kinds of parallel linear layer [cite: shoeybi2019, section 3]: a column-parallel map splits its
# outputs (its weight's output dimension and its bias), a row-parallel one its inputs (its weight's input dimension;
# its bias is added once, after the devices' partial products are summed, so every device keeps all of it).
def column_parallel(part: Part, kind: str, count: Expr) -> Part:
    """A linear map whose outputs lie in ``count`` slices of ``kind`` (query heads, key/value heads, the inner
    width): every tensor of it (weight and bias) is cut."""
    return replace(part, shards=tuple(Shard(kind, sympy.sympify(count), i) for i in range(len(part.tensor_sizes))))


def row_parallel(part: Part, kind: str, count: Expr) -> Part:
    """A linear map whose inputs lie in ``count`` slices of ``kind``: its weight is cut, its bias kept whole."""
    return replace(part, shards=(Shard(kind, sympy.sympify(count), 0),))


# ---------------------------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttentionLayout:
    """Where the reference implementation keeps the four projections (paths, relative)."""

    query: str
    key: str
    value: str
    output: str


def attention(D: Expr, H: Expr, d_h: Expr, K: Expr | None = None, *, bias: bool = True,
              output_bias: bool | None = None, layout: AttentionLayout, path: str | None = None,
              name: str = "attention", label: str = "multi-head attention", kv_dim: Expr | None = None,
              output_in: Expr | None = None, key_size: Expr | None = None, causal: bool = False,
              keys: Expr | None = None) -> Part:
    r"""Multi-head attention with ``H`` query heads of size ``d_h`` and ``K`` key/value heads.

    $$\mathrm{head}_i = \mathrm{softmax}(Q_i K_i^\top / \sqrt{d_h}) V_i,\quad
      \mathrm{MHA}(x) = [\mathrm{head}_1; \dots; \mathrm{head}_H] W_O + b_O$$

    Q maps D to H d_h; K and V map ``kv_dim`` (D for self-attention; the encoder's width for
    cross-attention) to K d_h; O maps H d_h back to D (``output_in`` where an implementation sizes it
    otherwise). Queries and keys may be narrower than values (``key_size``, Vaswani et al.'s d_k
    against d_v). The head count does not change the total while H d_h = D: heads partition the
    width, they do not multiply it.
    """
    K = H if K is None else K
    kv_dim = D if kv_dim is None else kv_dim
    output_in = H * d_h if output_in is None else output_in
    output_bias = bias if output_bias is None else output_bias
    key_size = d_h if key_size is None else key_size
    # Cross-attention projects the encoder's rows (``keys`` of them) to keys and values.
    source = {} if keys is None else {"tokens": sympy.sympify(keys)}
    # $$c = K d_k + K d_h$$  a decoder keeps each token's keys and values (K heads: grouped-query attention
    # caches K, not H); cross-attention keeps those of each source token. An encoder keeps none.
    cache = K * key_size + K * d_h if causal or keys is not None else 0
    # Tensor parallelism: queries and the output by query heads, keys and values (and their cache) by key/value heads.
    return replace(group(
        name, label,
        column_parallel(linear("query", "query projection", D, H * key_size, bias, layout.query), "heads", H),
        column_parallel(replace(linear("key", "key projection", kv_dim, K * key_size, bias, layout.key), **source),
                        "kv_heads", K),
        column_parallel(replace(linear("value", "value projection", kv_dim, K * d_h, bias, layout.value), **source),
                        "kv_heads", K),
        row_parallel(linear("output", "output projection", output_in, D, output_bias, layout.output), "heads", H),
        path=path, kind="attention", ops=attention_products(H, key_size, d_h, causal=causal, keys=keys), cache=cache,
    ), cache_shard=Shard("kv_heads", K) if cache != 0 else None)


# $$\mathrm{FLOPs} = 2 H d_k\, s s_k + 2 H d_h\, s s_k$$  scores and weighted values, s queries by s_k keys.
def attention_products(H: Expr, key_size: Expr, value_size: Expr, *, causal: bool = False,
                       keys: Expr | None = None) -> tuple[Op, ...]:
    """The two products of softmax attention that hold no parameters, over every pair of a query and a
    key as the eager implementation computes them (the whole square, masked afterwards when causal):
    Q K^T, H heads of d_k; and the weights times V, H heads of d_h. Grouped-query attention shares a
    key head among query heads but still computes one score per query head."""
    return (Op("scores", "attention scores (each query against each key, every head)", 2 * H * key_size, keys, causal),
            Op("values", "weighted sum of the values (every head)", 2 * H * value_size, keys, causal))


def fused_attention(D: Expr, *, qkv: str, output: str, bias: bool = True, qkv_bias: str | None = None,
                    path: str | None = None, name: str = "attention", label: str = "multi-head attention",
                    causal: bool = False) -> Part:
    r"""Multi-head attention whose Q, K and V are one D-by-3D map (GPT's ``c_attn``, torch's ``in_proj``).

    $$[Q; K; V] = x W_{QKV} + b_{QKV},\quad W_{QKV} \in \mathbb{R}^{D \times 3D}$$

    The same count as :func:`attention` with H d_h = D and K = H, stored as one tensor. ``qkv`` is
    the module (weight and bias) or, with ``qkv_bias``, the weight parameter and the bias parameter
    apart (``nn.MultiheadAttention`` keeps ``in_proj_weight`` and ``in_proj_bias`` on itself).
    """
    if qkv_bias is None:
        fused = [linear("qkv", "query, key and value (one fused D-by-3D map)", D, 3 * D, bias, qkv)]
    else:
        assert bias, "a separate bias path only makes sense with a bias"
        fused = [leaf("qkv", "query, key and value weights (one fused matrix)", 3 * D * D, qkv, matrix=3 * D * D),
                 leaf("qkv_bias", "query, key and value biases", 3 * D, qkv_bias)]
    # The heads partition the width (H d_h = D), so the products are those of attention() with H d_h = D.
    # A decoder caches its keys and values: D each a token.
    # Tensor parallelism cuts the H heads (of queries, keys and values alike: K = H), and their cache.
    return replace(group(name, label, *(column_parallel(f, "heads", H) for f in fused),
                         row_parallel(linear("output", "output projection", D, D, bias, output), "heads", H),
                         path=path, kind="attention", ops=attention_products(1, D, D, causal=causal),
                         cache=2 * D if causal else 0), cache_shard=Shard("heads", H) if causal else None)


# ---------------------------------------------------------------------------------------------
# Feed-forward
# ---------------------------------------------------------------------------------------------

def feed_forward(D: Expr, F: Expr, *, bias: bool = True, up: str, down: str, gate: str | None = None,
                 path: str | None = None, name: str = "feed_forward", label: str = "feed-forward") -> Part:
    r"""Position-wise feed-forward, plain or gated.

    Plain: $$\mathrm{FFN}(x) = \phi(x W_1 + b_1) W_2 + b_2$$
    Gated (SwiGLU, GeGLU): $$\mathrm{FFN}(x) = (\phi(x W_g) \odot x W_1) W_2$$, a third D-by-F matrix.
    """
    parts = []
    if gate is not None:
        parts.append(linear("gate", "gate projection", D, F, bias, gate))
    parts.append(linear("up", "up projection", D, F, bias, up))
    # Tensor parallelism cuts the inner width F: the maps into it by their outputs, the one out of it by its inputs.
    parts = [column_parallel(p, "inner", F) for p in parts]
    parts.append(row_parallel(linear("down", "down projection", F, D, bias, down), "inner", F))
    return group(name, label, *parts, path=path, kind="feed-forward")


def mixture_of_experts(D: Expr, F: Expr, experts: Expr, *, router_path: str, experts_path: str,
                       expert: Part | None = None, router_bias: bool = False, path: str | None = None,
                       name: str = "moe") -> Part:
    """A router (D to X logits) and X copies of a feed-forward; only the top-k (X_a) run per token."""
    expert = expert if expert is not None else feed_forward(D, F, bias=False, up="w3", down="w2", gate="w1")
    return group(
        name, "mixture of experts",
        linear("router", "router", D, experts, router_bias, router_path),
        # Stored X times; run X_a times a token (top-k routing), whichever experts the router picks.
        replace(expert.renamed("expert", "the experts: X copies of one feed-forward", experts_path),
                repeat=sympy.sympify(experts), applied=X_a),
        path=path, kind="feed-forward",
    )


def active_per_token(part: Part, experts: Expr, active: Expr) -> Part:
    """The parameters one token uses: the same tree with every ``experts``-fold repeat (the experts
    of a :func:`mixture_of_experts`) cut to the ``active`` ones the router picks. The router itself
    stays whole (it scores every expert), and so does everything outside the experts, the input
    embedding included (a convention: a lookup reads one row, but counts of "active" parameters
    keep the table; a family says so where it reports them)."""
    repeat = active if part.repeat == experts else part.repeat
    if part.expr is not None:
        return replace(part, repeat=repeat)
    return replace(part, repeat=repeat, children=tuple(active_per_token(c, experts, active) for c in part.children))


# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------

def pooler(D: Expr, path: str | None = "pooler.dense", name: str = "pooler") -> Part:
    """The [CLS] pooler: tanh(h_0 W + b), one D-by-D linear map with bias, on the first token alone."""
    return replace(as_kind(linear(name, "pooler", D, D, True, path), "heads"), tokens=sympy.Integer(1))


def classifier(D: Expr, C: Expr, path: str, name: str = "classifier", label: str = "classifier") -> Part:
    """A linear map from the hidden state to C logits."""
    return as_kind(linear(name, label, D, C, True, path), "heads")


def score(D: Expr, C: Expr, bias: bool = False, path: str = "score") -> Part:
    """The decoder-only classifiers' head (GPT's, LLaMA's): C logits, no bias unless asked (LLaMA's token
    classifier has one)."""
    return as_kind(linear("score", "score" if bias else "score (no bias)", D, C, bias, path), "heads")


def span_head(D: Expr, outputs: Expr = 2, label: str = "span logits (always two: start and end)") -> Part:
    """Question answering's head: a start and an end logit for every token (``qa_outputs``, with bias)."""
    return as_kind(linear("qa_outputs", label, D, outputs, True, "qa_outputs"), "heads")


def task_heads(prefix: str, token_head: Part) -> dict[str, tuple[str, Part]]:
    """The three task classes every decoder family defines (GPT-2, GPT-NeoX, LLaMA and its kin), named
    ``<prefix>For...``, each as (what it adds, its head): a score of the last token without bias, a classifier of every token
    (``token_head``: with or without bias, named as the family names it), a start and an end logit."""
    return {
        f"{prefix}ForSequenceClassification": ("with a sequence classifier (last token, no bias)", score(D, C)),
        f"{prefix}ForTokenClassification": ("with a token classifier", token_head),
        f"{prefix}ForQuestionAnswering": ("with a span (start/end) head", span_head(D)),
    }


@dataclass(frozen=True)
class TaskHead:
    """What an encoder's task class adds to its body: a label, the head's parts, and whether it reads the
    pooled [CLS] state (then the body keeps its pooler)."""

    label: str
    parts: tuple[Part, ...]
    pooled: bool


def encoder_task_heads(prefix: str, name: str, *,
                       pooled: Collection[str] = ("SequenceClassification", "MultipleChoice"), pooler: bool = True,
                       before: tuple[Part, ...] = (), sequence: Part | None = None,
                       span: str = "num_labels, 2 for start and end") -> dict[str, TaskHead]:
    """The four task classes every encoder family defines (BERT, RoBERTa, ALBERT, DistilBERT), named
    ``<prefix>For...`` and labelled after ``name`` (``"BERT with a token classifier"``), each one
    linear map with bias to its logits: a sequence classifier and a multiple-choice scorer (one logit per
    choice) on one state per sequence, a token classifier and a span head on every token's state.

    ``pooled``: the tasks that read the pooler's output (the others build the body without it, where the
    family has a ``pooler``); ``before``: what the per-sequence classes put before their map (DistilBERT's
    pre_classifier); ``sequence``: a head of the family's own for sequences (RoBERTa's classification head);
    ``span``: how many logits the span head gives."""

    def head(task: str, what: str, *parts: Part) -> tuple[str, TaskHead]:
        on = task in pooled
        where = (" on the pooled state" if on else " (no pooler)") if pooler else ""
        per_sequence = task in ("SequenceClassification", "MultipleChoice")
        first = before if per_sequence else ()
        label = f"{name} with " + " and ".join([*(p.name for p in first), what]) + where
        # A per-sequence head reads one state (the pooled or the first token's): it runs on one row.
        heads = tuple(replace(p, tokens=sympy.Integer(1)) if per_sequence else p for p in (*first, *parts))
        return f"{prefix}For{task}", TaskHead(label, heads, on)

    sequence_head = sequence if sequence is not None else classifier(D, C, "classifier")
    return dict((
        head("SequenceClassification", "a sequence classifier" if sequence is None else f"the {sequence.label}",
             sequence_head),
        head("MultipleChoice", "a multiple-choice scorer",
             classifier(D, 1, "classifier", label="choice scorer (one logit per choice)")),
        head("TokenClassification", "a token classifier", classifier(D, C, "classifier")),
        head("QuestionAnswering", "a span (start/end) head",
             classifier(D, C, "qa_outputs", name="qa_outputs", label=f"span logits ({span})")),
    ))


def lm_prediction_head(D: Expr, V: Expr, *, tied_to: str, path: str | None, transform: bool = True,
                       tied: bool = True, name: str = "lm_head") -> Part:
    """Masked-LM style head: optional transform (dense + LayerNorm), a decoder to V logits, and one
    output bias per vocabulary entry. Tied (the default), the decoder's weight is the input
    embedding and its bias is the output bias: both counted where they are first defined. Untied
    (tie_word_embeddings false), the decoder is a linear map of its own, bias included."""
    parts = []
    if transform:
        parts += [linear("transform", "transform dense", D, D, True, "transform.dense"),
                  layer_norm("transform_norm", D, "transform.LayerNorm")]
    if tied:
        parts.append(tied_tensor("decoder", "decoder weight", tied_to, "decoder", matrix=D * V))
    else:
        parts.append(linear("decoder", "decoder (untied: weight and bias of its own)", D, V, True, "decoder"))
    parts.append(leaf("bias", "output bias", V, "bias", note="shared with decoder.bias" if tied else ""))
    return group(name, "language-model head", *parts, path=path, kind="heads")
