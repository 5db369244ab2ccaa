"""The weights of a quantized checkpoint, as its config's ``quantization_config`` declares them: which modules each
method replaces, and what a replaced module holds, tensor by tensor, as the libraries pack it.

Plain Python, so that the command line answers without SymPy: :func:`read` turns a config's quantization_config
into a :class:`Scheme`; :func:`weights` adds up the bytes of every tensor of a model (derivations.memory's tensors,
each with the module it belongs to, evaluated: :class:`Matrix`). Bytes are those the loaded model holds, as the
library allocates them; where a checkpoint's files hold something else, the comment says so.

What each method stores for one linear map of ``n_in`` inputs and ``n_out`` outputs (b bits, groups of g inputs):

* GPTQ (GPTQModel's and AutoGPTQ's QuantLinear [cite: gptqmodel-code] [cite: autogptq-code]): qweight int32
  [ceil(n_in b / 32), n_out], qzeros int32 [ceil(n_in / g), ceil(n_out b / 32)], scales fp16 [ceil(n_in / g), n_out],
  g_idx int32 [n_in] (every layout registers it; act-order, desc_act, only changes its values), bias fp16.
* AWQ (AutoAWQ's WQLinear_GEMM and GEMV [cite: autoawq-code]; GPTQModel's AWQ layers hold the same): GEMM qweight
  int32 [n_in, n_out / (32 / b)], qzeros int32 [n_in / g, n_out / (32 / b)], scales fp16 [n_in / g, n_out], bias fp16.
* bitsandbytes 4-bit (Params4bit [cite: bitsandbytes-4bit]): the packed weight, two values a byte, ceil(N / 2) bytes
  for N elements; an fp32 absmax for each block of 64 and the 16-entry fp32 code; with double quantization, the
  absmax in uint8, an fp32 absmax for each 256 of those, an fp32 offset and the 256-entry fp32 code of that second
  quantization (each tensor its own copy).
* bitsandbytes 8-bit (Int8Params, LLM.int8()): the int8 weight and an fp32 scale (SCB) for each output row.
* FP8, transformers' FineGrainedFP8 (DeepSeek-V3's ``"quant_method": "fp8"``) [cite: transformers-integrations]: the
  float8 weight and an fp32 weight_scale_inv for each block of ``weight_block_size`` (ceil in both dimensions), one
  for the tensor without blocks; a mixture's stacked experts the same, each expert's own.
* fbgemm FP8: the float8 weight, an fp32 scale for each output row, an fp32 bound on the input's scale, an fp32 bias.
* MXFP4 (gpt-oss's experts, as the checkpoint stores them) [cite: rouhani2023]: 4-bit values in blocks of 32 along the
  inputs, two a byte, and an 8-bit shared exponent for each block.

Which modules a method replaces: transformers' quantizers (bitsandbytes, FP8, fbgemm FP8, AWQ, MXFP4) replace every
nn.Linear (bitsandbytes also GPT-2's Conv1D; FP8 also a mixture's stacked experts; MXFP4 those alone) except the
modules the config names (``modules_to_not_convert``, ``llm_int8_skip_modules``; else, and for AWQ always, the
output embedding and a last module whose weight is its last parameter [cite: transformers-quantizers]). GPTQ
(optimum) replaces the linear maps of the repeated blocks (``block_name_to_quantize``,
``modules_in_block_to_quantize``), the head only with ``lm_head``.
A mixture's experts under GPTQ and AWQ are counted as the checkpoints store them: every expert's maps quantized.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .reading import ConfigError

KNOWN = ("gptq", "awq", "bitsandbytes", "fp8", "fbgemm_fp8", "mxfp4")


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


class Matrix(NamedTuple):
    """A module a quantizer may replace, evaluated (derivations.memory.Module): its name ("<i>" for a copy's number),
    its copies, the matrices ``stacked`` in its tensor (a mixture's experts; 1 for a linear map), the maps fused in
    each along the outputs (``pieces``), each one's inputs and outputs, and what transformers builds it as."""

    path: str
    role: str
    copies: int
    stacked: int
    pieces: int
    n_in: int
    n_out: int
    linear: bool
    conv1d: bool
    experts: bool
    output: bool
    numbered: bool


# ---------------------------------------------------------------------------------------------
# Which modules a method replaces
# ---------------------------------------------------------------------------------------------

def skipped(path: str, patterns: Sequence[str]) -> bool:
    """transformers' should_convert_module, negated (quantizers/quantizers_utils.py [cite: transformers-integrations]):
    a pattern skips a module it matches from the start up to a module boundary (as a regular expression: "layer.*"
    matches "layer.11.attn", "mlp.gate" not "mlp.gate_proj"), or that ends with it."""
    boundary = r"(?:(?<=\.)|(?=\.|$))"
    try:
        return any(re.match(rf"(?:{key}){boundary}", path) or path.endswith(key) for key in patterns)
    except re.error as error:
        raise ConfigError(f"quantization_config: a module pattern is not a regular expression ({error})") from None


def _copies_skipped(m: Matrix, patterns: Sequence[str]) -> int:
    """How many of ``m``'s copies ``patterns`` skip: all or none, or, for copies numbered 0, 1, ... (a stack of
    layers), those whose number a pattern names."""
    if "<i>" not in m.path:
        return m.copies if skipped(m.path, patterns) else 0
    each = [skipped(m.path.replace("<i>", str(i)), patterns) for i in range(m.copies)]
    if not m.numbered and len(set(each)) > 1:
        raise ConfigError(f"quantization_config names single copies of {m.path}, whose copies this derivation does "
                          "not number (a stack whose layers differ)")
    return sum(each)


# transformers' modules kept in fp32, which no quantizer replaces (the model's _keep_in_fp32_modules): T5's wo.
KEEP_IN_FP32 = {"t5": ("wo",), "gpt_oss": ("post_attention_layernorm", "input_layernorm", "norm")}
# optimum's names of the module holding the repeated blocks, tried in this order (gptq/constants.py
# [cite: optimum-code]).
BLOCK_PATTERNS = ("transformer.h", "model.decoder.layers", "gpt_neox.layers", "model.layers",
                  "model.language_model.layers", "h", "decoder.layers", "layers")


# ---------------------------------------------------------------------------------------------
# The methods
# ---------------------------------------------------------------------------------------------

class Scheme:
    """One method with its parameters: its words, its ``--json`` object, which modules it replaces
    (:meth:`replaced`), and what one copy of a replaced module holds (:meth:`module_bytes`, :meth:`bias_bytes`)."""

    method = ""
    # transformers' quantizers skip the output embedding unless the config lists the modules to skip (AWQ: always).
    default_skips_always = False

    def __init__(self, qc: Mapping, model_type: str, skip_key: str = "modules_to_not_convert") -> None:
        self.qc = qc
        self.model_type = model_type
        listed = qc.get(skip_key)
        if listed is not None and (not isinstance(listed, list) or not all(isinstance(p, str) for p in listed)):
            raise ConfigError(f"quantization_config: {skip_key} must be a list of module names, got {listed!r}")
        self.listed = listed
        self.parameters: dict = {}

    @property
    def label(self) -> str:
        raise NotImplementedError

    def takes(self, m: Matrix) -> bool:
        """Whether the method replaces a module of this kind (before the names it skips)."""
        return m.linear or m.conv1d

    def patterns(self) -> tuple[str, ...]:
        patterns = tuple(self.listed or ())
        return patterns + KEEP_IN_FP32.get(self.model_type, ())

    def replaced(self, m: Matrix) -> int:
        """How many copies of ``m`` the method replaces."""
        if not self.takes(m):
            return 0
        if m.output and (self.listed is None or self.default_skips_always):
            return 0
        return m.copies - _copies_skipped(m, self.patterns())

    def module_bytes(self, m: Matrix) -> int:
        """What one copy of a replaced module holds for its weight (scales and the like included)."""
        raise NotImplementedError

    def bias_bytes(self, m: Matrix, kept_bits: int) -> int:
        """What one copy of a replaced module holds for its bias (n_out values)."""
        return m.pieces * m.n_out * kept_bits // 8

    def extra(self, m: Matrix, kept_bits: int) -> int:
        """Bytes the method adds beside a module (all its copies), replaced or not."""
        return 0

    def json(self) -> dict:
        return {"method": self.method, **self.parameters}


def _field(qc: Mapping, names: Sequence[str], default, kind: type, what: str):
    """The first of ``names`` the config sets (not null), of type ``kind``; else ``default``."""
    for name in names:
        value = qc.get(name)
        if value is None:
            continue
        if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
            return value
        raise ConfigError(f"quantization_config: {name} {value!r} is not {what}")
    return default


class GPTQ(Scheme):
    """GPTQ: b-bit integers in groups of g inputs, an fp16 scale and a b-bit zero for each group and output."""

    method = "gptq"

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type)
        self.bits = _field(qc, ("bits",), 4, int, "a number of bits")
        if self.bits not in (2, 3, 4, 8):
            raise ConfigError(f"quantization_config: GPTQ packs 2, 3, 4 or 8 bits, got {self.bits}")
        self.group = _field(qc, ("group_size",), 128, int, "a whole number")
        if self.group != -1 and self.group < 1:
            raise ConfigError(f"quantization_config: group_size {self.group} (expected -1 or a positive size)")
        fmt = _field(qc, ("checkpoint_format", "format"), "gptq", str, "a format's name").lower()
        if fmt not in ("gptq", "gptq_v2"):
            raise ConfigError(f"quantization_config: GPTQ's {fmt!r} layout is not derived (gptq, gptq_v2 are)")
        self.block = _field(qc, ("block_name_to_quantize",), None, str, "a module name")
        inside = qc.get("modules_in_block_to_quantize")
        self.inside = None if inside is None else [name for names in inside for name in
                                                   (names if isinstance(names, list) else [names])]
        self.head = _field(qc, ("lm_head",), False, bool, "true or false")
        self.parameters = {"bits": self.bits, "group_size": self.group,
                           "desc_act": _field(qc, ("desc_act",), False, bool, "true or false"),
                           "sym": _field(qc, ("sym",), True, bool, "true or false"), "checkpoint_format": fmt}

    @property
    def label(self) -> str:
        groups = "one group a row" if self.group == -1 else f"groups of {self.group}"
        return (f"GPTQ, {self.bits}-bit integers in {groups} (an fp16 scale and a {self.bits}-bit zero each; "
                "int32 g_idx)")

    def start(self, paths: Sequence[str]) -> None:
        """The blocks' module, as optimum finds it: the first of its patterns that begins a module's name."""
        if self.block is None:
            self.block = next((p for p in BLOCK_PATTERNS if any(path.startswith(p) for path in paths)), None)
            if self.block is None:
                raise ConfigError("quantization_config: GPTQ finds no repeated blocks in this model (optimum looks "
                                  f"for {', '.join(BLOCK_PATTERNS)}; set block_name_to_quantize)")

    def takes(self, m: Matrix) -> bool:
        if m.output and self.head and m.path == "lm_head":
            return True
        if not (m.linear or m.conv1d or m.experts) or not m.path.startswith(self.block):
            return False
        return self.inside is None or any(m.path.endswith(name) for name in self.inside)

    def replaced(self, m: Matrix) -> int:
        return m.copies if self.takes(m) else 0

    def map_bytes(self, n_in: int, n_out: int) -> int:
        b, g = self.bits, n_in if self.group == -1 else self.group
        groups = _ceil(n_in, g)
        return 4 * _ceil(n_in * b, 32) * n_out + 4 * groups * _ceil(n_out * b, 32) + 2 * groups * n_out + 4 * n_in

    def module_bytes(self, m: Matrix) -> int:
        # A stacked tensor of experts is, in the checkpoints, every expert's maps apart (gate and up too).
        return m.stacked * m.pieces * self.map_bytes(m.n_in, m.n_out)

    def bias_bytes(self, m: Matrix, kept_bits: int) -> int:
        return 2 * m.pieces * m.n_out  # fp16, whatever the model's type


class AWQ(Scheme):
    """AWQ: 4-bit integers in groups of g inputs, an fp16 scale and a 4-bit zero for each group and output."""

    method = "awq"
    default_skips_always = True  # transformers' AwqQuantizer adds the default skips to the config's

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type)
        self.bits = _field(qc, ("bits", "w_bit"), 4, int, "a number of bits")
        if self.bits != 4:
            raise ConfigError(f"quantization_config: AWQ packs 4 bits, got {self.bits}")
        self.group = _field(qc, ("group_size", "q_group_size"), 128, int, "a whole number")
        self.version = _field(qc, ("version", "format"), "gemm", str, "a layout's name").lower()
        if self.version not in ("gemm", "gemv"):
            raise ConfigError(f"quantization_config: AWQ's {self.version!r} layout is not derived (gemm, gemv are)")
        self.parameters = {"bits": self.bits, "group_size": self.group, "version": self.version,
                           "zero_point": _field(qc, ("zero_point",), True, bool, "true or false")}

    @property
    def label(self) -> str:
        return (f"AWQ ({self.version.upper()}), 4-bit integers in groups of {self.group} (an fp16 scale and a 4-bit "
                "zero each)")

    def takes(self, m: Matrix) -> bool:
        return m.linear or m.experts

    def map_bytes(self, n_in: int, n_out: int, path: str) -> int:
        pack, g = 32 // self.bits, n_in if self.group == -1 else self.group
        if n_in % g or n_out % pack:
            raise ConfigError(f"quantization_config: AWQ cannot pack {path} ({n_in:,} inputs in groups of {g}, "
                              f"{n_out:,} outputs in words of {pack}); name it in modules_to_not_convert")
        if self.version == "gemm":
            return 4 * n_in * (n_out // pack) + 4 * (n_in // g) * (n_out // pack) + 2 * (n_in // g) * n_out
        # WQLinear_GEMV: the zeros' width rounded up to whole words, then to its kernel's multiple.
        multiplier = {128: 1, 64: 2, 32: 4}.get(min(g, 128))
        if multiplier is None:
            raise ConfigError(f"quantization_config: AWQ's GEMV layout takes groups of 32, 64 or 128 and more, got {g}")
        width = _ceil(_ceil(n_in // g, pack), multiplier) * multiplier
        return 4 * n_out * (n_in // pack) + 4 * n_out * width + 2 * n_out * width * pack

    def module_bytes(self, m: Matrix) -> int:
        return m.stacked * m.pieces * self.map_bytes(m.n_in, m.n_out, m.path)

    def bias_bytes(self, m: Matrix, kept_bits: int) -> int:
        return 2 * m.pieces * m.n_out

    def extra(self, m: Matrix, kept_bits: int) -> int:
        # transformers' replace_quantization_scales: some families' activation gets a scale for each of its inputs,
        # the outputs of the map before it (ScaledActivation, AWQ_SCALES_MAPPINGS), at the model's width.
        before = AWQ_SCALED.get(self.model_type)
        if before is None or m.role != "weight" or not m.path.endswith("." + before):
            return 0
        return m.copies * m.pieces * m.n_out * kept_bits // 8


# transformers' AWQ_SCALES_MAPPINGS, for the families derived here: the map before the scaled activation.
AWQ_SCALED = {"gpt_neox": "dense_h_to_4h"}


class Bnb4bit(Scheme):
    """bitsandbytes' 4-bit NF4 or FP4: blocks of 64, an fp32 absmax each (or, doubly quantized, a uint8 one)."""

    method = "bitsandbytes"
    STORAGE = {"uint8": 1, "int8": 1, "float16": 2, "bfloat16": 2, "float32": 4}

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type, "llm_int8_skip_modules")
        self.kind = _field(qc, ("bnb_4bit_quant_type",), "fp4", str, "nf4 or fp4")
        if self.kind not in ("nf4", "fp4"):
            raise ConfigError(f"quantization_config: bnb_4bit_quant_type {self.kind!r} (expected nf4 or fp4)")
        self.double = _field(qc, ("bnb_4bit_use_double_quant",), False, bool, "true or false")
        storage = _field(qc, ("bnb_4bit_quant_storage",), "uint8", str, "a torch dtype").removeprefix("torch.")
        if storage not in self.STORAGE:
            raise ConfigError(f"quantization_config: bnb_4bit_quant_storage {storage!r} (expected one of "
                              f"{', '.join(self.STORAGE)})")
        self.storage = self.STORAGE[storage]
        self.parameters = {"bits": 4, "bnb_4bit_quant_type": self.kind, "bnb_4bit_use_double_quant": self.double,
                           "bnb_4bit_quant_storage": storage, "blocksize": 64}

    @property
    def label(self) -> str:
        scale = ("a uint8 absmax doubly quantized (an fp32 one for each 256)" if self.double else "an fp32 absmax")
        return f"bitsandbytes {self.kind.upper()}, blocks of 64 with {scale}"

    def module_bytes(self, m: Matrix) -> int:
        n = m.stacked * m.pieces * m.n_in * m.n_out
        s = self.storage
        packed = (n + 1) // (2 * s) * s  # bitsandbytes' quantize_4bit: two values a byte, in words of the storage type
        blocks = _ceil(n, 64)
        code = 16 * 4  # the 16 values of NF4 or FP4, fp32: a tensor of every quantized weight's state
        if self.double:
            # The absmax as uint8 in blocks of 256, each with an fp32 absmax; the fp32 offset; and the second
            # quantization's 256-entry fp32 code, which quantize_blockwise copies into every tensor's state.
            return packed + blocks + 4 * _ceil(blocks, 256) + 4 + 256 * 4 + code
        return packed + 4 * blocks + code


class Bnb8bit(Scheme):
    """bitsandbytes' LLM.int8(): int8 weights, an fp32 scale for each output row."""

    method = "bitsandbytes"

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type, "llm_int8_skip_modules")
        if _field(qc, ("llm_int8_has_fp16_weight",), False, bool, "true or false"):
            raise ConfigError("quantization_config: llm_int8_has_fp16_weight keeps 16-bit weights beside the int8 "
                              "ones; not derived")
        self.parameters = {"bits": 8, "llm_int8_threshold": qc.get("llm_int8_threshold", 6.0)}

    @property
    def label(self) -> str:
        return "bitsandbytes LLM.int8(), int8 with an fp32 scale for each output row"

    def module_bytes(self, m: Matrix) -> int:
        rows = m.stacked * m.pieces * m.n_out
        return rows * m.n_in + 4 * rows


class FineGrainedFP8(Scheme):
    """transformers' FineGrainedFP8: float8 weights, an fp32 scale for each block of weight_block_size."""

    method = "fp8"

    def __init__(self, qc: Mapping, model_type: str) -> None:
        # MiniMax's configs name the modules to skip ignored_layers, which transformers reads as the same.
        skip = "modules_to_not_convert" if qc.get("modules_to_not_convert") is not None else (
            "ignored_layers" if "ignored_layers" in qc else "modules_to_not_convert")
        super().__init__(qc, model_type, skip)
        # Blocks of 128 x 128 unless the config says otherwise; null: one scale for the tensor.
        block = qc.get("weight_block_size", [128, 128])
        if block is not None and (not isinstance(block, list) or len(block) != 2
                                  or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in block)):
            raise ConfigError(f"quantization_config: weight_block_size {block!r} (expected two positive sizes)")
        self.blocks = None if block is None else tuple(block)
        self.static = _field(qc, ("activation_scheme",), "dynamic", str, "dynamic or static").lower() == "static"
        fmt = _field(qc, ("scale_fmt",), "float", str, "float or ue8m0")
        self.scale = 1 if fmt == "ue8m0" else 4  # an 8-bit exponent (float8_e8m0fnu), else fp32
        if _field(qc, ("expert_dtype",), "fp8", str, "fp8") != "fp8":
            raise ConfigError(f"quantization_config: expert_dtype {qc['expert_dtype']!r} is not derived (fp8 is)")
        if qc.get("modules_to_convert"):
            raise ConfigError("quantization_config: FP8 embeddings (modules_to_convert) are not derived")
        self.parameters = {"weight_block_size": block, "activation_scheme": "static" if self.static else "dynamic",
                           "scale_fmt": fmt}

    @property
    def label(self) -> str:
        scale = "an 8-bit exponent" if self.scale == 1 else "an fp32 scale"
        where = (f"for each {self.blocks[0]} x {self.blocks[1]} block" if self.blocks else "for each tensor")
        return f"FP8 (E4M3) weights, {scale} {where}"

    def takes(self, m: Matrix) -> bool:
        return m.linear or m.experts

    def module_bytes(self, m: Matrix) -> int:
        n_out = m.pieces * m.n_out
        weights = m.stacked * n_out * m.n_in
        if not m.experts:  # FP8Linear
            scales = 1 if self.blocks is None else _ceil(n_out, self.blocks[0]) * _ceil(m.n_in, self.blocks[1])
            return weights + (4 if self.blocks is None else self.scale) * scales + (4 if self.static else 0)
        # FP8Experts: gate and up fused keep room for two rows of scales (min_sf_out).
        rows = max(1 if self.blocks is None else _ceil(n_out, self.blocks[0]), m.pieces)
        columns = 1 if self.blocks is None else _ceil(m.n_in, self.blocks[1])
        return weights + self.scale * m.stacked * rows * columns + (4 * m.stacked if self.static else 0)


class FbgemmFP8(Scheme):
    """fbgemm's FP8: float8 weights, an fp32 scale for each output row."""

    method = "fbgemm_fp8"

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type)
        self.parameters = {}

    @property
    def label(self) -> str:
        return "fbgemm FP8 (E4M3), an fp32 scale for each output row"

    def takes(self, m: Matrix) -> bool:
        return m.linear

    def module_bytes(self, m: Matrix) -> int:
        # FbgemmFp8Linear: weight, weight_scale [n_out, 1], input_scale_ub [1] (a buffer, not saved).
        return m.n_out * m.n_in + 4 * m.n_out + 4

    def bias_bytes(self, m: Matrix, kept_bits: int) -> int:
        return 4 * m.n_out  # fp32


