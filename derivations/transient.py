r"""What a forward holds at inference beyond its weights and its key/value cache: the transient peak.

The eager forward of transformers, read statement by statement: each tensor an operation makes is born with its
bytes, and dies when Python drops the last name of it (a temporary at the end of its expression, a local when its
name is bound again or its function returns). A family writes its forward as such a :class:`Timeline` (the
building blocks below are the statements its layers share), and the peak is the most bytes alive at once:

$$M_\mathrm{transient} = \max_{m} \sum_{x \text{ alive at } m} \mathrm{bytes}(x)$$

over the moments ``m`` right after each birth. Each moment is a polynomial in the sizes, the tokens s, the batch b,
the bytes of an activation w (2 in bf16, 4 in fp32) and u (1 below fp32, where an upcast to fp32 is a copy); a
condition on the sizes (a second layer, grouped heads that are copied) is a factor of 0 or 1
(derivations.symbols). The maximum is taken on numbers: which moment is the peak depends on the sizes (the
attention scores at a long context, the feed-forward or the logits at a short one).

Two forwards: a bare one (``use_cache=False``, the logits of every token) and the one ``generate`` runs on the
prompt (``use_cache=True``, ``logits_to_keep=1``: the last token's logits), its cache not counted here (each
layer's keys and values go into the cache, derivations.memory, and their transient copies die there).
Counted: the tensors torch's operations return, at their storage's bytes; not the weights, nor the inputs (ids,
mask), nor the scratch inside a kernel, nor an allocator's rounding. tests/test_reference_transient.py measures
the same on transformers' models (tests/live_bytes.py) and compares.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sympy

from .components import Expr
from .symbols import D, X_a, b, c_t, f_w, g_kv, g_w, m_w, s, u, w, x_1, x_2, x_h

# Bytes of one element by dtype: a 64-bit integer (positions, aranges), a boolean (masks), fp32 (upcasts).
INT64, BOOL, FP32 = 8, 1, 4
# transformers' attention implementations a program follows: its eager attention_forward (every head's scores
# held), and torch.nn.functional.scaled_dot_product_attention (transformers' default where a model supports it).
ATTENTIONS = ("eager", "sdpa")


class Timeline:
    """Tensors alive during a forward, in the order the eager implementation makes and drops them."""

    def __init__(self, attention: str = "eager") -> None:
        assert attention in ATTENTIONS, attention
        # transformers' attn_implementation: the statements of the masks and of attention depend on it.
        self.attention = attention
        # Under sdpa, whether the layer being run is given a mask (a condition, 0 or 1): its caller sets it.
        self.masked: Expr = sympy.Integer(0)
        # Whether the layer being run rotates its queries and keys (a condition, 0 or 1: SmolLM3's layers without
        # rotary embeddings do not): its caller sets it.
        self.rotated: Expr = sympy.Integer(1)
        self.live: dict[str, Expr] = {}
        self.moments: list[Expr] = []
        self._factor: Expr = sympy.Integer(1)
        self._rising = False  # the last event was a birth: a next birth only adds to the same moment

    def new(self, name: str, size) -> str:
        """A tensor of ``size`` bytes is born (0 where it is not made: an upcast in fp32 is the tensor itself)."""
        assert name not in self.live, f"{name} is alive already"
        self.live[name] = sympy.sympify(size)
        moment = self._factor * sympy.Add(*self.live.values())
        # Sizes are never negative: of two births in a row, the second moment holds the first.
        if self._rising:
            self.moments[-1] = moment
        else:
            self.moments.append(moment)
        self._rising = True
        return name

    def drop(self, *names: str) -> None:
        """Tensors die: Python dropped their last name."""
        for name in names:
            del self.live[name]
        self._rising = False

    def join(self, name: str, *parts: str) -> str:
        """Tensors of which one exists (by the dtype, say) known under one name from now on: no birth, no death."""
        self.live[name] = sympy.Add(*(self.live.pop(part) for part in parts))
        return name

    def split(self, name: str, **parts: Expr) -> None:
        """A tensor whose death depends on a condition, known as parts (each its size times a factor of 0 or 1,
        the factors adding up to 1) from now on, each dying where it would: no birth, no death."""
        size = self.live.pop(name)
        assert sympy.expand(sympy.Add(*parts.values()) - 1) == 0, parts
        self.live.update({part: size * factor for part, factor in parts.items()})

    def size(self, name: str) -> Expr:
        return self.live[name]

    @contextmanager
    def only(self, condition: Expr) -> Iterator[None]:
        """Moments inside exist only where ``condition`` (0 or 1) is 1: what is born inside must be the same size
        as what it stands for outside, or die inside."""
        outer, self._factor = self._factor, self._factor * condition
        self._rising = False
        try:
            yield
        finally:
            self._factor = outer
            self._rising = False

    def peak(self) -> list[Expr]:
        """The candidate moments, expanded, each once."""
        seen: dict[Expr, None] = {}
        for moment in self.moments:
            seen.setdefault(sympy.expand(moment), None)
        return list(seen)


@dataclass(frozen=True, eq=False)
class Transient:
    """A class's forward at inference: the moments of the bare forward, and of generate's forward on the prompt
    (None for a class that does not generate: a body alone, an encoder).

    The moments are derived when first read, not when a family's module is imported: a family declares its forward
    in every layout and class, and a process (a page, a test, a command) reads few of them."""

    # What derives the moments: (forward, generate), called once.
    moments: Callable[[], tuple[tuple[Expr, ...], tuple[Expr, ...] | None]] = field(repr=False)
    # Sizes the program assumes even (rotary embeddings rotate the halves of a head): an odd one is refused.
    even: tuple[str, ...] = ()
    # Config fields that choose another code path than the program's, each (field, transformers' default, the
    # values the program follows): another value is refused.
    requires: tuple[tuple[str, object, tuple], ...] = ()
    # Sizes whose product the program assumes to be another, (a, b, c) for a b = c (BERT's heads cover its width:
    # where they do not, transformers' forward fails on its output map).
    products: tuple[tuple[str, str, str], ...] = ()
    # Sizes the program reads that the config gives as a fraction of another, each (size, field, default, of):
    # size = int(of * config's field) (GPT-NeoX's rotary part of a head: d_r = int(d_h rotary_pct)).
    derived: tuple[tuple[str, str, float, str], ...] = ()
    # Conditions the program reads from the config, each (symbol, field, default, value): the symbol (f_a) is 1
    # where the config's field is that value, else 0.
    flags: tuple[tuple[str, str, object, object], ...] = ()
    # Why the forward in fp16 is another than the program's ("": it is the same): T5 keeps a matrix in fp32 in
    # fp16, and clamps its blocks' outputs; Marian's encoder layers test theirs for infinities.
    fp16: str = ""
    # Sizes the program needs at least, (name, least), least a number or another size's name: where transformers'
    # forward fails below (T5's buckets; Marian's generate, whose cache has a layer for each encoder layer).
    at_least: tuple[tuple[str, int | str], ...] = ()
    # Config fields that must equal a size, (field, transformers' default, size name): Marian's decoder heads, which
    # the reader does not read (no count depends on them), as its encoder's H.
    matches: tuple[tuple[str, object, str], ...] = ()
    # The config field (and its default) that sets the window of a sliding-window mask the model builds whatever its
    # layers are (Gemma 3's); under sdpa the mask is built where the tokens reach it (m_w). None: the mask is built
    # where some layer slides, with its window. A third element divides the field (ModernBERT's window, half its
    # local_attention).
    window: tuple | None = None
    # Where the forward's tensors depend on more than the sizes (a mixture's routing), what the moments are: the
    # case they take, which holds the most (the figure is then a bound, said so).
    bound: str | None = None
    # Config fields the program reads as sizes that no count depends on, each (name, field, default): the field's
    # positive integer, or the default where the config lacks it or sets null (a number, or another size's name):
    # DeepSeek's groups of experts (n_group, topk_group), its key/value heads (num_key_value_heads, H by default).
    counts: tuple[tuple[str, str, int | str], ...] = ()

    @functools.cached_property
    def _derived(self) -> tuple[tuple[Expr, ...], tuple[Expr, ...] | None]:
        return self.moments()

    @property
    def forward(self) -> tuple[Expr, ...]:
        return self._derived[0]

    @property
    def generate(self) -> tuple[Expr, ...] | None:
        return self._derived[1]


def transient(program: Callable[..., None], generates: bool = True, even: tuple[str, ...] = (),
              requires: tuple[tuple[str, object, tuple], ...] = (), products: tuple[tuple[str, str, str], ...] = (),
              windowed: bool = False, derived: tuple[tuple[str, str, float, str], ...] = (),
              flags: tuple[tuple[str, str, object, object], ...] = (), fp16: str = "",
              at_least: tuple[tuple[str, int | str], ...] = (), matches: tuple[tuple[str, object, str], ...] = (),
              attention: str = "eager", window: tuple | None = None, bound: str | None = None,
              counts: tuple[tuple[str, str, int | str], ...] = ()) -> Transient:
    """The forwards of a family's ``program(timeline, generate)``: the bare one, and generate's where the class
    generates; ``even``, ``requires``, ``products``, ``derived``, ``flags``, ``fp16``, ``at_least``, ``matches``: what
    it assumes and reads (see :class:`Transient`). ``windowed``: the program takes ``sliding`` too, whether some layer
    attends to a window (its masks differ); both are derived, each moment weighted by f_w or 1 - f_w, which the
    config decides. ``attention``: the implementation the timeline follows (:data:`ATTENTIONS`; the building blocks
    below read it); ``window``: see :class:`Transient`; ``bound``: the moments are those of the case that holds the
    most, named so (a mixture's routing, :data:`WORST`); ``counts``: config fields read as sizes (see
    :class:`Transient`)."""
    def moments() -> tuple[tuple[Expr, ...], tuple[Expr, ...] | None]:
        out = []
        for generate in (False, True)[:1 + generates]:
            found: list[Expr] = []
            for sliding, weight in (((False, 1 - f_w), (True, f_w)) if windowed else ((None, 1),)):
                timeline = Timeline(attention)
                program(timeline, generate) if sliding is None else program(timeline, generate, sliding=sliding)
                found += [sympy.expand(weight * m) for m in timeline.peak()]
            out.append(tuple(dict.fromkeys(found)))
        return out[0], out[1] if generates else None

    return Transient(moments, even, requires, products, derived, flags, fp16, at_least, matches, window, bound, counts)


def evaluate_peak(moments, values) -> int:
    """The transient peak for given sizes (SymPy values): the largest moment."""
    from .components import evaluate

    return max(evaluate(m, values) for m in moments)


# ---------------------------------------------------------------------------------------------
# Building blocks: statements the families' forwards share (transformers 5.23's modeling files)
# ---------------------------------------------------------------------------------------------

def activation(elements: Expr) -> Expr:
    """Bytes of ``elements`` in the activation dtype."""
    return w * elements


def upcast(elements: Expr) -> Expr:
    """Bytes of ``.to(torch.float32)`` of ``elements``: a copy below fp32, the tensor itself (nothing new) in fp32."""
    return FP32 * u * elements


def downcast(elements: Expr) -> Expr:
    """Bytes of ``.to(input_dtype)`` of an fp32 tensor: a copy below fp32, nothing new in fp32."""
    return w * u * elements


def positions(t: Timeline) -> str:
    """``position_ids = torch.arange(T) + past_seen_tokens``: T 64-bit integers, one row for the batch."""
    t.new("arange", INT64 * s)
    t.new("position_ids", INT64 * s)
    t.drop("arange")
    return "position_ids"


def causal_mask(t: Timeline, sliding: bool = False, name: str = "mask") -> str:
    """masking_utils.create_causal_mask for eager attention, from a 2D mask of ones: the mask as booleans, the
    aranges of the batch, the head, the queries and the keys, ``causal & padding`` built by broadcasting (the causal
    part 1 x 1 x T x T, the padding b x 1 x 1 x T, their conjunction b x 1 x T x T), then ``torch.where`` to 0 and
    the dtype's minimum: b x 1 x T x T in the activation dtype, held by the model for every layer.
    ``sliding``: create_sliding_window_causal_mask, whose causal part is itself ``window & causal``, the window's
    part ``kv > q - sliding_window`` (the shifted queries, T 64-bit integers, then T x T booleans).
    Under sdpa (the timeline's attention), :func:`sdpa_causal_mask` instead."""
    if t.attention == "sdpa":
        return sdpa_causal_mask(t, sliding, name)
    t.new(f"{name}.mask_2d", BOOL * b * s)  # attention_mask.to(bool)
    boolean_mask(t, sliding, name)
    # eager_mask: torch.where(mask, torch.zeros((), dtype), min_dtype)
    t.new(f"{name}.zero", w)
    t.new(f"{name}.minimum", w)
    t.new(name, activation(b * s * s))
    t.drop(f"{name}.minimum", f"{name}.zero", f"{name}.bool_mask", f"{name}.mask_2d")
    return name


def boolean_mask(t: Timeline, sliding: bool, name: str, built: Expr = 1) -> str:
    """masking_utils.sdpa_mask building the mask (``built``: 0 where it is not built, every size 0): the aranges of
    the batch, the head, the queries and the keys, ``causal & padding`` by broadcasting (:func:`causal_mask`), the
    b x 1 x T x T booleans returned (``expand`` is a view), the aranges dying as it returns."""
    t.new(f"{name}.batch_arange", built * INT64 * b)
    t.new(f"{name}.head_arange", built * INT64)
    for side in ("q", "kv"):  # torch.arange(length) + offset
        t.new(f"{name}.{side}_arange0", built * INT64 * s)
        t.new(f"{name}.{side}_arange", built * INT64 * s)
        t.drop(f"{name}.{side}_arange0")
    # and_masks: result = new_ones(()); result = result & causal(...); result = result & padding(...)
    t.new(f"{name}.ones", built * BOOL)
    if sliding:  # the inner and_masks(sliding_window_overlay, causal_mask_function)
        t.new(f"{name}.inner_ones", built * BOOL)
        t.new(f"{name}.shifted", built * INT64 * s)
        t.new(f"{name}.overlay", built * BOOL * s * s)
        t.drop(f"{name}.shifted")
        t.new(f"{name}.inner1", built * BOOL * s * s)
        t.drop(f"{name}.overlay", f"{name}.inner_ones")
        t.new(f"{name}.causal", built * BOOL * s * s)
        t.new(f"{name}.window_causal", built * BOOL * s * s)
        t.drop(f"{name}.causal", f"{name}.inner1")
        t.new(f"{name}.and1", built * BOOL * s * s)
        t.drop(f"{name}.window_causal", f"{name}.ones")
    else:
        t.new(f"{name}.causal", built * BOOL * s * s)
        t.new(f"{name}.and1", built * BOOL * s * s)
        t.drop(f"{name}.causal", f"{name}.ones")
    t.new(f"{name}.padding", built * BOOL * b * s)
    t.new(f"{name}.bool_mask", built * BOOL * b * s * s)
    t.drop(f"{name}.padding", f"{name}.and1")
    t.drop(f"{name}.batch_arange", f"{name}.head_arange", f"{name}.q_arange", f"{name}.kv_arange")  # sdpa_mask returns
    return f"{name}.bool_mask"


def rotary(t: Timeline, width: Expr, prefix: str = "", exists: Expr = 1, doubled: bool = True) -> tuple[str, ...]:
    """LlamaRotaryEmbedding.forward on the positions (one row, broadcast over the batch): the angles in fp32
    (``position_ids[..., None].float() * inv_freq``, then doubled by ``torch.cat``), their cosine and sine each
    times attention_scaling, cast to the activation dtype. In fp32 the cast is the tensor itself: the fp32 cosine
    and sine are what the layers hold. Returns the names the model holds (the cast pair, and the fp32 pair in
    fp32); ``exists``: 0 where the call is not made (Gemma 3's second kind of layer, absent); ``doubled`` False:
    the angles are not doubled (gpt-oss's ``emb = freqs``), the cosine and sine half a head wide."""
    half = width / 2
    angles = width if doubled else half
    t.new(f"{prefix}positions_f", exists * FP32 * s)
    t.new(f"{prefix}freqs", exists * FP32 * s * half)
    t.drop(f"{prefix}positions_f")
    if doubled:
        t.new(f"{prefix}emb", exists * FP32 * s * width)
    for name in ("cos", "sin"):
        t.new(f"{prefix}{name}_raw", exists * FP32 * s * angles)
        # emb.cos() * attention_scaling: what dies at the return below fp32, and what the layers hold in fp32.
        t.new(f"{prefix}{name}_fp32", exists * FP32 * u * s * angles)
        t.new(f"{prefix}{name}_kept_fp32", exists * FP32 * (1 - u) * s * angles)
        t.drop(f"{prefix}{name}_raw")
    t.new(f"{prefix}cos", exists * downcast(s * angles))
    t.new(f"{prefix}sin", exists * downcast(s * angles))
    t.drop(f"{prefix}freqs", *((f"{prefix}emb",) if doubled else ()), f"{prefix}cos_fp32", f"{prefix}sin_fp32")
    return tuple(f"{prefix}{name}" for name in ("cos", "sin", "cos_kept_fp32", "sin_kept_fp32"))


def linear(t: Timeline, name: str, rows: Expr, n_out: Expr) -> str:
    """``nn.Linear``: one matrix product's result, rows by n_out (a bias is added in the same product)."""
    return t.new(name, activation(rows * n_out))


def rms_normed(t: Timeline, name: str, width: Expr, rows: Expr) -> Expr:
    """LlamaRMSNorm.forward up to its last statement, which its kin change: ``x.to(fp32)``;
    ``variance = x.pow(2).mean(-1)``; ``x * rsqrt(variance + eps)``. Leaves ``{name}.normed`` (fp32, rows by width)
    and ``{name}.variance`` held, for the caller to drop when the function returns; returns the elements."""
    n = rows * width
    t.new(f"{name}.x32", upcast(n))
    t.new(f"{name}.pow", FP32 * n)
    t.new(f"{name}.variance", FP32 * rows)
    t.drop(f"{name}.pow")
    t.new(f"{name}.eps", FP32 * rows)
    t.new(f"{name}.rsqrt", FP32 * rows)
    t.drop(f"{name}.eps")
    t.new(f"{name}.normed", FP32 * n)
    t.drop(f"{name}.rsqrt", f"{name}.x32")
    return n


def rms_norm(t: Timeline, name: str, width: Expr, rows: Expr = None) -> str:
    """LlamaRMSNorm.forward: ``x.to(fp32)``; ``variance = x.pow(2).mean(-1)``; ``x * rsqrt(variance + eps)``
    (:func:`rms_normed`); ``weight * x.to(input_dtype)``. Its input is its caller's."""
    n = rms_normed(t, name, width, b * s if rows is None else rows)
    t.new(f"{name}.cast", downcast(n))
    t.new(name, activation(n))
    t.drop(f"{name}.cast")
    t.drop(f"{name}.normed", f"{name}.variance")  # the function returns
    return name


def gemma_rms_norm(t: Timeline, name: str, width: Expr, rows: Expr = None) -> str:
    """GemmaRMSNorm.forward: ``output = self._norm(x.float())`` (``x * rsqrt(x.pow(2).mean(-1) + eps)``, the
    upcast an argument, dying when _norm returns), ``output * (1.0 + self.weight.float())`` (the weight upcast, a
    vector of ``width``), ``output.type_as(x)``: in fp32 the last product itself is the result."""
    rows = b * s if rows is None else rows
    n = rows * width
    t.new(f"{name}.x32", upcast(n))
    t.new(f"{name}.pow", FP32 * n)
    t.new(f"{name}.mean", FP32 * rows)
    t.drop(f"{name}.pow")
    t.new(f"{name}.eps", FP32 * rows)
    t.drop(f"{name}.mean")
    t.new(f"{name}.rsqrt", FP32 * rows)
    t.drop(f"{name}.eps")
    t.new(f"{name}.normed", FP32 * n)
    t.drop(f"{name}.rsqrt")
    t.drop(f"{name}.x32")
    t.new(f"{name}.weight32", upcast(width))
    t.new(f"{name}.scale", FP32 * width)
    t.drop(f"{name}.weight32")
    # output * (1.0 + weight): below fp32 it dies once cast; in fp32 it is the result.
    t.new(f"{name}.scaled", FP32 * u * n)
    t.new(f"{name}.kept", FP32 * (1 - u) * n)
    t.drop(f"{name}.scale", f"{name}.normed")
    t.new(f"{name}.cast", downcast(n))
    t.drop(f"{name}.scaled")
    return t.join(name, f"{name}.kept", f"{name}.cast")


def layer_norm(t: Timeline, name: str, width: Expr, rows: Expr = None) -> str:
    """``nn.LayerNorm``: native_layer_norm returns the normed rows and their mean and reciprocal deviation (fp32,
    one a row), which die at once."""
    rows = b * s if rows is None else rows
    t.new(name, activation(rows * width))
    t.new(f"{name}.mean", FP32 * rows)
    t.new(f"{name}.rstd", FP32 * rows)
    t.drop(f"{name}.mean", f"{name}.rstd")
    return name


def dense_act_norm(t: Timeline, name: str, rows: Expr, width: Expr) -> str:
    """A masked-LM head's transform (BertPredictionHeadTransform; ModernBERT's and DeBERTa-v2's heads): dense, an
    activation of one torch operation, LayerNorm, each input dying as the next is made. Returns the normed tensor."""
    linear(t, f"{name}_dense", rows, width)
    t.new(f"{name}_act", activation(rows * width))
    t.drop(f"{name}_dense")
    layer_norm(t, name, width, rows)
    t.drop(f"{name}_act")
    return name


def gelu_tanh_python(t: Timeline, name: str, elements: Expr) -> str:
    """NewGELUActivation (``gelu_new``), written in Python: ``0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 *
    pow(x, 3.0))))``, each operation a tensor, each dying when the next one has read it."""
    t.new(f"{name}.half", activation(elements))  # 0.5 * x, the left operand, held to the last product
    previous = None
    for step in ("pow", "scaled", "sum", "inner", "tanh", "plus_one"):
        t.new(f"{name}.{step}", activation(elements))
        if previous is not None:
            t.drop(previous)
        previous = f"{name}.{step}"
    t.new(name, activation(elements))
    t.drop(f"{name}.half", previous)
    return name


def gelu_fast_python(t: Timeline, name: str, elements: Expr, fast: Expr) -> str:
    """GELU as ACT2FN makes it: ``gelu`` is torch's, one tensor; ``gelu_fast`` (where ``fast`` is 1),
    FastGELUActivation written in Python, ``0.5 * x * (1.0 + tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))``,
    each operation a tensor dying when the next one has read it (of 0 bytes where ``fast`` is 0)."""
    size = activation(fast * elements)
    t.new(f"{name}.half", size)  # 0.5 * x, the left operand, held to the last product
    t.new(f"{name}.scaled", size)  # x * 0.7978845608, held while the parenthesis is computed
    t.new(f"{name}.cubic0", size)  # 0.044715 * x
    t.new(f"{name}.cubic", size)  # ... * x
    t.drop(f"{name}.cubic0")
    t.new(f"{name}.plus_one", size)
    t.drop(f"{name}.cubic")
    t.new(f"{name}.inner", size)
    t.drop(f"{name}.scaled", f"{name}.plus_one")
    t.new(f"{name}.tanh", size)
    t.drop(f"{name}.inner")
    t.new(f"{name}.outer", size)
    t.drop(f"{name}.tanh")
    t.new(name, activation(elements))
    t.drop(f"{name}.half", f"{name}.outer")
    return name


def rotate(t: Timeline, name: str, x: str, elements: Expr) -> str:
    """apply_rotary_pos_emb on one of q and k: ``(x * cos) + (rotate_half(x) * sin)``, where rotate_half is
    ``torch.cat((-x2, x1))`` of the two halves of each head."""
    t.new(f"{name}.cos", activation(elements))
    t.new(f"{name}.neg", activation(elements / 2))
    t.new(f"{name}.half", activation(elements))
    t.drop(f"{name}.neg")
    t.new(f"{name}.sin", activation(elements))
    t.drop(f"{name}.half")
    t.new(name, activation(elements))
    t.drop(f"{name}.cos", f"{name}.sin")
    return name


def rotate_pairs(t: Timeline, name: str, elements: Expr) -> str:
    """A rotation by pairs of coordinates (gpt-oss's _apply_rotary_emb on the halves of a head, DeepSeek-V3's
    apply_rotary_pos_emb_interleave on its even and odd coordinates), on ``elements`` of q or k: its two parts (views)
    each times the cosine and the sine, ``a * cos - b * sin`` and ``b * cos + a * sin`` (each product dying once
    summed), then ``torch.cat`` of the two, which die once read."""
    half = activation(elements / 2)
    for part, products in (("first", ("cos", "sin")), ("second", ("cos2", "sin2"))):
        for product in products:
            t.new(f"{name}.{product}", half)
        t.new(f"{name}.{part}", half)
        t.drop(*(f"{name}.{product}" for product in products))
    t.new(name, activation(elements))
    t.drop(f"{name}.first", f"{name}.second")
    return name


def rotate_part(t: Timeline, name: str, rows: Expr, width: Expr, part: Expr) -> str:
    """GPT-NeoX's apply_rotary_pos_emb on ``part`` of each head's ``width`` (views of both sides): the part
    rotated (:func:`rotate`), then ``torch.cat([rotated, rest])``, the rotated part dying with the name bound again."""
    rotated = rotate(t, f"{name}.part", name, rows * part)
    t.new(name, activation(rows * width))
    t.drop(rotated)
    return name


def softmax_fp32(t: Timeline, scores: str, elements: Expr) -> tuple[str, str]:
    """``softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)``: below fp32, a copy of the scores in fp32,
    the softmax in fp32, and its cast back, the only one kept; in fp32 the softmax is kept itself. The scores die
    when the name is bound again."""
    t.new("softmax.input", upcast(elements))
    t.new("softmax.fp32", FP32 * u * elements)
    t.new("probabilities_fp32", FP32 * (1 - u) * elements)
    t.drop("softmax.input")
    t.new("probabilities", downcast(elements))
    t.drop("softmax.fp32", scores)
    return "probabilities", "probabilities_fp32"


def softcap(t: Timeline, name: str, x: str, elements: Expr, capped: Expr = 1) -> str:
    """Gemma 2's softcapping of ``x``, where ``capped`` is 1: ``x / cap``, ``tanh``, ``* cap``, each a tensor, the
    one before dying when the name is bound again; where ``capped`` is 0 (the cap unset), none of them (0 bytes),
    and ``x`` itself is the result."""
    size = activation(capped * elements)
    t.split(x, **{f"{x}.capped": capped, f"{x}.kept": 1 - capped})
    t.new(f"{name}.divided", size)
    t.drop(f"{x}.capped")
    t.new(f"{name}.tanh", size)
    t.drop(f"{name}.divided")
    t.new(f"{name}.product", size)
    t.drop(f"{name}.tanh")
    return t.join(name, f"{name}.product", f"{x}.kept")


def eager_attention(t: Timeline, q: str, k: str, v: str, mask: str, heads: Expr, head_size: Expr,
                    repeated: Expr, capped: Expr | None = None,
                    folded: tuple[Expr, Expr] | None = None) -> tuple[tuple[str, str], tuple[str, str]]:
    """eager_attention_forward: ``repeat_kv`` on the keys and values (a copy to the H query heads where
    ``repeated`` is 1), ``matmul(q, k^T) * scaling``, ``+ mask``, the softmax in fp32 (:func:`softmax_fp32`),
    ``matmul(weights, v)``, ``transpose(1, 2).contiguous()``; ``capped`` (Gemma 2): the scores softcapped after
    scaling where it is 1 (:func:`softcap`). Returns the output and the attention weights, which
    it returns too (the caller holds them: two names, the cast below fp32 and the fp32 softmax in fp32); the output
    is two names too (one of them of 0 bytes), both dying when the caller binds its name again.
    ``folded``: the conditions (the query's, the keys' and values' each) where torch.matmul copies its operand to
    fold batch and heads (``expand(...).reshape(b H, ...)`` of a view it cannot fold: a head-split projection, an
    expanded key/value head), a copy of H heads born before the product and dying as it returns; None: not counted
    (a family whose other moments hold these)."""
    rows = b * heads * s
    t.new("keys_repeated", activation(repeated * rows * head_size))
    t.new("values_repeated", activation(repeated * rows * head_size))
    if folded is not None:
        t.new("query_folded", activation(folded[0] * rows * head_size))
        t.new("keys_folded", activation(folded[1] * rows * head_size))
    t.new("scores", activation(rows * s))
    if folded is not None:
        t.drop("keys_folded", "query_folded")  # matmul returns
    t.new("scaled", activation(rows * s))
    t.drop("scores")
    scores = "scaled" if capped is None else softcap(t, "softcapped", "scaled", rows * s, capped)
    t.new("masked", activation(rows * s))
    t.drop(scores)
    weights = softmax_fp32(t, "masked", rows * s)
    # The product, heads by tokens; transposed to tokens by heads, a copy unless that is contiguous already (c_t 0:
    # one token or one head), when the product itself is returned.
    if folded is not None:
        t.new("values_folded", activation(folded[1] * rows * head_size))
    t.new("context_copied", activation(c_t * rows * head_size))
    t.new("context", activation((1 - c_t) * rows * head_size))
    if folded is not None:
        t.drop("values_folded")  # matmul returns
    t.new("context_contiguous", activation(c_t * rows * head_size))
    t.drop("context_copied", "keys_repeated", "values_repeated")  # the function returns
    return ("context", "context_contiguous"), weights


def scaled_scores(t: Timeline, query: Expr, keys: Expr, scores: Expr) -> str:
    """``torch.matmul(q, k.transpose(-1, -2))`` then its scaling (a product, whatever the factor): matmul folds batch
    and heads of each operand by a copy where it cannot view them together (``query`` and ``keys``: the copies'
    elements, 0 where a view will do), read by bmm and dropped; the ``scores`` die once scaled. Returns ``scaled``,
    for the caller to drop."""
    t.new("query_folded", activation(query))
    t.new("keys_folded", activation(keys))
    t.new("scores", activation(scores))
    t.drop("query_folded", "keys_folded")
    t.new("scaled", activation(scores))
    t.drop("scores")
    return "scaled"


def merge_heads(t: Timeline, rows: Expr, head_size: Expr, folded: Expr) -> tuple[str, str]:
    """``torch.matmul(weights, v)`` then ``transpose(1, 2).contiguous()``, as BERT's and GPT-2's kin write them:
    matmul folds batch and heads of ``v`` by a copy (``values_folded``) where it cannot view them together
    (``folded``: c_bt or c_b for a head-split view, 0 for a cache's whole values), read by bmm and dropped; the
    product, ``rows`` (batch, heads and tokens) by ``head_size``, transposed to tokens by heads by a copy unless that
    is contiguous already (c_t 0: one token or one head), when the product itself is returned. Returns the output's
    two names (one of them of 0 bytes), for the caller to drop."""
    t.new("values_folded", activation(folded * rows * head_size))
    t.new("context_copied", activation(c_t * rows * head_size))
    t.new("context", activation((1 - c_t) * rows * head_size))
    t.drop("values_folded")
    t.new("context_contiguous", activation(c_t * rows * head_size))
    t.drop("context_copied")
    return "context", "context_contiguous"


def causal_mask_unpadded(t: Timeline, queries: Expr, keys: Expr) -> str:
    """masking_utils.create_causal_mask for eager attention without a 2D mask (an encoder-decoder's decoder given
    its ids alone, as generate gives them): the aranges of the batch, the head, the queries and the keys, the
    causal part (1 x 1 x queries x keys booleans), then ``torch.where`` to 0 and the dtype's minimum, broadcast
    over the batch: b x 1 x queries x keys in the activation dtype, held by the model for every layer."""
    t.new("batch_arange", INT64 * b)
    t.new("head_arange", INT64)
    for side, n in (("q", queries), ("kv", keys)):  # torch.arange(length) + offset
        t.new(f"{side}_arange0", INT64 * n)
        t.new(f"{side}_arange", INT64 * n)
        t.drop(f"{side}_arange0")
    t.new("causal", BOOL * queries * keys)
    t.drop("batch_arange", "head_arange", "q_arange", "kv_arange")  # sdpa_mask returns
    t.new("zero", w)
    t.new("minimum", w)
    t.new("mask", activation(b * queries * keys))
    t.drop("minimum", "zero", "causal")
    return "mask"


# Activations that are one tensor: their ACT2FN modules call one function of torch (nn.ReLU, GELUActivation's
# nn.functional.gelu, SiLUActivation, nn.SiLU for "swish").
ONE_OP_ACTIVATIONS = ("relu", "gelu", "silu", "swish")


class Retimed:
    """A timeline whose births are sized at other lengths (``lengths``: {symbol: length}): a building block written
    for a decoder-only model's s tokens run at an encoder-decoder's decoder, s_d tokens or generate's one."""

    def __init__(self, timeline: Timeline, lengths: dict) -> None:
        self.timeline, self.lengths = timeline, lengths

    @property
    def attention(self) -> str:
        """The timeline's attention (the building blocks read it): the same at any length."""
        return self.timeline.attention

    @property
    def masked(self) -> Expr:
        return self.timeline.masked

    @property
    def rotated(self) -> Expr:
        return self.timeline.rotated

    def new(self, name: str, size) -> str:
        return self.timeline.new(name, sympy.sympify(size).subs(self.lengths))

    def drop(self, *names: str) -> None:
        self.timeline.drop(*names)


# ---------------------------------------------------------------------------------------------
# sdpa attention (transformers' default): integrations/sdpa_attention.py and masking_utils.py for sdpa, and what
# torch.nn.functional.scaled_dot_product_attention returns
# ---------------------------------------------------------------------------------------------

def sdpa_causal_mask(t: Timeline, sliding: bool = False, name: str = "mask") -> str:
    """create_causal_mask (``sliding``: create_sliding_window_causal_mask) for sdpa, on a prompt (an empty cache) and
    a 2D mask of ones: the mask as booleans; then sdpa_mask skips the mask (None: sdpa's ``is_causal`` does it)
    after ``fast_all`` reads that no token is padding (``mask.sum() == mask.numel()``: a 64-bit sum and a boolean,
    dying at once), unless a sliding window is no longer than the tokens (``kv_length >= local_size``: m_w), when
    it builds the boolean mask as eager's (:func:`boolean_mask`), which the model holds. Returns its name (0 bytes
    where none is built)."""
    built = m_w if sliding else sympy.Integer(0)
    t.new(f"{name}.mask_2d", BOOL * b * s)  # attention_mask.to(bool)
    t.new(f"{name}.sum", (1 - built) * INT64)
    t.new(f"{name}.all", (1 - built) * BOOL)
    t.drop(f"{name}.sum", f"{name}.all")
    boolean_mask(t, sliding, name, built)
    t.drop(f"{name}.mask_2d")  # create_causal_mask returns
    return t.join(name, f"{name}.bool_mask")


def sdpa_attention(t: Timeline, q: str, k: str, v: str, heads: Expr, head_size: Expr,
                   heads_first: Expr = 0) -> tuple[tuple[str, ...], tuple]:
    """sdpa_attention_forward, on a prompt: grouped key/value heads (1 < K < H) are handed to sdpa as they are
    (``enable_gqa``) where no mask is given and a head is at most 256 wide; else ``repeat_kv`` copies them to the H
    query heads, over more than one token (one token: ``pack_gqa``, views); ``is_causal`` where no mask is given.
    torch's scaled_dot_product_attention turns a boolean mask into the query's dtype (``where``: two scalars, and
    b x 1 x T x T), and its flash kernel (CPU's ``_scaled_dot_product_flash_attention_for_cpu``) returns the output
    and the logsumexp (fp32, one a head and a query), which dies at once: no T x T scores are returned. Counted: what
    torch's operators return; not the scratch inside the kernel (blocks of scores it keeps on chip or per thread).
    The kernel lays its output out as the query: tokens by heads (a transposed projection), when the transpose
    back is no copy; ``heads_first`` 1 where the query is laid out heads by tokens (Phi-3's, a ``torch.cat``), when
    ``transpose(1, 2).contiguous()`` copies it (over more than one token and head: c_t). Whether the layer is given
    a mask is ``t.masked`` (its caller's). Returns the output (its names) and no attention weights."""
    rows = b * heads * s
    masked = t.masked
    repeated = g_kv * c_t * (1 - (1 - masked) * (1 - g_w))  # c_t: more than one token, where heads are grouped
    t.new("keys_repeated", activation(repeated * rows * head_size))
    t.new("values_repeated", activation(repeated * rows * head_size))
    t.new("mask.zero", masked * w)  # convert_boolean_attn_mask: where(mask, 0, -inf) in the query's dtype
    t.new("mask.minimum", masked * w)
    t.new("float_mask", activation(masked * b * s * s))
    t.drop("mask.minimum", "mask.zero")
    t.new("output", activation(rows * head_size))
    t.new("logsumexp", FP32 * rows)
    t.drop("logsumexp", "float_mask")  # scaled_dot_product_attention returns the output alone
    copied = heads_first * c_t
    t.split("output", **{"context": 1 - copied, "output.copied": copied})
    t.new("context_contiguous", activation(copied * rows * head_size))
    t.drop("output.copied")  # attn_output bound again
    t.drop("keys_repeated", "values_repeated")  # sdpa_attention_forward returns
    return ("context", "context_contiguous"), ()


def attend(t: Timeline, q: str, k: str, v: str, mask: str, heads: Expr, head_size: Expr, repeated: Expr,
           capped: Expr | None = None, heads_first: Expr = 0,
           folded: tuple[Expr, Expr] | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The attention of the timeline's implementation: :func:`eager_attention`, or :func:`sdpa_attention` (which
    takes no softcap: transformers' sdpa refuses one, and a program under sdpa requires it unset; ``heads_first``:
    how the query is laid out, which only sdpa's output follows; ``folded``: eager's matmul copies)."""
    if t.attention == "sdpa":
        return sdpa_attention(t, q, k, v, heads, head_size, heads_first)
    return eager_attention(t, q, k, v, mask, heads, head_size, repeated, capped, folded)


# ---------------------------------------------------------------------------------------------
# A mixture of experts: the experts' eager loop, at the routing that holds the most
# ---------------------------------------------------------------------------------------------
#
# transformers 5.23 runs a mixture's experts one at a time under experts_implementation="eager" (MixtralExperts
# .forward; Qwen2-MoE's, Qwen3-MoE's, DeepSeek-V2's and -V3's experts are copies of it, gpt-oss's the same loop with
# biases): for each expert the routing hit, in the order of their indices, the rows of the tokens routed to it are
# gathered, projected, gated, projected back, weighted and added into the output. (Its default, "grouped_mm", sorts
# every token's X_a picks into one batch: other tensors, not derived here.) An iteration's tensors each have one
# row a token routed to its expert, and Python drops them only when the next iteration binds their names again:
# while the loop runs an expert it holds that expert's tensors (n rows) and those of the one it ran before (n' rows).
# What the router and the loop's set-up make is the same for every routing, except expert_hit: one 64-bit index an
# expert hit.
#
# So a routing's peak is the largest, over its consecutive pairs of hit experts, of a sum with nonnegative
# coefficients in n' and n, plus 8 bytes an expert hit (or a moment outside the loop, which no routing changes).
# A token picks an expert at most once (torch.topk's indices are distinct), so no expert gets more than the b s
# tokens: the pairs' sum is largest where two consecutive experts take every token, as when every token is routed
# to the same X_a experts (X_a >= 2; with one expert a token, the loop holds no expert before the one it runs).
# That routing hits X_a experts, and the peak is not monotone in the hits alone: the same two experts taking every
# token, each token's X_a - 2 other picks can go to experts no other token picked, and every expert hit adds a row
# to expert_hit (x_h of them, storage.experts_hit). A row of expert_hit is 8 bytes; moving one token off either
# of the two experts drops a row of every tensor of an iteration (more than 8 bytes: the gathered hidden state
# alone is D activations), and gains at most one expert hit. So the most any routing holds is the program below at
# n = n' = b s with x_h experts hit (:data:`WORST`, said as :data:`ROUTED_BOUND`).
#
# Family by family (each program in its module): what runs beside the loop does not depend on the routing.
# Qwen2-MoE's shared expert runs on every row before the router, its output held through the loop; DeepSeek's
# X_s shared experts (one feed-forward X_s F_e wide) run on every row after it. DeepSeek's group-limited routing
# (V3 always, V2 where topk_method is group_limited_greedy) only narrows the routings: its group tensors have one row
# a token whatever it picks, and where a token's experts all come from one group (topk_group 1) the most experts hit
# are that group's (x_g). gpt-oss's loop (no sentinel class; biases; the clamped gate) is the only eager path in
# 5.23, in training as at inference; at eval, on the CPU as on a GPU, transformers runs
# grouped_mm unless experts_implementation="eager" is asked for, which this program describes.
# tests/test_reference_transient_moe.py forces that routing and measures it, and measures every routing it draws
# against the program at its own counts.

@dataclass(frozen=True)
class Routing:
    """What one layer's routing puts in the experts' loop: the tokens routed to the expert it runs (``current``),
    to the one it ran just before (``previous``, 0 at the first), and the experts hit (``hit``)."""

    current: Expr
    previous: Expr
    hit: Expr


# The routing that holds the most (the comment above): two consecutive experts with every token (the second only
# where a token picks two or more: x_2), and x_h experts hit.
WORST = Routing(x_1 * b * s, x_2 * b * s, x_h)
ROUTED_BOUND = "every token on the same experts, its other picks on experts of its own: the most any routing holds"


def one_hot(t: Timeline, name: str, picks: Expr, classes: Expr, exists: Expr = x_1) -> str:
    """``torch.nn.functional.one_hot(indices, classes)`` on ``picks`` 64-bit indices: on the CPU it checks their
    range first (``aminmax``: two 64-bit scalars, dying at once; not made where the indices are empty, ``exists``
    0; a GPU leaves the check to its scatter), then a zero tensor of picks x classes 64-bit integers, filled in
    place."""
    t.new(f"{name}.min", INT64 * exists)
    t.new(f"{name}.max", INT64 * exists)
    t.drop(f"{name}.min", f"{name}.max")
    return t.new(name, INT64 * picks * classes)


def experts_hit(t: Timeline, mask: str, routing: Routing, classes: Expr) -> str:
    """``expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()``: the picks of each class (64-bit),
    whether it has any, and the indices of those hit, one 64-bit row each."""
    t.new(f"{mask}.counts", INT64 * classes)
    t.new(f"{mask}.any", BOOL * classes)
    t.drop(f"{mask}.counts")
    t.new("expert_hit", INT64 * routing.hit)
    t.drop(f"{mask}.any")
    return "expert_hit"


def experts_loop(t: Timeline, routing: Routing, classes: Expr, width: Expr,
                 body: Callable[[Timeline, str, Expr, str | None], tuple[str, ...]]) -> str:
    """The experts' eager forward on ``b s`` rows of ``width``: ``final_hidden_states = torch.zeros_like(...)``;
    the one-hot mask of the X_a picks over ``classes``, and the experts hit; then the loop, written for the expert
    before (``routing.previous`` rows) and the one it runs (``routing.current``), each iteration: ``expert_idx ==
    num_experts`` (a boolean, dying at once), ``top_k_pos, token_idx = torch.where(expert_mask[expert_idx])`` (one
    nonzero of rows x 2 64-bit indices, both names views of it), ``current_state = hidden_states[token_idx]``, then
    the family's ``body(t, tag, rows, previous)``, which returns the names the iteration keeps bound (its previous
    ones die as the body binds them again). The tensors of the last iteration die when the function returns, with
    the mask and expert_hit; the output is returned."""
    rows = b * s
    final = t.new("experts.final", activation(rows * width))
    mask = one_hot(t, "expert_mask", rows * X_a, classes)
    hit = experts_hit(t, mask, routing, classes)
    kept: tuple[str, ...] = ()
    previous = None
    for tag, routed in (("before", routing.previous), ("now", routing.current)):
        t.new(f"{tag}.is_sentinel", BOOL)
        t.drop(f"{tag}.is_sentinel")
        t.new(f"{tag}.where", 2 * INT64 * routed)
        if previous is not None:
            t.drop(f"{previous}.where")
        t.new(f"{tag}.state", activation(routed * width))
        if previous is not None:
            t.drop(f"{previous}.state")
        kept = body(t, tag, routed, previous)
        previous = tag
    t.drop(mask, hit, "now.where", "now.state", *kept)  # the function returns
    return final


def gated_experts(inner: Expr, fp32_weights: bool) -> Callable[[Timeline, str, Expr, str | None], tuple[str, ...]]:
    """MixtralExperts' iteration after the gathered rows (Qwen2-MoE's, Qwen3-MoE's and DeepSeek's are copies):
    ``gate, up = linear(current_state, gate_up_proj[expert_idx]).chunk(2)`` (one product of 2 ``inner`` columns, the
    chunks views of it); ``current_hidden_states = act_fn(gate) * up``; ``linear(..., down_proj[expert_idx])``;
    ``* top_k_weights[token_idx, top_k_pos, None]`` (the routing weights of the rows, one each); then
    ``index_add_(..., current_hidden_states.to(dtype))`` in place. ``inner``: an expert's width (F_e, Mixtral's F);
    ``fp32_weights``: the router's weights are fp32 (Mixtral's and DeepSeek's), so the weighted rows are fp32 and
    cast back below fp32; else they are in the activation dtype (Qwen's), and the cast is the tensor itself."""
    weights = FP32 if fp32_weights else w

    def body(t: Timeline, tag: str, rows: Expr, previous: str | None) -> tuple[str, ...]:
        t.new(f"{tag}.gate_up", activation(rows * 2 * inner))
        if previous is not None:
            t.drop(f"{previous}.gate_up")
        t.new(f"{tag}.act", activation(rows * inner))
        t.new(f"{tag}.product", activation(rows * inner))
        t.drop(f"{tag}.act")
        if previous is not None:
            t.drop(f"{previous}.weighted")  # current_hidden_states bound again
        t.new(f"{tag}.down", activation(rows * D))
        t.drop(f"{tag}.product")
        t.new(f"{tag}.routing_weights", weights * rows)
        t.new(f"{tag}.weighted", weights * rows * D)
        t.drop(f"{tag}.routing_weights", f"{tag}.down")
        t.new(f"{tag}.cast", (u * w if fp32_weights else 0) * rows * D)  # .to(final_hidden_states.dtype)
        t.drop(f"{tag}.cast")
        return f"{tag}.gate_up", f"{tag}.weighted"

    return body
