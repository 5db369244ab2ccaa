r"""Splitting a model over devices: its largest layer, each device's weights and key/value cache under tensor
parallelism, and each device's training bytes under ZeRO with activations.

* The largest layer: what a device map must place whole, as accelerate sizes it (``calculate_maximum_sizes``
  [cite: accelerate-modeling]): one copy of the outermost repeated block (a decoder layer) or a tensor outside the
  blocks (the embeddings, a head), in the weights' format (:mod:`derivations.sharding` says which is which).
* Tensor parallelism over N devices, as Megatron splits a transformer [cite: shoeybi2019, section 3]: attention by
  query heads (key/value heads with them: K/N each; where N is a multiple of K, one each, replicated, as vLLM
  does [cite: vllm-linear]), the feed-forward by its inner width (each expert's), the vocabulary's rows padded to a
  multiple of 128 N (Megatron's ``make_vocab_size_divisible_by`` [cite: megatron-code]); norms, routers and the
  biases of row-parallel maps whole on every device. The key/value cache follows its heads; a latent that all
  heads share (DeepSeek's) is kept whole on every device.
* Training over N devices with ZeRO stages 0 to 3 (:func:`derivations.storage.zero`, mixed-precision Adam: ZeRO's
  K = 12) over the N / t data-parallel replicas of a tensor-parallel group of t, and activations by Korthikanti et
  al. with tensor parallelism [cite: korthikanti2022, Table 2]: :func:`activations`.

Plain Python on the compiled derivations (the ``memory`` and ``split`` sections of :mod:`derivations.compiled`):
the command line's ``memory --tp N --devices N`` answers without SymPy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from . import answers, compiled, configs, storage
from .reading import ConfigError

# Megatron pads the vocabulary to a multiple of make_vocab_size_divisible_by (128 by default) times the
# tensor-parallel size, so that every device holds the same number of rows, a multiple of 128 [cite: megatron-code].
VOCABULARY_MULTIPLE = 128
# The optimizer the training rows assume: mixed-precision Adam (2 + 2 + 12 bytes a parameter).
TRAINING_OPTIMIZER = "adam-mixed"
STAGES = (0, 1, 2, 3)
# Mixed-precision Adam's 2 + 2 + 12 bytes a parameter as each ZeRO stage keeps them, P parameters over N
# data-parallel devices (Rajbhandari et al., Figure 1).
STAGE_FORMULAS = {0: "16P", 1: "4P + 12P/N", 2: "2P + 14P/N", 3: "16P/N"}

# ---------------------------------------------------------------------------------------------
# What one device holds of a cut
# ---------------------------------------------------------------------------------------------

# What each kind of cut is made of, for the one line that refuses a split.
_WHAT = {"heads": "attention heads", "inner": "feed-forward's inner width"}


def padded_vocabulary(vocabulary: int, devices: int) -> int:
    """The vocabulary Megatron pads to for ``devices`` devices: the next multiple of 128 ``devices`` (Megatron's
    ``_vocab_size_with_padding``)."""
    multiple = VOCABULARY_MULTIPLE * devices
    return -(-vocabulary // multiple) * multiple


def slices(kind: str, count: int, devices: int) -> int:
    """The slices of a cut of ``count`` (heads, inner width, vocabulary rows) one of ``devices`` devices holds; a
    :class:`~derivations.reading.ConfigError` where Megatron cannot split them so."""
    if kind == "vocab":
        return padded_vocabulary(count, devices) // devices
    if count % devices == 0:
        return count // devices
    if kind == "kv_heads" and devices % count == 0:
        # More devices than key/value heads: each device keeps one, N / K devices the same one (vLLM's
        # num_kv_head_replicas), so that each device's query heads have their keys and values.
        return 1
    if kind == "kv_heads":
        raise ConfigError(f"{devices:,} devices neither divide the {count:,} key/value heads nor are a multiple "
                          "of them: tensor parallelism cannot give each device whole heads")
    raise ConfigError(f"{devices:,} devices do not divide the {_WHAT[kind]} ({count:,}): tensor parallelism "
                      "gives each device an equal part")


def per_device(size: int, pieces: Sequence[tuple[int, int, str]], devices: int) -> int:
    """Elements of a tensor of ``size`` one device holds: each cut piece (elements, slices, kind) in the share its
    slices give (:func:`slices`), the rest whole."""
    held = Fraction(size)
    for elements, count, kind in pieces:
        if elements:  # a piece of no elements (a size that is 0 in this config) asks nothing
            held += Fraction(elements * slices(kind, count, devices), count) - elements
    if held.denominator != 1:  # heads that do not cover the width they are cut from (a config no forward runs)
        raise ConfigError(f"{devices:,} devices cannot hold equal parts of a tensor of {size:,} elements")
    return int(held)


# ---------------------------------------------------------------------------------------------
# Activations with tensor parallelism (Korthikanti et al. 2022, Table 2; 16-bit, 1-byte dropout masks)
# ---------------------------------------------------------------------------------------------

def activations(s: int, b: int, h: int, a: int, t: int) -> int:
    r"""One layer's bytes on each of ``t`` tensor-parallel devices, no recomputation: sbh(10 + 24/t + 5as/(ht)).
    The 10 sbh (the layer norms' inputs and outputs, the dropout masks after attention and the MLP) are replicated;
    the rest is split (a whole byte where t does not divide it)."""
    return 10 * s * b * h + -(-(24 * s * b * h + 5 * a * s * s * b) // t)


def activations_selective(s: int, b: int, h: int, t: int) -> int:
    """With selective recomputation (attention's products recomputed): sbh(10 + 24/t)."""
    return 10 * s * b * h + -(-24 * s * b * h // t)


# Full recomputation keeps each layer's input, 2sbh, whole on every device: storage.activations_full.


# ---------------------------------------------------------------------------------------------
# The answer
# ---------------------------------------------------------------------------------------------

class _Model:
    """The compiled tensors, caches and cuts of the class a config asks for, evaluated on its sizes."""

    def __init__(self, config: Mapping, architecture: str | None) -> None:
        chosen = configs.select(config, architecture, answers.parameter_symbols, answers.base)
        held = compiled.section(chosen.model_type, "memory")["memory"][chosen.layout][chosen.architecture]
        split = compiled.section(chosen.model_type, "split")["split"][chosen.layout][chosen.architecture]
        values = self.values = chosen.values
        self.config, self.reader = config, configs.READERS[chosen.model_type]

        def count(terms: list) -> int:
            return compiled.count(terms, values)

        self.tensors = [(count(size), count(copies), quantizable) for size, copies, quantizable in held["tensors"]]
        self.layers = [(name, count(copies)) for name, copies in split["layers"]]
        self.cuts = [[(count(size), count(slices), kind) for size, slices, kind in pieces] for pieces in split["cuts"]]
        self.cache = [(count(per_copy), count(copies), cross if isinstance(cross, bool) else count(cross))
                      for per_copy, copies, cross in held["cache"]]
        self.cache_cuts = [None if c is None else (count(c[0]), c[1]) for c in split["cache"]]
        assert len(self.tensors) == len(self.layers) == len(self.cuts) and len(self.cache) == len(self.cache_cuts)

    def largest_layer(self, fmt: storage.Format) -> tuple[str, int, int]:
        """The layer of the most bytes in ``fmt``: its name, copies and the bytes of one copy."""
        layers: dict[tuple[str, int], int] = {}
        for (size, copies, quantizable), (name, layer_copies) in zip(self.tensors, self.layers):
            if layer_copies == 0:  # a block this config has none of (Qwen2-MoE's dense layers, where all hold experts)
                continue
            # A tensor's copies within one copy of its layer (the experts of one layer; 1 for a tensor of its own).
            layers[name, layer_copies] = layers.get((name, layer_copies), 0) + \
                copies // layer_copies * fmt.tensor_bytes(size, quantizable)
        (name, copies), most = max(layers.items(), key=lambda item: item[1])
        return name, copies, most

    def shards(self, devices: int) -> list[tuple[int, int, bool]]:
        """Each tensor's (elements on one of ``devices`` devices, copies, quantizable), in memory.tensors' order."""
        return [(per_device(size, pieces, devices), copies, quantizable)
                for (size, copies, quantizable), pieces in zip(self.tensors, self.cuts)]

    def tensor_parallel(self, devices: int, fmt: storage.Format, tokens: int, target: int | None,
                        batch: int) -> dict:
        """Each device's share of the weights and of the key/value cache over ``devices`` devices."""
        shards = self.shards(devices)
        rows = [(per_copy if cut is None else per_device(per_copy, [(per_copy, cut[0], cut[1])], devices), copies,
                 cross) for (per_copy, copies, cross), cut in zip(self.cache, self.cache_cuts)]
        cross = any(c for _, _, c in rows)
        decoder_tokens = (target or tokens) if cross else tokens
        elements, _ = storage.cached(rows, decoder_tokens, lambda layers: self.reader.windows(self.config, layers),
                                     tokens if cross else None)
        # The cache at the weights' width, 16 bits under a 4-bit format (as answers.memory keeps it).
        cache_bits = fmt.bits if fmt.block is None else fmt.kept_bits
        weights = storage.weight_bytes(shards, fmt)
        cache = batch * elements * cache_bits // 8
        out = {"devices": devices, "parameters_per_device": sum(size * copies for size, copies, _ in shards),
               "weights_bytes": weights, "kv_cache_bytes": cache, "total_bytes": weights + cache}
        heads = {kind: count for pieces in self.cuts for _, count, kind in pieces if kind in ("heads", "kv_heads")}
        if "kv_heads" in heads:
            out["kv_heads_per_device"] = slices("kv_heads", heads["kv_heads"], devices)
            out["kv_heads_replicated"] = devices > heads["kv_heads"]
        vocabularies = sorted({count for pieces in self.cuts for _, count, kind in pieces if kind == "vocab"})
        out["vocabulary_padded"] = [padded_vocabulary(v, devices) for v in vocabularies]
        return out


def device_tensors(config: Mapping, architecture: str | None, devices: int) -> list[tuple[int, int, bool]]:
    """Each tensor of the class ``config`` builds (:func:`derivations.memory.tensors`' order), as one of ``devices``
    tensor-parallel devices holds it: (elements, copies, quantizable)."""
    return _Model(config, architecture).shards(devices)


def answer(config: Mapping, architecture: str | None, result: Mapping, tp: int | None = None,
           devices: int | None = None, capacity: int | None = None) -> dict:
    """What ``memory`` adds to ``result`` (:func:`derivations.answers.memory`'s, for the same config and class):
    the largest layer always; with ``tp``, each device's weights and cache over ``tp`` tensor-parallel devices; with
    ``devices``, each device's training bytes over ``devices`` devices (``tp`` of them a tensor-parallel group)
    under each ZeRO stage; with ``capacity``, a device's bytes, whether each total fits."""
    model = _Model(config, architecture)
    # The weights in result's format; under a quantization_config, its float width for every tensor (the
    # quantized formats' split is not derived: "split_dtype" says which).
    fmt = storage.FORMATS[result["dtype"]]
    name, copies, most = model.largest_layer(fmt)
    out: dict = {"split_dtype": fmt.name, "largest_layer": name, "largest_layer_copies": copies,
                 "largest_layer_bytes": most}
    parallel = None
    if tp is not None or devices is not None:
        parallel = model.tensor_parallel(tp or 1, fmt, result["seq"], result.get("target"), result["batch"])
    if tp is not None:
        out["tensor_parallel"] = parallel
        if capacity is not None:
            out["tensor_parallel"]["fits"] = parallel["total_bytes"] <= capacity
    if devices is not None:
        out["zero"] = zero(model, result, devices, tp or 1, parallel, capacity)
    if capacity is not None:
        out["device_memory_bytes"] = capacity
    return out


def zero(model: _Model, result: Mapping, devices: int, tp: int, parallel: Mapping, capacity: int | None) -> dict:
    """Training on ``devices`` devices, tensor-parallel groups of ``tp``: each device's model states under each ZeRO
    stage (over the devices / tp data-parallel replicas) and its activations."""
    if devices % tp:
        raise ConfigError(f"--devices {devices:,} is not a multiple of --tp {tp:,}: each data-parallel replica is a "
                          "tensor-parallel group")
    replicas = devices // tp
    # Without tensor parallelism the parameters are the model's; with it, one device's share (its vocabulary padded).
    parameters = result["parameters"] if tp == 1 else parallel["parameters_per_device"]
    optimizer = storage.OPTIMIZERS[TRAINING_OPTIMIZER]
    out: dict = {"devices": devices, "tensor_parallel": tp, "data_parallel": replicas, "optimizer": optimizer.name,
                 "parameters_per_device": parameters}
    values = model.values
    if {"D", "H", "L"} <= values.keys():
        s, b, h, a, depth = result["seq"], result["batch"], values["D"], values["H"], values["L"]
        if a % tp:
            slices("heads", a, tp)  # refuses, in the words of the weights' split
        out["activations_bytes"] = depth * activations(s, b, h, a, tp)
        out["activations_selective_recomputation_bytes"] = depth * activations_selective(s, b, h, tp)
        out["activations_full_recomputation_bytes"] = depth * storage.activations_full(s, b, h)
    stages = []
    for stage in STAGES:
        states = storage.zero(parameters, replicas, stage, optimizer)
        row: dict = {"stage": stage, "model_states_bytes": states}
        for policy in ("", "_selective_recomputation", "_full_recomputation"):
            if f"activations{policy}_bytes" in out:
                row[f"total{policy}_bytes"] = states + out[f"activations{policy}_bytes"]
                if capacity is not None:
                    row[f"fits{policy}"] = row[f"total{policy}_bytes"] <= capacity
        stages.append(row)
    out["stages"] = stages
    return out


# ---------------------------------------------------------------------------------------------
# The rows memory's table adds
# ---------------------------------------------------------------------------------------------

def _fits(fits: bool | None) -> str:
    return "" if fits is None else ("fits" if fits else "does not fit")


def rows(result: Mapping) -> list[tuple[str, str, str]]:
    """The rows ``memory``'s table adds for :func:`answer`'s keys (in ``result``)."""
    units = storage.both_units
    # The layer by its last name (the table keeps to 100 columns; --json has the dotted name).
    layer = result["largest_layer"].rsplit(".", 1)[-1]
    copies = result["largest_layer_copies"]
    dtype = result["split_dtype"] + (", unquantized" if "quantization" in result else "")
    out = [("largest layer", f"{layer}{f', one of {copies:,}' if copies > 1 else ''}, {dtype}",
            units(result["largest_layer_bytes"]))]
    capacity = result.get("device_memory_bytes")
    if capacity is not None:
        out.append(("device memory", "--memory or --gpu", units(capacity)))
    if "tensor_parallel" in result:
        tp = result["tensor_parallel"]
        heads = ""
        if "kv_heads_per_device" in tp:
            count = tp["kv_heads_per_device"]
            heads = f"{count:,} key/value head{'s' if count > 1 else ''}" + (", replicated" if tp["kv_heads_replicated"]
                                                                            else "")
        vocabulary = ", ".join(f"{v:,}" for v in tp["vocabulary_padded"])
        out += [("tensor parallel", f"{tp['devices']:,} devices, each:", ""),
                ("  parameters", f"vocabulary padded to {vocabulary}" if vocabulary else "",
                 f"{tp['parameters_per_device']:,}"),
                ("  weights", dtype, units(tp["weights_bytes"])),
                ("  key/value cache", heads, units(tp["kv_cache_bytes"])),
                ("  weights + cache", _fits(tp.get("fits")), units(tp["total_bytes"]))]
    if "zero" in result:
        z = result["zero"]
        out += [("training", f"{z['devices']:,} devices (tensor x data parallel: {z['tensor_parallel']:,} x "
                             f"{z['data_parallel']:,}), {z['optimizer']}, each:", ""),
                ("  parameters", "P", f"{z['parameters_per_device']:,}")]
        if "activations_bytes" in z:
            out += [("  activations", "L sbh(10 + 24/t + 5as/(ht))", units(z["activations_bytes"])),
                    ("    selective recomputation", "L sbh(10 + 24/t)",
                     units(z["activations_selective_recomputation_bytes"]))]
        for row in z["stages"]:
            out.append((f"  ZeRO-{row['stage']} model states", STAGE_FORMULAS[row["stage"]],
                        units(row["model_states_bytes"])))
            if "total_selective_recomputation_bytes" in row:
                fits = _fits(row.get("fits_selective_recomputation"))
                out.append((f"  ZeRO-{row['stage']} + activations", "selective" + (f"; {fits}" if fits else ""),
                            units(row["total_selective_recomputation_bytes"])))
    return out


def capacity(memory: str | None, gpu: str | None) -> int | None:
    """A device's bytes: ``memory`` as a person writes it (24GB, 80GiB), or an accelerator's (``gpu``), or None."""
    if memory is not None and gpu is not None:
        raise ConfigError("give --memory or --gpu, not both")
    if memory is not None:
        return storage.parse_bytes(memory)
    if gpu is not None:
        from . import accelerators

        return accelerators.get(gpu).memory_bytes
    return None