class MXFP4(Scheme):
    """MXFP4: 4-bit floats in blocks of 32 inputs sharing an 8-bit exponent (gpt-oss's experts)."""

    method = "mxfp4"

    def __init__(self, qc: Mapping, model_type: str) -> None:
        super().__init__(qc, model_type)
        self.parameters = {"block": 32}

    @property
    def label(self) -> str:
        return "MXFP4, 4-bit floats in blocks of 32 sharing an 8-bit exponent"

    def takes(self, m: Matrix) -> bool:
        return m.experts

    def module_bytes(self, m: Matrix) -> int:
        # The checkpoint's _blocks [X, n_out, n_in / 32, 16] and _scales [X, n_out, n_in / 32], both uint8.
        if m.n_in % 32:
            raise ConfigError(f"quantization_config: MXFP4 needs inputs in whole blocks of 32; {m.path} has "
                              f"{m.n_in:,}")
        rows = m.stacked * m.pieces * m.n_out
        return rows * m.n_in // 2 + rows * m.n_in // 32


def read(config: Mapping) -> Scheme | None:
    """The scheme a config's quantization_config declares, None without one; a :class:`ConfigError` for a method
    this derivation does not know (its bytes would be a guess) or a field it cannot read."""
    qc = config.get("quantization_config")
    if qc is None:
        return None
    if not isinstance(qc, Mapping):
        raise ConfigError(f"quantization_config must be an object, got {qc!r}")
    model_type = str(config.get("model_type", ""))
    method = qc.get("quant_method")
    # transformers reads a bitsandbytes config without quant_method from its load_in_* switches.
    if method is None and (qc.get("load_in_4bit") or qc.get("load_in_8bit")):
        method = "bitsandbytes"
    method = str(method).lower() if method is not None else None
    if method == "bitsandbytes":
        four, eight = (bool(qc.get(k) or qc.get("_" + k)) for k in ("load_in_4bit", "load_in_8bit"))
        if four == eight:
            raise ConfigError("quantization_config: bitsandbytes with neither or both of load_in_4bit and load_in_8bit")
        return Bnb4bit(qc, model_type) if four else Bnb8bit(qc, model_type)
    schemes = {"gptq": GPTQ, "awq": AWQ, "fp8": FineGrainedFP8, "fbgemm_fp8": FbgemmFP8, "mxfp4": MXFP4}
    if method not in schemes:
        raise ConfigError(f"quantization_config: quant_method {method!r} is not one memory derives (it derives "
                          f"{', '.join(KNOWN)}); remove quantization_config to have the weights in --dtype")
    return schemes[method](qc, model_type)


