r"""What a model holds: its weights in a data type, the key/value cache, training state and activations,
read off the same trees as the parameters, in bytes.

Units say what they are: a kB is 10^3 bytes, a MB 10^6, a GB 10^9; a KiB is 2^10 bytes, a MiB 2^20, a
GiB 2^30. A parameter count is a number, never "binary": 1.5B parameters is 1,500,000,000 of them.

* Weights: every tensor at the data type's width; a 4-bit format stores the matrices of attention and of
  the feed-forward (experts included) in 4 bits with one scale per block, and keeps the rest at 16 bits
  (:data:`FORMATS`).
* Key/value cache: what transformers' cache holds after a forward over T tokens (:func:`cache_rows`).
* Training state: weights, gradients and optimizer states (:data:`OPTIMIZERS`), and ZeRO's partitions.
* Activations: Korthikanti et al.'s per-layer bytes (:data:`korthikanti`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy

from .components import Expr, Part
from .symbols import D, H, b, s

# ---------------------------------------------------------------------------------------------
# Units
# ---------------------------------------------------------------------------------------------

DECIMAL = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
BINARY = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def in_unit(count: int, units: Sequence[tuple[str, int]], digits: int = 2) -> str:
    """Bytes in the largest unit of ``units`` that leaves at least 1 (``digits`` decimals): '440.43 MB'."""
    for name, size in units:
        if count >= size:
            return f"{count / size:,.{digits}f} {name}"
    return f"{count:,} B"


def both_units(count: int) -> str:
    """'440,425,712 bytes = 440.43 MB = 420.02 MiB': exact, then decimal and binary."""
    return f"{count:,} bytes = {in_unit(count, DECIMAL)} = {in_unit(count, BINARY)}"


# ---------------------------------------------------------------------------------------------
# Weights by data type
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Format:
    """How weights are stored: ``bits`` a weight; for a block-wise format, the ``block`` of weights that
    share a scale of ``scale_bits`` (and a zero point of ``zero_bits``), applied to the quantizable
    matrices only, the other tensors at ``kept_bits``."""

    name: str
    label: str
    bits: int
    block: int | None = None
    scale_bits: int = 0
    zero_bits: int = 0
    kept_bits: int = 16

    def tensor_bytes(self, size: int, quantizable: bool) -> int:
        """The bytes of one tensor of ``size`` elements."""
        if self.block is None:
            return size * self.bits // 8
        if not quantizable:
            return size * self.kept_bits // 8
        # The blocks run over the tensor's elements in order (for a matrix: along its rows); a last,
        # partial block has a scale of its own.
        blocks = -(-size // self.block)
        return -(-(size * self.bits + blocks * (self.scale_bits + self.zero_bits)) // 8)


FORMATS = {f.name: f for f in (
    Format("fp32", "32-bit float", 32),
    Format("bf16", "bfloat16", 16),
    Format("fp16", "16-bit float", 16),
    # One byte a parameter, every tensor: a cast, as accelerate's estimator counts int8 (scales not counted).
    Format("fp8", "8-bit float (E4M3 or E5M2), every tensor", 8),
    Format("int8", "8-bit integer, every tensor", 8),
    # GPTQ and AWQ: 4-bit integers in groups of 128, an fp16 scale and a 4-bit zero point per group.
    Format("int4", "4-bit integers, groups of 128 with an fp16 scale and a 4-bit zero point (GPTQ, AWQ)", 4,
           block=128, scale_bits=16, zero_bits=4),
    # bitsandbytes' NF4: blocks of 64 with an fp32 absmax each (without its optional double quantization).
    Format("nf4", "4-bit NormalFloat, blocks of 64 with an fp32 scale (bitsandbytes)", 4, block=64, scale_bits=32),
    # The OCP microscaling format gpt-oss ships its experts in: blocks of 32 sharing an 8-bit exponent.
    Format("mxfp4", "4-bit float, blocks of 32 sharing an 8-bit exponent (OCP MXFP4)", 4, block=32, scale_bits=8),
)}

# The maps that pick or weigh experts: small, and left unquantized (a rounded router routes elsewhere).
ROUTING = frozenset({"router", "shared_expert_gate"})
QUANTIZED_KINDS = frozenset({"attention", "feed-forward"})


@dataclass(frozen=True)
class Tensor:
    """One tensor of a model (``copies`` of it: a layer's, L times): its size and whether a 4-bit format
    quantizes it (a weight matrix of attention or the feed-forward; not an embedding, a norm, a bias, a
    router or a head)."""

    name: str
    size: Expr
    copies: Expr
    quantizable: bool


def tensors(part: Part) -> list[Tensor]:
    """Every tensor of ``part``, a tied one not again."""
    out = []
    for kind, leaf, copies in part.kinds():
        sizes = leaf.tensor_sizes
        for i, size in enumerate(sizes):
            # A linear map's weight comes first, its bias after it.
            weight = i == 0 and leaf.matrix != 0
            out.append(Tensor(leaf.name, size, copies,
                              weight and kind in QUANTIZED_KINDS and leaf.name not in ROUTING))
    return out


def weight_bytes(items: Sequence[tuple[int, int, bool]], fmt: Format) -> int:
    """The bytes of the weights in ``fmt``, from (size, copies, quantizable) of every tensor."""
    return sum(copies * fmt.tensor_bytes(size, quantizable) for size, copies, quantizable in items)


def evaluated(part: Part, values: Mapping[sympy.Symbol, int]) -> list[tuple[int, int, bool]]:
    from .components import evaluate

    return [(evaluate(t.size, values), evaluate(t.copies, values), t.quantizable) for t in tensors(part)]


# ---------------------------------------------------------------------------------------------
# The key/value cache
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CacheRow:
    """An attention block that caches: ``per_copy`` elements a token in each of its ``copies``; ``cross``:
    an encoder-decoder's cross-attention, which caches each source token once."""

    name: str
    per_copy: Expr
    copies: Expr
    cross: bool

    @property
    def per_token(self) -> Expr:
        return self.copies * self.per_copy


def cache_rows(part: Part) -> list[CacheRow]:
    """The blocks of ``part`` that leave keys and values (or a latent) in the cache; a block that is built
    but not run (``applied`` 0) leaves none."""
    out: list[CacheRow] = []

    def visit(p: Part, qualified: str, copies: Expr) -> None:
        if p.applied == 0:
            return
        copies = copies * p.repeat
        if p.cache != 0:
            cross = any(op.keys is not None for op in p.ops)
            out.append(CacheRow(qualified.split(".", 1)[1] if "." in qualified else qualified, p.cache, copies, cross))
        for c in p.children:
            visit(c, f"{qualified}.{c.name}", copies)

    visit(part, part.name, sympy.Integer(1))
    return out


def kept(tokens: int, window: int | None) -> int:
    """Tokens a layer's cache holds after a forward over ``tokens``: all of them, or, in a sliding-window
    layer, the last window − 1 (transformers' DynamicSlidingWindowLayer keeps ``[-window + 1:]``: the
    current token and those window − 1 are all a query at the next position attends to)."""
    if window is None:
        return tokens
    # Python's slice, as transformers writes it: a window of 1 slices [-0:], which keeps everything.
    return len(range(tokens)[1 - window:])


def cache_elements(rows: Sequence[tuple[int, int, bool]], tokens: int, windows: Sequence[int | None],
                   source: int | None = None) -> int:
    """Elements in the cache for one sequence, from (per copy, copies, cross) of each caching block: the
    self-attention layers in order (``windows``, one per layer), each keeping :func:`kept` tokens; the
    cross-attention ones ``source`` tokens (the encoder's; default ``tokens``)."""
    self_rows = [(per_copy, copies) for per_copy, copies, cross in rows if not cross]
    assert sum(c for _, c in self_rows) == len(windows), "one window per self-attention layer"
    kept_tokens = iter([kept(tokens, w) for w in windows])
    total = 0
    for per_copy, copies in self_rows:
        total += per_copy * sum(next(kept_tokens) for _ in range(copies))
    source = tokens if source is None else source
    return total + sum(per_copy * copies * source for per_copy, copies, cross in rows if cross)


# ---------------------------------------------------------------------------------------------
# Training state
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Optimizer:
    """Bytes a parameter needs for training: its ``weights`` and ``gradients`` in the training data type,
    and the optimizer's ``states`` (a mixed-precision master copy included)."""

    name: str
    label: str
    weights: int
    gradients: int
    states: int

    @property
    def per_parameter(self) -> int:
        return self.weights + self.gradients + self.states


OPTIMIZERS = {o.name: o for o in (
    # torch.optim.Adam(W) on fp32 weights: exp_avg and exp_avg_sq, 4 bytes each.
    Optimizer("adam", "Adam, fp32", 4, 4, 8),
    # Mixed precision (ZeRO's K = 12): 16-bit weights and gradients; an fp32 master copy, momentum, variance.
    Optimizer("adam-mixed", "Adam, mixed precision", 2, 2, 12),
    Optimizer("adam-mixed-fp32-grads", "Adam, mixed precision, fp32 gradients", 2, 4, 12),
    # torch.optim.SGD(momentum=...) on fp32 weights: one momentum buffer.
    Optimizer("sgd", "SGD with momentum, fp32", 4, 4, 4),
)}

# bitsandbytes' 8-bit Adam (Adam8bit): two uint8 states a parameter, quantized in blocks of 256 with an
# fp32 absmax each, for tensors of at least 4,096 elements (min_8bit_size); smaller tensors keep fp32
# states. Plus its two 256-entry fp32 quantization maps, one of each shared by all the 8-bit tensors.
ADAM_8BIT_BLOCK = 256
ADAM_8BIT_MIN_SIZE = 4096
ADAM_8BIT_MAPS = 2 * 256 * 4


def adam_8bit_states(sizes: Sequence[tuple[int, int]]) -> int:
    """The bytes of Adam8bit's states for tensors of (size, copies): the fp32 weights and gradients apart."""
    total = ADAM_8BIT_MAPS if any(size >= ADAM_8BIT_MIN_SIZE for size, _ in sizes) else 0
    for size, copies in sizes:
        if size >= ADAM_8BIT_MIN_SIZE:
            total += copies * (2 * size + 2 * 4 * -(-size // ADAM_8BIT_BLOCK))
        else:
            total += copies * 8 * size
    return total


def zero(parameters: int, devices: int, stage: int, optimizer: Optimizer = OPTIMIZERS["adam-mixed"]) -> int:
    """Bytes of model states on each of ``devices`` with ZeRO ``stage`` (0: none; 1: optimizer states
    partitioned; 2: and gradients; 3: and weights). A partition holds ceil(Ψ / N) of each tensor's elements
    (DeepSpeed pads the flattened parameters to a multiple of N)."""
    share = -(-parameters // devices)
    weights = optimizer.weights * (share if stage >= 3 else parameters)
    gradients = optimizer.gradients * (share if stage >= 2 else parameters)
    states = optimizer.states * (share if stage >= 1 else parameters)
    return weights + gradients + states


# ZeRO's running example (Rajbhandari et al. 2020, Figure 1): Ψ = 7.5B parameters on N_d = 64 devices.
ZERO_EXAMPLE_PARAMETERS = 7_500_000_000
ZERO_EXAMPLE_DEVICES = 64

# ---------------------------------------------------------------------------------------------
# Activations (Korthikanti et al. 2022, Megatron's GPT layer, 16-bit activations, 1-byte dropout masks)
# ---------------------------------------------------------------------------------------------

t = sympy.Symbol("t", positive=True, integer=True)  # tensor-parallel degree
h, a = D, H
# Per layer, in bytes: attention 11sbh + 5as²b, MLP 19sbh, the two LayerNorms 4sbh.
korthikanti = {
    "none": s * b * h * (34 + 5 * a * s / h),
    "tensor_parallel": s * b * h * (10 + 24 / t + 5 * a * s / (h * t)),
    "tensor_sequence_parallel": s * b * h * (34 / t + 5 * a * s / (h * t)),
    "tensor_parallel_selective": s * b * h * (10 + 24 / t),
    "tensor_sequence_parallel_selective": s * b * h * 34 / t,
    "full_recomputation": 2 * s * b * h,
}
# The attention term's share against the rest: 5as/h (GPT-3: 80; MT-NLG: 64).
attention_ratio = 5 * a * s / h


def kv_cache(config: Mapping, architecture: str | None, tokens: int, source: int | None = None,
             batch: int = 1) -> int:
    """Elements in the key/value cache of the class ``config`` builds, after a forward over ``tokens``
    tokens (an encoder-decoder's decoder tokens; ``source``: its encoder's, default ``tokens``), for a batch."""
    from . import configs
    from .components import evaluate

    resolved = configs.resolve(config, architecture)
    rows = [(evaluate(r.per_copy, resolved.values), evaluate(r.copies, resolved.values), r.cross)
            for r in cache_rows(resolved.part)]
    layers = sum(copies for _, copies, cross in rows if not cross)
    windows = configs.READERS[configs.read_model_type(config)].windows(config, layers)
    return batch * cache_elements(rows, tokens, windows, source)


# ---------------------------------------------------------------------------------------------
# Activations as transformers' own layers save them (eager attention, training mode, fp32 on CPU)
# ---------------------------------------------------------------------------------------------
# Counted as distinct storages that autograd keeps for the backward pass (a view, such as a key split off
# the fused QKV output, shares its tensor's storage), the weights not counted: elements of one sequence,
# per layer. On CPU a dropout keeps its random scale as a float tensor of its input's size (input * noise,
# where CUDA's fused kernel keeps a 1-byte mask). In 16-bit training the norms' inputs are cast to fp32 and
# the count differs.

from .symbols import F, K, d_h  # noqa: E402

# GPT2Block: ln_1, attention, dropout, residual; ln_2, MLP (gelu_new), dropout, residual.
gpt2_saved = {
    # LayerNorm keeps its input and, per token, a mean and a reciprocal standard deviation: twice.
    "layer_norms": 2 * (s * D + 2 * s),
    # c_attn's input (ln_1's output), its fused output (Q, K^T and V are views of it: 3 s D), the
    # softmax's output, the head outputs merged (c_proj's input).
    "attention": s * D + 3 * s * D + H * s**2 + s * D,
    # c_fc's input (ln_2's output); gelu_new, written as Python arithmetic, keeps four s-by-F tensors
    # (c_fc's output for pow, tanh's output, 0.5 x and 1 + tanh(...) for their product); c_proj's input.
    "mlp": s * D + 4 * s * F + s * F,
}
# With dropout (attn_pdrop, resid_pdrop > 0): the noise of the attention weights and the dropped weights
# themselves (the weighted sum's operand), and the noise of each residual branch.
gpt2_dropout = 2 * H * s**2 + 2 * s * D

# LlamaDecoderLayer: RMSNorm, attention with rotary positions, residual; RMSNorm, SwiGLU MLP, residual.
# repeat_kv expands the K key/value heads to H and reshapes, and matmul folds the batch into its bmm's batch:
# the operands kept are copies of H heads, except with one key/value head and one sequence, where both
# reshapes are views of that one head (and with K = H there is nothing to repeat).
H_r = sympy.Symbol("H_r", positive=True, integer=True)


def repeated_heads(heads: int, kv_heads: int, batch: int) -> int:
    """The heads of the keys and values that the attention's matmuls keep: H_r."""
    return 1 if kv_heads == 1 and batch == 1 else heads


llama_saved = {
    # RMSNorm keeps its input (for pow), the per-token reciprocal root (rsqrt's output) and the normalized
    # x (for the weight's gradient); the projections keep its output: twice.
    "rms_norms": 2 * (3 * s * D + s),
    # Q after rotation and K, V as the matmuls take them (H_r heads each, below), the softmax's output, the
    # head outputs merged (o_proj's input).
    "attention": H * s * d_h + 2 * H_r * s * d_h + H * s**2 + H * s * d_h,
    # gate's output (SiLU's input), SiLU's output and up's output (their product's operands), the product
    # (down's input).
    "mlp": 4 * s * F,
}
# The rotary cos and sin (s by d_h each), computed once by the model and kept by every layer's rotation:
# one storage each, counted once for the whole model.
llama_rotary = 2 * s * d_h
# K is not in the count, only H_r: the stored heads matter only in the view case.
assert K not in sympy.Add(*llama_saved.values()).free_symbols
