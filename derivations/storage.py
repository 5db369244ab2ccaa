"""What memory holds, as plain rules on integers: units, storage formats, optimizers' states, ZeRO's
partitions, and which tokens a key/value cache keeps.

No SymPy here: the command line's ``memory`` uses these on the compiled derivations
(:mod:`derivations.compiled`), and :mod:`derivations.memory` on the trees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

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
# Sizes and lengths as a person writes them: "24GB", "24GiB", "80G", "32k"
# ---------------------------------------------------------------------------------------------

# A size's units, lowercase: the decimal ones (k, M, G, T: powers of 1000) and the binary ones (Ki, Mi, Gi, Ti:
# powers of 1024), with or without the final B. A bare G means GB, 10^9 bytes, as GPU memory is sold ("24G" is
# 24,000,000,000 bytes); write GiB for 2^30.
BYTE_UNITS = {"": 1, "b": 1,
              **{p + b: 1000 ** n for n, p in enumerate("kmgt", 1) for b in ("", "b")},
              **{p + "i" + b: 1024 ** n for n, p in enumerate("kmgt", 1) for b in ("", "b")}}
BYTES_ACCEPTED = ("a whole number of bytes, or a number with a unit: kB, MB, GB, TB (powers of 1000; G alone "
                  "means GB), KiB, MiB, GiB, TiB (powers of 1024), e.g. 24GB, 24GiB, 80G, 1.5TB")
# A length in tokens: k is 1,024 and M is 1,048,576 (1024²), as model cards write context lengths ("32k" is
# 32,768 tokens, "128K" 131,072); a plain number is taken as written.
TOKEN_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2}
TOKENS_ACCEPTED = ("a whole number of tokens, or a number with k (1,024) or M (1,048,576), e.g. 32768, 32k, 128K, 1M")
_QUANTITY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def _quantity(text: str, units: dict[str, int], what: str, accepted: str) -> int:
    """A number (digits, perhaps with a decimal point) times a unit of ``units``, exactly; else one line naming
    what is accepted."""
    from .reading import ConfigError

    found = _QUANTITY.fullmatch(str(text))
    unit = found[2].lower() if found else ""
    if not found or unit not in units:
        raise ConfigError(f"{what} {text!r}: expected {accepted}")
    value = Fraction(found[1]) * units[unit]
    if value.denominator != 1:
        raise ConfigError(f"{what} {text!r} is not a whole number of {'bytes' if what == 'size' else 'tokens'}")
    return int(value)


def parse_bytes(text: str) -> int:
    """Bytes from a size as a person writes it: '24GB' is 24 * 10**9, '24GiB' 24 * 2**30, '80G' 80 * 10**9
    (G means GB, as GPU memory is sold), '1.5TB' 1,500,000,000,000, '4096' 4,096; units in any case. A
    :class:`~derivations.reading.ConfigError` names what is accepted."""
    return _quantity(text, BYTE_UNITS, "size", BYTES_ACCEPTED)


def parse_tokens(text: str) -> int:
    """Tokens from a length as a person writes it: '32k' is 32 * 1024 = 32,768 (k is 1,024, as model cards write
    context lengths; so '100k' is 102,400), '1M' 1,048,576, '32768' 32,768. At least 1; a
    :class:`~derivations.reading.ConfigError` names what is accepted."""
    from .reading import ConfigError

    tokens = _quantity(text, TOKEN_UNITS, "length", TOKENS_ACCEPTED)
    if tokens < 1:
        raise ConfigError(f"length {text!r}: expected at least 1 token")
    return tokens


# ---------------------------------------------------------------------------------------------
# Weights by data type
# ---------------------------------------------------------------------------------------------

class Format(NamedTuple):
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

# torch's names of the data types, as a config's torch_dtype spells them, for the formats that are those types.
DTYPE_ALIASES = {"float32": "fp32", "float": "fp32", "bfloat16": "bf16", "float16": "fp16", "half": "fp16",
                 "float8_e4m3fn": "fp8", "float8_e5m2": "fp8"}


def format_name(text: str) -> str | None:
    """The format a name means (``bf16``, ``bfloat16``, ``BF16``: ``bf16``), None for no format."""
    name = text.strip().lower()
    name = DTYPE_ALIASES.get(name, name)
    return name if name in FORMATS else None


def weight_bytes(items: Sequence[tuple[int, int, bool]], fmt: Format) -> int:
    """The bytes of the weights in ``fmt``, from (size, copies, quantizable) of every tensor."""
    return sum(copies * fmt.tensor_bytes(size, quantizable) for size, copies, quantizable in items)



# ---------------------------------------------------------------------------------------------
# The key/value cache: which tokens a layer keeps
# ---------------------------------------------------------------------------------------------

def kept(tokens: int, window: int | None) -> int:
    """Tokens a layer's cache holds after a forward over ``tokens``: all of them, or, in a sliding-window
    layer, the last window − 1 (transformers' DynamicSlidingWindowLayer keeps ``[-window + 1:]``: the
    current token and those window − 1 are all a query at the next position attends to)."""
    if window is None:
        return tokens
    # Python's slice, as transformers writes it: a window of 1 slices [-0:], which keeps everything.
    return len(range(tokens)[1 - window:])


def attended(tokens: int, window: int | None) -> int:
    """Keys the query of the token after ``tokens`` reads in a layer: those its cache kept (:func:`kept`) and
    its own (the cache returns both: a sliding window's min(T + 1, window))."""
    return kept(tokens, window) + 1


def cache_elements(rows: Sequence[tuple[int, int, bool]], tokens: int, windows: Sequence[int | None],
                   source: int | None = None) -> int:
    """Elements in the cache for one sequence, from (per copy, copies, cross) of each caching block: the
    self-attention layers in order (``windows``, one per layer), each keeping :func:`kept` tokens; the
    cross-attention ones ``source`` tokens (the encoder's; default ``tokens``), or, where ``cross`` is a count
    rather than True, that many (an encoder's fixed frames: Whisper's)."""
    self_rows = [(per_copy, copies) for per_copy, copies, cross in rows if not cross]
    assert sum(c for _, c in self_rows) == len(windows), "one window per self-attention layer"
    kept_tokens = iter([kept(tokens, w) for w in windows])
    total = 0
    for per_copy, copies in self_rows:
        total += per_copy * sum(next(kept_tokens) for _ in range(copies))
    source = tokens if source is None else source
    return total + sum(per_copy * copies * (source if cross is True else cross) for per_copy, copies, cross in rows
                       if cross)


def cached(rows: Sequence[tuple[int, int, bool]], tokens: int, windows_of: Callable[[int], Sequence[int | None]],
           source: int | None = None) -> tuple[int, tuple[int | None, ...]]:
    """:func:`cache_elements`, and the windows it kept: ``windows_of(layers)`` gives each self-attention layer's
    (its reader's, from the config: ``configs.READERS[model_type].windows``)."""
    windows = tuple(windows_of(sum(copies for _, copies, cross in rows if not cross)))
    return cache_elements(rows, tokens, windows, source), windows


# ---------------------------------------------------------------------------------------------
# Training state
# ---------------------------------------------------------------------------------------------

class Optimizer(NamedTuple):
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

# bitsandbytes' 8-bit Adam (Adam8bit, optim/optimizer.py [cite: bitsandbytes-code]; blocks of 2,048 before its 0.44.0):
# two uint8 states a parameter, quantized in blocks of 256 with an
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
# Activations: Korthikanti et al. 2022, Megatron's GPT layer, 16-bit activations, 1-byte dropout masks
# ---------------------------------------------------------------------------------------------
# Bytes one layer keeps for the backward, for s tokens, a batch of b, a width h and a heads (numbers or SymPy
# symbols alike: derivations.memory writes the paper's Table 2 from these).

def activations(s, b, h, a):
    """No recomputation: attention 11sbh + 5as²b, the MLP 19sbh, the two LayerNorms 4sbh."""
    return 34 * s * b * h + 5 * a * s * s * b


def activations_selective(s, b, h):
    """Selective recomputation: attention's products (the as² terms) recomputed, not kept."""
    return 34 * s * b * h


def activations_full(s, b, h):
    """Full recomputation: only the layer's input, 2sbh, is kept."""
    return 2 * s * b * h


# ---------------------------------------------------------------------------------------------
# The forward at inference: the values its transient moments are evaluated at (derivations.transient)
# ---------------------------------------------------------------------------------------------

def activation_bytes(fmt: Format) -> int:
    """Bytes of one activation: a model computes in its weights' dtype, 4 bytes in fp32 and 2 in a 16-bit one; a
    format of 8 or 4 bits dequantizes its weights and computes in 16 bits."""
    return 4 if fmt.bits == 32 else 2


def transient_values(values: dict[str, int], tokens: int, batch: int, fmt: Format,
                     target: int | None = None) -> dict[str, int]:
    """The sizes by name (a reader's), with the tokens s, the batch b, the bytes of an activation w, whether an
    upcast to fp32 copies (u), and the conditions the moments are multiplied by, each 1 or 0 (derivations.symbols):
    a second layer (l_2), key/value heads copied to the query heads (g_kv: more than one of them, fewer than the
    query heads; one is expanded as a view), attention's output transposed by a copy (c_t: more than one token and
    more than one head), a view of a fused projection copied to fold batch and heads (c_b: more than one of each), and of a head-split
    one (c_bt: more than one sequence, head and token); an encoder-decoder's decoder's tokens s_d (``target``)
    with its conditions (l_2d, c_td, c_btd); under sdpa, a head wider than 256 (g_w); ALiBi's power of two (H_a,
    a_r)."""
    width = activation_bytes(fmt)
    out = dict(values) | {"s": tokens, "b": batch, "w": width, "u": int(width < 4)}
    heads = values.get("H")
    out["l_2"] = int(values.get("L", 1) >= 2)
    out["g_kv"] = int(heads is not None and 1 < values.get("K", heads) < heads)
    out["g_1"] = int(heads is not None and values.get("K", heads) == 1 < heads)  # one key/value head, expanded
    out["c_t"] = int(tokens > 1 and (heads or 1) > 1)
    out["c_b"] = int(batch > 1 and (heads or 1) > 1)
    out["c_bt"] = int(batch > 1 and (heads or 1) > 1 and tokens > 1)
    out["b_2"] = int(batch > 1)  # a second sequence
    # An encoder-decoder's decoder reads s_d tokens (``target``, else ``tokens``), in L_d layers.
    out["s_d"] = target or tokens
    out["l_2d"] = int(values.get("L_d", values.get("L", 1)) >= 2)
    out["c_td"] = int(out["s_d"] > 1 and (heads or 1) > 1)
    out["c_btd"] = int(batch > 1 and (heads or 1) > 1 and out["s_d"] > 1)
    # Under sdpa: a head wider than 256 (transformers' use_gqa_in_sdpa then repeats grouped key/value heads).
    out["g_w"] = int(values.get("d_h", 0) > 256)
    if heads is not None:  # ALiBi's slopes: the largest power of two at most H, and whether H is not one
        out["H_a"] = 1 << (heads.bit_length() - 1)
        out["a_r"] = int(out["H_a"] != heads)
    if "X_a" in values:  # a mixture's experts loop, at the routing that holds the most (derivations.transient)
        out |= experts_hit(values, tokens * batch)
    if "G_x" in values:  # DeepSeek's groups of experts: the mask of the groups is copied to the experts, or viewed
        out["c_g"] = int(values["G_x"] > 1 and values["X"] // values["G_x"] > 1)
    if "L_f" in values:  # the first L_f layers dense (DeepSeek): which kinds of layer come first and later
        layers, dense = values.get("L", 1), values["L_f"]
        out |= {"l_fd": int(dense >= 1), "l_d2": int(dense >= 2), "l_e2": int(layers - max(dense, 1) >= 1)}
    return out


def experts_hit(values: Mapping[str, int], tokens: int) -> dict[str, int]:
    """The routing conditions of a mixture's experts loop for ``tokens`` tokens (derivations.transient.WORST): a
    token picks an expert (x_1), two or more (x_2); and x_h, the most experts a layer's routing hits while two of
    them take every token: those two, and each token's X_a - 2 others on distinct experts until every expert is hit
    (x_g: every expert of one group, where each token's experts come from one group)."""
    picked, experts = values["X_a"], values["X"]
    hit = max(picked, 2 + (picked - 2) * tokens)
    # Within one group (DeepSeek's routing limited to one group a token: G_x groups of X / G_x experts), where the
    # token's picks fit in it.
    group = experts // values["G_x"] if values.get("G_x") else experts
    return {"x_1": int(picked >= 1), "x_2": int(picked >= 2), "x_h": min(experts, hit),
            "x_g": min(group if picked <= group else experts, hit)}
