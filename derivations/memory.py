r"""What a model holds: its weights in a data type, the key/value cache, training state and activations,
read off the same trees as the parameters, in bytes.

Units say what they are: a kB is 10^3 bytes, a MB 10^6, a GB 10^9; a KiB is 2^10 bytes, a MiB 2^20, a
GiB 2^30. A parameter count is a number, never "binary": 1.5B parameters is 1,500,000,000 of them.

* Weights: every tensor at the data type's width; a 4-bit format stores the matrices of attention and of
  the feed-forward (experts included) in 4 bits with one scale per block, and keeps the rest at 16 bits
  (:func:`tensors`; the formats in :data:`derivations.storage.FORMATS`).
* Key/value cache: what transformers' cache holds after a forward over T tokens (:func:`cache_rows`).
* Training state: weights, gradients and optimizer states, and ZeRO's partitions, and activations by Korthikanti et
  al.'s formula: on plain integers, in :mod:`derivations.storage`, which the command line uses without SymPy.

What the memory page shows beyond these (the published figures it reconciles, what transformers' own layers save,
its picture) is the site's: ``derivations/site/memory.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from . import configs, registry, storage
from .components import Expr, Part, evaluate
from .symbols import s, s_d

# ---------------------------------------------------------------------------------------------
# Weights: which tensors a format quantizes
# ---------------------------------------------------------------------------------------------

# The maps that pick or weigh experts: small, and left unquantized (a rounded router routes elsewhere).
ROUTING = frozenset({"router", "shared_expert_gate"})
QUANTIZED_KINDS = frozenset({"attention", "feed-forward"})
# What the quantizers of a config's quantization_config replace (derivations.quantization) is a module of a class:
# transformers 5.x holds a router's weight in a module of its own (MixtralTopKRouter, DeepseekV3TopkRouter...), not
# in an nn.Linear, so none of them replaces it; GPT-1's and GPT-2's layers are Conv1D modules, which bitsandbytes and
# GPTQ replace and AWQ and FP8 do not. tests/test_reference_quantized.py checks every leaf against the module it is.
NOT_LINEAR = frozenset({"router"})
# ... except Llama 4's: Llama4Router is an nn.Linear (a subclass), which the quantizers replace as any other.
LINEAR_ROUTERS = frozenset({"llama4_text", "llama4"})
CONV1D_LAYERS = frozenset({"gpt2", "openai-gpt"})


@dataclass(frozen=True)
class Tensor:
    """One tensor of a model (``copies`` of it: a layer's, L times): its size and whether a 4-bit format
    quantizes it (a weight matrix of attention or the feed-forward; not an embedding, a norm, a bias, a
    router or a head); and what a config's quantizer needs to know of it (:class:`Module`), None for a tensor that
    is no linear map's weight or bias."""

    name: str
    size: Expr
    copies: Expr
    quantizable: bool
    module: Module | None = None


@dataclass(frozen=True)
class Module:
    """The module that holds a weight matrix (or its bias, ``role``), as transformers names and builds it:
    ``path`` its name ("model.layers.<i>.self_attn.q_proj", "<i>" a copy's number, ``numbered``: the copies are
    numbered 0, 1, ... in that place), ``shape`` (copies stacked, pieces fused, inputs, outputs: Part.shape),
    whether it is an nn.Linear (``linear``; a Conv1D: ``conv1d``) or a mixture's stacked ``experts``, and whether
    transformers' quantizers leave it out by default (``output``: the output embedding, or the last module when its
    weight is its last parameter: quantizers.base.get_keys_to_not_convert)."""

    path: str
    role: str
    shape: tuple[Expr, ...]
    linear: bool
    conv1d: bool
    experts: bool
    output: bool
    numbered: bool


def _walk(part: Part, kind: str = "", module: str = "", copies: Expr = sympy.Integer(1), numbered: bool = True):
    """``(kind, leaf, copies, module path, numbered)`` for every leaf, in the order of Part.kinds."""
    kind = part.kind or kind
    if part.path is not None:
        module = ".".join(filter(None, [module, part.path] + (["<i>"] if part.repeat != 1 else [])))
        numbered = numbered and not part.copies and module.count("<i>") <= 1
    copies = copies * part.repeat
    if part.expr is not None:
        yield kind, part, copies, module, numbered
    for c in part.children:
        yield from _walk(c, kind, module, copies, numbered)


def tensors(part: Part, model_type: str = "") -> list[Tensor]:
    """Every tensor of ``part``, a tied one not again (``model_type``: the family's, for the module classes)."""
    from .symbols import V

    leaves = list(_walk(part))
    weighted = [leaf for _, leaf, _, _, _ in leaves if leaf.tensor_sizes]
    out = []
    for kind, leaf, copies, path, numbered in leaves:
        sizes = leaf.tensor_sizes
        # transformers' default skips: the output embedding, and the last module if a weight is its last parameter.
        # (A table registered first as the head's decoder, XLM-R's, is the output embedding too: it multiplies.)
        output = bool(leaf.shape) and ((kind == "heads" and leaf.shape[3] == V)
                                       or (kind == "embeddings" and leaf.matrix != 0 and leaf.shape[3] == V)
                                       or (leaf is weighted[-1] and len(sizes) == 1))
        for i, size in enumerate(sizes):
            # A linear map's weight comes first, its bias after it.
            weight = i == 0 and leaf.matrix != 0
            module = None
            if leaf.shape and path:
                experts = leaf.shape[0] != 1
                linear = not experts and (leaf.name not in NOT_LINEAR or model_type in LINEAR_ROUTERS)
                conv1d = linear and model_type in CONV1D_LAYERS and kind in QUANTIZED_KINDS
                module = Module(path.rsplit(".", 1)[0] if experts else path, "weight" if i == 0 else "bias",
                                leaf.shape, linear and not conv1d, conv1d, experts, output, numbered)
            out.append(Tensor(leaf.name, size, copies,
                              weight and kind in QUANTIZED_KINDS and leaf.name not in ROUTING, module))
    return out


def evaluated(part: Part, values: Mapping[sympy.Symbol, int]) -> list[tuple[int, int, bool]]:
    """(size, copies, quantizable) of every tensor, for given sizes; none for a tensor of size 0, which the config
    does not build (a count that a size of 0 switches off: DeBERTa-v2's absolute position table, n_abs P E)."""
    sized = ((evaluate(t.size, values), t) for t in tensors(part))
    return [(size, evaluate(t.copies, values), t.quantizable) for size, t in sized if size]


def evaluate_tensor(tensor: Tensor, values: Mapping[sympy.Symbol, int]) -> int:
    """The elements of all copies of ``tensor``."""
    return evaluate(tensor.size * tensor.copies, values)


# ---------------------------------------------------------------------------------------------
# The key/value cache
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CacheRow:
    """An attention block that caches: ``per_copy`` elements a token in each of its ``copies``; ``cross``:
    an encoder-decoder's cross-attention, which caches each source token once; ``source``: the rows a
    cross-attention caches where they are a fixed count of the input's (Whisper's N_f frames, whatever the text's
    length), None where they are the source's tokens."""

    name: str
    per_copy: Expr
    copies: Expr
    cross: bool
    source: Expr | None = None

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
            keys = next((sympy.sympify(op.keys) for op in p.ops if op.keys is not None), None)
            fixed = keys is not None and not keys.free_symbols & {s, s_d}
            out.append(CacheRow(qualified.split(".", 1)[1] if "." in qualified else qualified, p.cache, copies,
                                keys is not None, keys if fixed else None))
        for c in p.children:
            visit(c, f"{qualified}.{c.name}", copies)

    visit(part, part.name, sympy.Integer(1))
    return out




def kv_cache(config: Mapping, architecture: str | None, tokens: int, source: int | None = None,
             batch: int = 1) -> int:
    """Elements in the key/value cache of the class ``config`` builds, after a forward over ``tokens``
    tokens (an encoder-decoder's decoder tokens; ``source``: its encoder's, default ``tokens``), for a batch."""
    resolved = registry.resolve(config, architecture)
    return batch * cached(resolved.part, resolved.values, config, tokens, source)


def cached(part: Part, values: Mapping[sympy.Symbol, int], config: Mapping, tokens: int,
           source: int | None = None) -> int:
    """Elements in ``part``'s cache for one sequence, each layer's window read from ``config``."""
    rows = [(evaluate(r.per_copy, values), evaluate(r.copies, values),
             r.cross if r.source is None else evaluate(r.source, values)) for r in cache_rows(part)]
    reader = configs.READERS[configs.read_model_type(config)]
    return storage.cached(rows, tokens, lambda layers: reader.windows(config, layers), source)[0]


def per_token(part: Part, cross: bool = False) -> Expr:
    """Elements one token leaves in ``part``'s cache, over all its layers (self-attention; ``cross``: an
    encoder-decoder's cross-attention, per source token)."""
    return sympy.expand(sympy.Add(*(r.per_token for r in cache_rows(part) if r.cross == cross)))