# ---------------------------------------------------------------------------------------------
# The bytes of every tensor
# ---------------------------------------------------------------------------------------------

class Weights(NamedTuple):
    """The weights' bytes under a scheme, and the parameters (elements of the unquantized model) it replaced."""

    bytes: int
    quantized_parameters: int
    quantized_modules: int


def weights(scheme: Scheme, items: Sequence[tuple[int, int, Matrix | None]], kept_bits: int) -> Weights:
    """The bytes of a model's tensors, from (size, copies, module) of each (module: None for a tensor no quantizer
    replaces): a replaced module's weight as the scheme packs it, its bias as the scheme keeps it, every other tensor
    at ``kept_bits``."""
    if isinstance(scheme, GPTQ):
        scheme.start([m.path for _, _, m in items if m is not None])
    # A stack whose copies are all of one part (no dense layers beside the expert ones) numbers them 0, 1, ...
    parts: dict[tuple[str, str], int] = {}
    for _, copies, m in items:
        if m is not None and copies:
            parts[m.path, m.role] = parts.get((m.path, m.role), 0) + 1
    total = quantized = modules = 0
    for size, copies, m in items:
        if m is not None and not m.numbered and parts.get((m.path, m.role)) == 1 and m.path.count("<i>") == 1:
            m = m._replace(numbered=True)
        replaced = 0 if m is None else scheme.replaced(m)
        total += 0 if m is None else scheme.extra(m, kept_bits)
        if replaced:
            each = scheme.module_bytes(m) if m.role == "weight" else scheme.bias_bytes(m, kept_bits)
            total += replaced * each
            if m.role == "weight":
                quantized += replaced * size
                modules += replaced
        total += (copies - replaced) * size * kept_bits // 8
    return Weights(total, quantized, modules)
