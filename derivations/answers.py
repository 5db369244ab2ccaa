"""What ``count``, ``flops`` and ``memory`` answer for a config: the objects ``--json`` prints, and the tables the
command prints. The command line (``__main__``), the Python API (``api``) and the site's config page (``pasted``)
all call these, so they cannot answer differently; argparse stays in the command line.

Plain Python on the compiled derivations (:mod:`derivations.compiled`): no SymPy. A config that describes no model,
or a question it cannot answer (no such class, a length out of range), is a :class:`~derivations.reading.ConfigError`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from . import compiled, configs, quantization, storage
from .reading import ConfigError

# Longer than any model reads (2^24 tokens); a length beyond it is a typo, not a question.
LONGEST = 2**24
# The context a config declares (the sequence length memory assumes without a length), else this.
CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "n_ctx")
DEFAULT_CONTEXT = 2048
# The weights' data type memory assumes unless told.
DEFAULT_DTYPE = "bf16"


def length(text: str | int) -> int:
    """A length or a batch: a whole number from 1 to LONGEST (the message says what is wrong, without naming it)."""
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= LONGEST:
        raise ConfigError(f"expected a number from 1 to {LONGEST:,}, got {value:,}")
    return value


def declared_context(config: Mapping) -> tuple[str, int] | None:
    """The field that declares the length a config reads, and its value; None where none does. A config of several
    parts (CLIP's) declares it in its text model's sub-config, ``text_config``."""
    text = config.get("text_config")
    for where, fields in ((config, ""), (text if isinstance(text, Mapping) else {}, "text_config.")):
        for field in CONTEXT_FIELDS:
            value = where.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= LONGEST:
                return fields + field, value
    return None


def context(config: Mapping) -> int:
    """The length a config declares it reads; else :data:`DEFAULT_CONTEXT`, or the rows of its table of positions
    where that is shorter (a minimal config of SigLIP, whose text tower reads 64 tokens by its class's default)."""
    declared = declared_context(config)
    if declared is not None:
        return declared[1]
    try:
        positions = configs.READERS[configs.read_model_type(config)].read(config).get("P")
    except ConfigError:  # said where the config is read for the answer
        positions = None
    return DEFAULT_CONTEXT if positions is None else min(DEFAULT_CONTEXT, positions)


def beyond_context(config: Mapping, tokens: int) -> str | None:
    """A line to say that ``tokens`` is past the context a config declares (a rotary model still answers: its
    sizes do not depend on the length), None otherwise."""
    declared = declared_context(config)
    if declared is not None and tokens > declared[1]:
        return f"note: {tokens:,} tokens is past the model's context ({declared[0]} {declared[1]:,}); answered anyway"
    return None


class Table(NamedTuple):
    """A table the command prints, cell by cell, each cell a string as printed: a title (the class), the three
    columns' heads, the body's rows, the foot's rows. :func:`table` lays it out as text; the config page
    (:mod:`derivations.pasted`) shows the same cells as an HTML table."""

    title: str
    head: tuple[str, str, str]
    body: list[tuple[str, str, str]]
    foot: list[tuple[str, str, str]]


def _positions(values: Mapping[str, int], *lengths: int) -> None:
    """Learned (or Marian's fixed) positions: a table of P rows, and no row for a token past them."""
    positions, longest = values.get("P"), max(lengths)
    if positions is not None and longest > positions:
        raise ConfigError(f"the model reads at most {positions:,} tokens (its position table), got {longest:,}")


# ---------------------------------------------------------------------------------------------
# count
# ---------------------------------------------------------------------------------------------

def parameter_symbols(model_type: str, layout: str) -> dict[str, set[str]]:
    """Per class, the symbols of its components, each of which must be at least 1; not those of the active
    count (Mixtral runs with num_experts_per_tok 0)."""
    return {name: {symbol for row in rows for _, powers in row["terms"] for symbol in powers}
            for name, rows in compiled.section(model_type, "count")["variants"][layout].items()}


def base(model_type: str) -> str:
    """The class a config without architectures builds: the family's base model."""
    return compiled.section(model_type, "count")["base"]


def components(config: Mapping, architecture: str | None) -> tuple[str, list[dict], int | None]:
    """The architecture, one row per component (dotted name, LaTeX, formula and exact count), and for
    a mixture of experts the parameters one token uses (None otherwise)."""
    chosen = configs.select(config, architecture, parameter_symbols, base)
    family = compiled.section(chosen.model_type, "count")
    rows = family["variants"][chosen.layout][chosen.architecture]
    active = family["active"][chosen.layout].get(chosen.architecture)
    return (chosen.architecture, [{**row, "count": compiled.count(row["terms"], chosen.values)} for row in rows],
            None if active is None else compiled.count(active, chosen.values))


def count(config: Mapping, architecture: str | None = None) -> tuple[dict, list[dict]]:
    """``count --json``'s object, and the rows behind it (with their formulas, for the table)."""
    architecture, rows, active = components(config, architecture)
    # The total is the sum of the components: each tensor is one leaf, a tied one counts 0.
    result = {"architecture": architecture, "total": sum(r["count"] for r in rows)}
    if active is not None:
        result["active"] = active
    result["components"] = [{k: r[k] for k in ("name", "latex", "count")} for r in rows]
    return result, rows


def count_table(result: dict, rows: list[dict]) -> str:
    """The table ``count`` prints."""
    return table(*count_cells(result, rows))


def count_cells(result: dict, rows: list[dict]) -> Table:
    """The cells of the table ``count`` prints: every component, its formula and its count; the total (and the
    active count)."""
    head = ("component", "formula", "parameters")
    body = [(r["name"], r["formula"], f"{r['count']:,}") for r in rows]
    foot = [("total", "", f"{result['total']:,}")]
    # components.active_per_token: the experts a token uses, everything else whole (embedding included).
    if "active" in result:
        foot.append(("active per token", "X_a of the X experts, the rest whole", f"{result['active']:,}"))
    return Table(result["architecture"], head, body, foot)


# ---------------------------------------------------------------------------------------------
# flops
# ---------------------------------------------------------------------------------------------

def reads_images(config: Mapping, architecture: str | None = None) -> bool:
    """Whether the class a config asks for (``architecture``, else its own) reads an image alone: its FLOPs and
    memory are of an image of the config's size, and it takes no length."""
    chosen = configs.select(config, architecture, parameter_symbols, base)
    return chosen.architecture in compiled.section(chosen.model_type, "count").get("image_only", {}).get(chosen.layout, ())


def image_tokens(chosen, values: Mapping[str, int], tokens: int | None) -> int | None:
    """For a class that reads an image alone, the tokens of one image of the config's size (its patches and class
    token), which is what its FLOPs and memory are of: a length given otherwise is refused. None for a class that
    reads tokens."""
    section = compiled.section(chosen.model_type, "count")
    if chosen.architecture not in section.get("image_only", {}).get(chosen.layout, ()):
        return None
    image = compiled.count(section["image_tokens"], values)
    if tokens is not None and tokens != image:
        raise ConfigError(f"{chosen.architecture} reads inputs of the config's size (an image, a window of audio), "
                          f"{image:,} tokens each: leave out --seq (--batch gives how many)")
    return image


def image_among(chosen, values: Mapping[str, int], tokens: int) -> None:
    """A class that reads an image among its text (a vision tower joined to a language model) reads it as N_i of the
    sequence's tokens: a shorter sequence cannot hold it, and is refused."""
    rows = compiled.section(chosen.model_type, "flops")["flops"][chosen.layout][chosen.architecture]
    if "N_i" in values and any("N_i" in powers for row in rows for _, powers in row["terms"]) \
            and tokens < values["N_i"]:
        raise ConfigError(f"{chosen.architecture} reads one image as {values['N_i']:,} of the sequence's tokens: "
                          f"--seq {tokens:,} cannot hold it (give at least {values['N_i']:,})")


def flop_symbols(model_type: str, layout: str) -> dict[str, set[str]]:
    """Per class, the symbols of its forward FLOPs other than the lengths."""
    return {name: {symbol for row in rows for _, powers in row["terms"] for symbol in powers} - {"s", "s_d"}
            for name, rows in compiled.section(model_type, "flops")["flops"][layout].items()}


def with_image(chosen, image: tuple[int, int] | None) -> None:
    """``--image`` (an image's height and width) is for a class that reads an image whose size no config gives
    (configs.select reads it): refused for a class that reads none."""
    if image is not None and not {"N_p", "N_i"} & flop_symbols(chosen.model_type, chosen.layout)[chosen.architecture]:
        raise ConfigError(f"{chosen.architecture} reads no image: leave out --image")


def flop_components(config: Mapping, architecture: str | None, tokens: int | None, target: int | None,
                    image: tuple[int, int] | None = None) -> tuple[str, list[dict], dict[str, int], object]:
    """The architecture, one row per component with its forward FLOPs for one sequence (and the causal half
    where there is one), the values the polynomials were evaluated at, and with ``image`` (an image's height and
    width) what the processor makes of it (else None)."""
    chosen = configs.select(config, architecture, flop_symbols, base, image)
    with_image(chosen, image)
    rows = compiled.section(chosen.model_type, "flops")["flops"][chosen.layout][chosen.architecture]
    values = dict(chosen.values)
    alone = image_tokens(chosen, values, tokens)
    if alone is None and tokens is None:
        raise ConfigError("the following arguments are required: --seq")
    if alone is None:  # an image's tokens are its vision tower's, whose positions the config sizes
        _positions(values, tokens, target or tokens)
        image_among(chosen, values, tokens)
    tokens = alone or tokens
    values |= {"s": tokens, "s_d": target or tokens}
    out = [{**row, "flops": compiled.count(row["terms"], values),
            "causal_flops": None if row["causal"] is None else compiled.count(row["causal"], values)} for row in rows]
    return chosen.architecture, out, values, chosen.image


def flops(config: Mapping, architecture: str | None, tokens: int | None, target: int | None = None, batch: int = 1,
          accelerator: str | None = None, image: tuple[int, int] | None = None) -> tuple[dict, list[dict]]:
    """``flops --json``'s object, and the rows behind it (with their formulas, for the table); with an
    ``accelerator`` (a name of :mod:`derivations.accelerators`), the roofline's lower bounds on its time; with
    ``image`` (height, width), of one image of that size among the tokens (what the processor made of it: "image")."""
    architecture, rows, values, picture = flop_components(config, architecture, tokens, target, image)
    tokens = values["s"]
    forward = batch * sum(r["flops"] for r in rows)
    # derivations.flops: the backward of each product is two of its size; full recomputation runs the layers'
    # forward again, selective recomputation attention's products.
    result = {
        "architecture": architecture, "seq": tokens, "batch": batch,
        "forward": forward,
        "forward_causal": batch * sum(r["flops"] if r["causal_flops"] is None else r["causal_flops"] for r in rows),
        "backward": 2 * forward,
        "training_step": 3 * forward,
        "full_recomputation": batch * sum(r["flops"] for r in rows if r["in_layer"]),
        "selective_recomputation": batch * sum(r["flops"] for r in rows if r["in_layer"] and r["product"]),
    }
    if values["s_d"] != values["s"] or target is not None:
        result["target"] = values["s_d"]
    if picture is not None:
        result["image"] = picture.json()
    result["decode"] = decode(config, architecture, rows, values, tokens, target, batch)
    if accelerator is not None:
        result["roofline"] = roofline(config, result, accelerator)
    result["components"] = [{"name": r["name"], "latex": r["latex"], "flops": batch * r["flops"]} for r in rows]
    return result, rows


def decode(config: Mapping, architecture: str, rows: list[dict], values: Mapping[str, int], tokens: int,
           target: int | None, batch: int) -> dict:
    """``flops --json``'s ``"decode"``: one generated token a sequence after the T tokens of this forward (an
    encoder-decoder's decoder tokens, its source read once), from the rows' ``decode`` polynomials
    (derivations.flops); and the bytes that step reads: the weights a token goes through (a mixture's active
    ones) at 16 bits and the key/value cache of T tokens (:func:`memory`'s). Where there is no such step, why."""
    cached = values["s_d"]  # a decoder's tokens: --seq, an encoder-decoder's --target (else --seq)
    try:
        return {"cached": cached} | _decode(config, architecture, rows, values, tokens, target, batch, cached)
    except ConfigError as error:  # the forward stands without a decode step (a window the model cannot run without)
        return {"cached": cached, "refused": str(error)}


def _decode(config: Mapping, architecture: str, rows: list[dict], values: Mapping[str, int], tokens: int,
            target: int | None, batch: int, cached: int) -> dict:
    held = memory(config, architecture, tokens, target, batch, quantized=False)
    assert held.get("target", held["seq"]) == cached, (held, cached)
    out: dict = {}
    if not any(r["copies"] for r in rows):
        return out | {"refused": "an encoder generates no tokens"}
    if "P" in values and cached + 1 > values["P"]:  # learned positions: none for the token after the table's last
        raise ConfigError(f"its table of positions ends at {values['P']:,}")
    # Each self-attention block's layers, in order, each with its window (the reader's, as memory reads them).
    blocks: dict[str, int] = {}
    for r in rows:
        if r["copies"]:
            blocks.setdefault(r["name"].rsplit(".", 1)[0], compiled.count(r["copies"], values))
    reader = configs.READERS[configs.read_model_type(config)]
    keys = iter([storage.attended(cached, w) for w in reader.windows(config, sum(blocks.values()))])
    attended = {block: sum(next(keys) for _ in range(copies)) for block, copies in blocks.items()}
    flops = sum(compiled.count(r["decode"], values) * (attended[r["name"].rsplit(".", 1)[0]] if r["copies"] else 1)
                for r in rows)
    weights, active = weights_read(config, architecture, held)
    return out | {"flops": batch * flops, "bytes_read": weights + held["kv_cache_bytes"], "dtype": DEFAULT_DTYPE,
                  "weights_bytes": weights, "active_weights": active,
                  "kv_cache_bytes": held["kv_cache_bytes"], "kv_cache_windows": held["kv_cache_windows"]}


def weights_read(config: Mapping, architecture: str, held: dict) -> tuple[int, bool]:
    """The bytes of the weights a token goes through, at 16 bits (``held``: :func:`memory`'s answer at bf16), and
    whether they are a mixture's active ones."""
    chosen = configs.select(config, architecture, parameter_symbols, base)
    active = compiled.section(chosen.model_type, "count")["active"][chosen.layout].get(chosen.architecture)
    fmt = storage.FORMATS[DEFAULT_DTYPE]
    assert held["dtype"] == DEFAULT_DTYPE, held["dtype"]
    # A mixture's token reads the experts it is routed to, and everything else whole (components.active_per_token);
    # a 16-bit format has no blocks of scales: 2 bytes a parameter.
    weights = held["weights_bytes"] if active is None else compiled.count(active, chosen.values) * fmt.bits // 8
    return weights, active is not None


def roofline(config: Mapping, result: dict, accelerator: str) -> dict:
    """``flops --json``'s ``"roofline"`` on an accelerator (derivations.roofline): lower bounds on the time of the
    prefill, the forward of ``result`` (``flops``'s answer), and of its decode step, each max(FLOPs / peak,
    bytes / bandwidth) with the accelerator's dense bf16 peak and memory bandwidth.

    The prefill's FLOPs are ``forward_causal`` (a kernel that skips the masked half does no more); the bytes it
    must move at least: the weights read once (decode's: bf16, a mixture's active experts, the fewest a batch can
    route to) and the key/value cache written once; the activations are left out (a fused kernel may keep them on
    chip). The decode step's are ``decode``'s ``flops`` and ``bytes_read``. Where the vendor states no dense bf16
    rate, each bound is bytes / bandwidth alone, and ``bandwidth_only`` says why (else None)."""
    from . import accelerators, roofline as bounds

    card = accelerators.get(accelerator)
    held = memory(config, result["architecture"], result["seq"], result.get("target"), result["batch"])
    weights, _ = weights_read(config, result["architecture"], held)
    step = result["decode"]
    return {"accelerator": card.name, "bf16": card.bf16, "bf16_flops": card.bf16_flops,
            "bandwidth": card.bandwidth, "bandwidth_bytes": card.bandwidth_bytes,
            "bandwidth_only": None if card.bf16 is not None else f"{card.vendor} states no dense bf16 rate",
            "prefill": bounds.bound(result["forward_causal"], weights + held["kv_cache_bytes"], card.bf16_flops,
                                    card.bandwidth_bytes),
            "decode": {"refused": step["refused"]} if "refused" in step else
            bounds.bound(step["flops"], step["bytes_read"], card.bf16_flops, card.bandwidth_bytes)}


def flops_table(result: dict, rows: list[dict]) -> str:
    """The table ``flops`` prints."""
    return table(*flops_cells(result, rows))


def flops_cells(result: dict, rows: list[dict]) -> Table:
    """The cells of the table ``flops`` prints: every component's forward FLOPs for the batch, then the forward,
    its causal half where it differs, the backward, a training step and what recomputation adds."""
    batch, forward = result["batch"], result["forward"]
    head = ("component", "formula (one sequence)", "forward FLOPs")
    body = [(r["name"], r["formula"], f"{batch * r['flops']:,}") for r in rows]
    lengths = f"s = {result['seq']:,}" + (f", s_dec = {result['target']:,}" if "target" in result else "")
    foot = [("forward", f"batch {batch:,}, {lengths}", f"{forward:,}")]
    if result["forward_causal"] != forward:
        foot.append(("forward, causal half", "each query against the keys up to it", f"{result['forward_causal']:,}"))
    foot += [("backward", "2 x forward", f"{result['backward']:,}"),
             ("training step", "forward + backward", f"{result['training_step']:,}"),
             ("+ full recomputation", "the layers' forward again", f"{result['full_recomputation']:,}"),
             ("+ selective recomputation", "attention's products again", f"{result['selective_recomputation']:,}")]
    step = result["decode"]
    if "refused" in step:
        foot.append(("decode, 1 token", f"none: {step['refused']}", ""))
    else:
        # The text stays within 100 columns: the bytes in decimal units alone (--json has them exact).
        weights = "active weights" if step["active_weights"] else "weights"
        foot += [("decode, 1 token", f"batch {result['batch']:,}, T = {step['cached']:,} cached", f"{step['flops']:,}"),
                 ("  bytes read", f"{weights} ({step['dtype']}) + key/value cache",
                  f"{storage.in_unit(step['bytes_read'], storage.DECIMAL)}")]
    if "roofline" in result:
        foot += roofline_cells(result["roofline"])
    return Table(titled(result), head, body, foot)


def titled(result: dict) -> str:
    """A table's title: the class, and the image it read where one was given (--image), as the processor made it."""
    image = result.get("image")
    if image is None:
        return result["architecture"]
    (height, width), (_, rows, columns) = image["resized"], image["grid_thw"]
    return (f"{result['architecture']}, image {image['height']}x{image['width']} resized to {height}x{width}: "
            f"grid (1, {rows}, {columns})")


def roofline_cells(bounds: dict) -> list[tuple[str, str, str]]:
    """The rows of the roofline's lower bounds: each step's max(FLOPs / peak, bytes / bandwidth), as seconds."""
    from . import roofline

    rows = []
    for step, label in (("prefill", "prefill, lower bound"), ("decode", "decode, lower bound")):
        found = bounds[step]
        if "refused" in found:
            rows.append((label, f"none: {found['refused']}", ""))
            continue
        moved = storage.in_unit(found["bytes"], storage.DECIMAL)
        if bounds["bandwidth_only"] is not None:  # max(a, b) >= b: the bandwidth's term alone is still a lower bound
            how = f"{moved} / {bounds['bandwidth']}, bandwidth bound only: {bounds['bandwidth_only']}"
        else:
            how = (f"max({found['flops']:,} FLOPs / {bounds['bf16']}, {moved} / {bounds['bandwidth']}), "
                   f"{found['bound_by']}")
        rows.append((label, f"{bounds['accelerator']}: {how}", roofline.text(Fraction(found["lower_bound_seconds"]))))
    return rows


# ---------------------------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------------------------

def memory(config: Mapping, architecture: str | None, tokens: int | None, target: int | None = None, batch: int = 1,
           dtype: str | None = None, quantized: bool = True, attention: str | None = None,
           image: tuple[int, int] | None = None) -> dict:
    """What the model holds, in bytes (derivations.memory, on the compiled polynomials): the weights in every
    format, the key/value cache, the forward's transient peak and their sum at inference, training state for each
    optimizer, activations, and the training total. Where the config names a quantization_config (and
    ``quantized``), the weights are in its format (:func:`weights_format`). ``attention``: the implementation the
    transient assumes (:data:`ATTENTIONS`; by default transformers' own, :func:`attention_of`)."""
    fmt = storage.FORMATS[_dtype(DEFAULT_DTYPE if dtype is None else dtype)]
    scheme = quantization.read(config) if quantized else None
    chosen, held, values, tokens = _held(config, architecture, tokens, target, image)
    tensors = [(compiled.count(size, values), compiled.count(copies, values), quantizable)
               for size, copies, quantizable in held["tensors"]]
    parameters = sum(size * copies for size, copies, _ in tensors)
    if scheme is not None:
        fmt = _kept(fmt)
    elements, windows, cross = _cache(config, chosen, held, values, tokens, target, batch)
    result = {
        "architecture": chosen.architecture, "seq": tokens, "batch": batch, "dtype": fmt.name,
        "parameters": parameters,
        "weights_bytes": storage.weight_bytes(tensors, fmt),
        "weights_bytes_by_dtype": {name: storage.weight_bytes(tensors, f) for name, f in storage.FORMATS.items()},
        "kv_cache_elements": elements,
        "kv_cache_bytes": elements * _cache_bits(fmt) // 8,
        "kv_cache_windows": sorted({w for w in windows if w is not None}),
    }
    if chosen.image is not None:
        result["image"] = chosen.image.json()
    if scheme is not None:
        result["quantization"] = weights_format(scheme, held, values, tensors, fmt)
        result["weights_bytes"] = result["quantization"]["weights_bytes"]
    if cross:
        result["target"] = (target or tokens)
    layers = _layers(config, chosen, values, windows)
    result |= _transient(config, held, values, tokens, batch, fmt, layers, target, attention,
                         _rotary(config, chosen, layers))
    if "transient_bytes" in result:
        # derivations.transient: the peak of the forward's tensors beside the weights and the cache it fills.
        result["inference_bytes"] = result["weights_bytes"] + result["kv_cache_bytes"] + result["transient_bytes"]
    result["training_bytes"] = ({name: o.per_parameter * parameters for name, o in storage.OPTIMIZERS.items()}
                                | {"adam-8bit": 8 * parameters
                                   + storage.adam_8bit_states([(size, copies) for size, copies, _ in tensors])})
    if {"D", "H", "L"} <= values.keys():
        # Korthikanti et al.'s GPT layer at 16 bits: sbh(34 + 5as/h) a layer; full recomputation keeps 2sbh.
        h, a, depth = values["D"], values["H"], values["L"]
        result["activations_bytes"] = depth * storage.activations(tokens, batch, h, a)
        result["activations_selective_recomputation_bytes"] = depth * storage.activations_selective(tokens, batch, h)
        result["activations_full_recomputation_bytes"] = depth * storage.activations_full(tokens, batch, h)
        # The default training: Adam in mixed precision, every activation kept for the backward.
        result["training_total_bytes"] = result["training_bytes"][TRAINING_OPTIMIZER] + result["activations_bytes"]
    return result


def weights_format(scheme: quantization.Scheme, held: dict, values: Mapping[str, int],
                   tensors: list[tuple[int, int, bool]], kept: storage.Format) -> dict:
    """``memory --json``'s ``"quantization"``: the method of the config's quantization_config, its parameters, and
    the weights' bytes in its format (derivations.quantization), the tensors it leaves at ``kept``'s width."""
    items = []
    for (size, copies, _), module in zip(tensors, held["modules"]):
        matrix = None
        if module is not None:
            path, role, shape, *flags = module
            matrix = quantization.Matrix(path, role, copies, *(compiled.count(x, values) for x in shape), *flags)
        items.append((size, copies, matrix))
    held_bytes = quantization.weights(scheme, items, kept.bits)
    return scheme.json() | {"label": scheme.label, "kept_dtype": kept.name, "weights_bytes": held_bytes.bytes,
                            "quantized_parameters": held_bytes.quantized_parameters,
                            "quantized_modules": held_bytes.quantized_modules}


def quantization_note(config: Mapping, dtype: str | None) -> str | None:
    """A line to say that the config's quantization_config, not ``--dtype``, sets the weights' format, where --dtype
    asks for a format of its own (a float width sets the tensors left unquantized and the cache: no note)."""
    fmt = storage.format_name(dtype) if dtype is not None else None
    if fmt is None or "quantization_config" not in config:
        return None
    chosen = storage.FORMATS[fmt]
    if chosen.block is None and chosen.bits >= 16:
        return None
    method = config["quantization_config"].get("quant_method", "bitsandbytes") \
        if isinstance(config["quantization_config"], Mapping) else "?"
    return (f"note: the config's quantization_config ({method}) sets the weights' format; --dtype {dtype} is not "
            f"applied (the rest and the cache in {DEFAULT_DTYPE})")


# The optimizer of the training total: mixed-precision Adam (16-bit weights and gradients, fp32 master and states).
TRAINING_OPTIMIZER = "adam-mixed"


def inference_bytes(config: Mapping, architecture: str | None, tokens: int, batch: int = 1,
                    dtype: str = DEFAULT_DTYPE, attention: str | None = None) -> int:
    """``memory --json``'s ``"inference_bytes"`` alone, cheaply (for a search over lengths or batches): the weights
    in ``dtype`` (or the config's quantization_config), the key/value cache of ``tokens`` tokens at ``batch``, and
    generate's transient peak under ``attention`` (:func:`memory`'s). A class whose forward is not derived is a
    :class:`~derivations.reading.ConfigError` saying so."""
    fmt = storage.FORMATS[_dtype(DEFAULT_DTYPE if dtype is None else dtype)]
    scheme = quantization.read(config)
    if scheme is not None:
        fmt = _kept(fmt)
    chosen, held, values, tokens = _held(config, architecture, tokens, None)
    tensors = [(compiled.count(size, values), compiled.count(copies, values), quantizable)
               for size, copies, quantizable in held["tensors"]]
    weights = storage.weight_bytes(tensors, fmt) if scheme is None else \
        weights_format(scheme, held, values, tensors, fmt)["weights_bytes"]
    elements, windows, _ = _cache(config, chosen, held, values, tokens, None, batch)
    layers = _layers(config, chosen, values, windows)
    transient = _transient(config, held, values, tokens, batch, fmt, layers, attention=attention,
                           rotary=_rotary(config, chosen, layers))
    if "transient_bytes" not in transient:
        raise ConfigError(f"{chosen.architecture}: no inference total: {transient['inference_refused']}")
    return weights + elements * _cache_bits(fmt) // 8 + transient["transient_bytes"]


def _kept(fmt: storage.Format) -> storage.Format:
    """Under a config's quantization_config: --dtype's float width for the tensors it leaves unquantized, the cache
    and the activations (a format of --dtype's own does not apply: 16 bits)."""
    return fmt if fmt.block is None and fmt.bits >= 16 else storage.FORMATS[DEFAULT_DTYPE]


def _dtype(dtype: str) -> str:
    if storage.format_name(dtype) is None:
        raise ConfigError(f"unknown dtype {dtype!r} (known: {', '.join(storage.FORMATS)}, "
                          f"or torch's names: {', '.join(storage.DTYPE_ALIASES)})")
    return storage.format_name(dtype)


def _held(config: Mapping, architecture: str | None, tokens: int | None, target: int | None,
          image: tuple[int, int] | None = None):
    """The class a config asks for, its compiled memory rows, its sizes by name (with ``image``'s, an image's height
    and width), and the tokens (the context the config declares where none is given)."""
    chosen = configs.select(config, architecture, parameter_symbols, base, image)
    with_image(chosen, image)
    section = compiled.section(chosen.model_type, "memory")
    held = section["memory"][chosen.layout][chosen.architecture]
    # Kept once for all the layouts: eager's and sdpa's rows.
    held = dict(held, transient=section["transient"][held["transient"]],
                transient_sdpa=section["transient"][held["transient_sdpa"]])
    values = dict(chosen.values)
    image = image_tokens(chosen, values, tokens)
    if image is not None:  # an image's tokens are its vision tower's, whose positions the config sizes
        return chosen, held, values, image
    tokens = tokens if tokens is not None else context(config)
    _positions(values, tokens, target or tokens)
    image_among(chosen, values, tokens)
    return chosen, held, values, tokens


def _cache(config: Mapping, chosen, held: dict, values: dict, tokens: int, target: int | None, batch: int):
    """Elements in the key/value cache of the batch, the windows its layers keep, and whether it has
    cross-attention (an encoder-decoder caches its decoder's tokens, target else tokens, and its encoder's)."""
    cache = [(compiled.count(per_copy, values), compiled.count(copies, values),
              cross if isinstance(cross, bool) else compiled.count(cross, values))  # a fixed source: its count
             for per_copy, copies, cross in held["cache"]]
    cross = any(c for _, _, c in cache)
    decoder_tokens = (target or tokens) if cross else tokens
    reader = configs.READERS[chosen.model_type]
    elements, windows = storage.cached(cache, decoder_tokens, lambda layers: reader.windows(config, layers),
                                       tokens if cross else None)
    return elements * batch, windows, cross


def _cache_bits(fmt: storage.Format) -> int:
    """The cache is kept at the weights' width, or at 16 bits under a 4-bit format (its scales do not apply)."""
    return fmt.bits if fmt.block is None else fmt.kept_bits


# The attention implementations the transient peak may assume (derivations.transient.ATTENTIONS), and how the tables
# say what each holds.
ATTENTIONS = ("eager", "sdpa")
ATTENTION_HOLDS = {"sdpa": "sdpa attention (no T x T scores held)",
                   "eager": "eager attention: every head's T x T scores held"}


def _attention(attention: str | None) -> str | None:
    if attention is not None and attention not in ATTENTIONS:
        raise ConfigError(f"unknown attention {attention!r} (known: {', '.join(ATTENTIONS)})")
    return attention


def _layers(config: Mapping, chosen, values: dict, windows) -> tuple:
    """The windows of the layers a forward runs: the cache's (a decoder's), or an encoder's layers' own (it keeps no
    cache: ModernBERT's sliding layers)."""
    return windows if windows else tuple(configs.READERS[chosen.model_type].encoder_windows(config, values.get("L", 0)))


def _rotary(config: Mapping, chosen, windows) -> tuple[bool, ...]:
    """Whether each self-attention layer (one a window the cache keeps) rotates its queries and keys (its reader's)."""
    return tuple(configs.READERS[chosen.model_type].rotary(config, len(windows)))


def _transient(config: Mapping, held: dict, values: dict, tokens: int, batch: int, fmt: storage.Format,
               windows, target: int | None = None, attention: str | None = None, rotary=()) -> dict:
    """The forward's transient peak at inference under ``attention`` (None: sdpa, transformers' default, where its
    forward is derived and runs; else eager), with ``"attention"`` saying which, and ``"attention_note"`` why where
    sdpa was asked for and eager is answered (by default the tables' label and ``"attention"`` say which, no note);
    or why there is none."""
    if _attention(attention) != "eager":
        sdpa = _peak(config, held["transient_sdpa"], values, tokens, batch, fmt, windows, target, rotary)
        if "transient_bytes" in sdpa:
            return sdpa | {"attention": "sdpa"}
    eager = _peak(config, held["transient"], values, tokens, batch, fmt, windows, target, rotary)
    if attention != "sdpa" or "transient_bytes" not in eager:
        return eager | ({"attention": "eager"} if "transient_bytes" in eager else {})
    return eager | {"attention": "eager",
                    "attention_note": f"sdpa attention: {sdpa['inference_refused']}; answered with eager attention "
                                      f"(every head's T x T scores held)"}


def _peak(config: Mapping, rows: dict, values: dict, tokens: int, batch: int, fmt: storage.Format, windows,
          target: int | None = None, rotary=()) -> dict:
    """The forward's transient peak at inference (derivations.transient, compiled ``rows``): the largest of its
    moments, for the bare forward and for generate's forward on the prompt (the bare one for a class that does not
    generate); or why there is none."""
    at = moment_values(config, rows, values, tokens, batch, fmt, windows, target, rotary)
    if "inference_refused" in at:
        return at
    forward = compiled.largest(rows["forward"], at)
    generate = forward if rows["generate"] is None else compiled.largest(rows["generate"], at)
    return {"transient_bytes": generate, "transient_forward_bytes": forward,
            "transient_of": "forward" if rows["generate"] is None else "generate",
            # A mixture's experts hold what the routing sends them: the figures are the most any routing holds.
            **({"transient_routing": rows["bound"]} if "bound" in rows else {})}


def moment_values(config: Mapping, rows: dict, values: dict, tokens: int, batch: int, fmt: storage.Format,
                  windows, target: int | None = None, rotary=()) -> dict:
    """The values a class's compiled transient ``rows`` are evaluated at (the sizes, the lengths, the conditions, what
    the program reads from the config), or ``{"inference_refused": why}`` where the program does not describe the
    config's forward. ``rotary``: whether each layer rotates its queries and keys (none said: every one)."""
    if "refused" in rows:
        return {"inference_refused": rows["refused"]}
    values = dict(values)
    for size, field, default, of in rows["derived"]:  # a part of a size, as the config's fraction of it
        fraction = config.get(field, default)
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
            return {"inference_refused": f"{field} must be a fraction in (0, 1], got {fraction!r}"}
        values[size] = int(values[of] * fraction)
    for name, field, default in rows.get("counts", ()):  # a config field read as a size (DeepSeek's groups)
        count = config.get(field)
        count = (values[default] if isinstance(default, str) else default) if count is None else count
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            return {"inference_refused": f"{field} must be a positive integer, got {count!r}"}
        values[name] = count
    odd = [name for name in rows["even"] if values[name] % 2]
    if odd:
        return {"inference_refused": f"the forward is derived for an even {odd[0]} only (got {values[odd[0]]})"}
    for a, b, c in rows["products"]:
        if values[a] * values[b] != values[c]:
            return {"inference_refused": f"the forward is derived where {a} x {b} = {c} only (transformers' forward "
                                         f"fails otherwise)"}
    for name, least in rows.get("at_least", ()):
        if values[name] < (values[least] if isinstance(least, str) else least):
            return {"inference_refused": f"the forward is derived for {name} >= {least} only"}
    for field, default, name in rows.get("matches", ()):
        if config.get(field, default) != values[name]:
            return {"inference_refused": f"the forward is derived where {field} = {name} ({values[name]}) only "
                                         f"(got {config.get(field, default)!r})"}
    if rows.get("fp16") and fmt.name == "fp16":
        return {"inference_refused": f"the forward is derived in bf16 and fp32, not fp16 ({rows['fp16']})"}
    for field, default, accepted in rows["requires"]:
        if config.get(field, default) not in accepted:
            return {"inference_refused": f"the forward is derived for {field} {' or '.join(map(repr, accepted))} "
                                         f"only (got {config.get(field, default)!r})"}
    # f_w: some layer attends to a window (the reader's windows, as the cache reads them): a sliding-window mask;
    # f_m: layers of both kinds.
    slides = [w is not None for w in windows]
    at = storage.transient_values(values, tokens, batch, fmt, target) | {"f_w": int(any(slides)),
                                                                          "f_m": int(any(slides) and not all(slides))}
    at |= {symbol: int(config.get(field, default) == value) for symbol, field, default, value in rows["flags"]}
    # Under sdpa, a layer is given a mask where its window is no longer than the tokens: the first (m_1), a later one
    # (m_2).
    masked = [w is not None and tokens >= w for w in windows]
    at |= {"m_1": int(any(masked[:1])), "m_2": int(any(masked[1:]))}
    # The first layer rotates its queries and keys (r_1), some later one does (r_2).
    at |= {"r_1": int(all(rotary[:1])), "r_2": int(any(rotary[1:]) or not rotary)}
    # ... and the model builds the sliding-window mask: some layer is given it, or (a mask built whatever the layers
    # are) the config's window is no longer than the tokens.
    window = None if rows.get("window") is None else config.get(*rows["window"][:2])
    if isinstance(window, int) and rows["window"][2:]:  # a fraction of the field (ModernBERT's local_attention // 2)
        window //= rows["window"][2]
    at["m_w"] = int(any(masked) or (isinstance(window, int) and tokens >= window))
    return at


def memory_table(result: dict) -> str:
    """The table ``memory`` prints."""
    return table(*memory_cells(result))


def memory_cells(result: dict) -> Table:
    """The cells of the table ``memory`` prints: the weights in every format (the chosen one marked); inference
    (weights in the chosen format, key/value cache, transient peak, their total); training (weights, gradients and
    optimizer states by optimizer, activations with and without recomputation, the total); the parameters."""
    lengths = f"T = {result['seq']:,}" + (f", T_dec = {result['target']:,}" if "target" in result else "")
    windows = result["kv_cache_windows"]
    quantized = result.get("quantization")
    body = []
    if quantized is not None:
        body += [(f"weights, {quantized['method']}", "quantization_config",
                  storage.both_units(quantized["weights_bytes"])),
                 ("  format", quantized["label"], ""),
                 ("  quantized", f"{quantized['quantized_parameters']:,} of {result['parameters']:,} parameters; "
                  f"the rest in {quantized['kept_dtype']}", "")]
    body += [(f"weights, {name}", "--dtype" if name == result["dtype"] and quantized is None else "",
              storage.both_units(value)) for name, value in result["weights_bytes_by_dtype"].items()]
    body += [("inference", f"batch {result['batch']:,}, {lengths}", ""),
             ("  weights", result["dtype"] if quantized is None else quantized["method"],
              storage.both_units(result["weights_bytes"])),
             ("  key/value cache", f"{result['kv_cache_elements']:,} elements"
              + (f", windows {', '.join(map(str, windows))}" if windows else ""),
              storage.both_units(result["kv_cache_bytes"]))]
    if "transient_bytes" in result:
        forward = storage.in_unit(result["transient_forward_bytes"], storage.DECIMAL)
        what = ("a forward's tensors at most" if result["transient_of"] == "forward" else
                f"generate's prompt forward (bare: {forward})")
        routed = "transient_routing" in result  # a bound over the routings, said so
        what = f"{ATTENTION_HOLDS[result['attention']]}; {what}"
        body.append(("  transient peak", f"at most, {what}" if routed else what,
                     storage.both_units(result["transient_bytes"])))
        if routed:
            body.append(("    routing", result["transient_routing"], ""))
        body.append(("  total", ("at most: " if routed else "") + "weights + cache + transient",
                     storage.both_units(result["inference_bytes"])))
    else:
        body.append(("  transient peak", f"none: {result['inference_refused']}", ""))
    body.append(("training", "by optimizer, then activations", ""))
    body += [(f"  {name}", storage.OPTIMIZERS[name].label if name in storage.OPTIMIZERS else "Adam, 8-bit states",
              storage.both_units(value)) for name, value in result["training_bytes"].items()]
    if "activations_bytes" in result:
        body += [("  activations", "Korthikanti: L sbh(34 + 5as/h)",
                  storage.both_units(result["activations_bytes"])),
                 ("    selective recomputation", "L sbh 34",
                  storage.both_units(result["activations_selective_recomputation_bytes"])),
                 ("    full recomputation", "L sbh 2", storage.both_units(result["activations_full_recomputation_bytes"])),
                 ("  total", f"{TRAINING_OPTIMIZER} + activations",
                  storage.both_units(result["training_total_bytes"]))]
    head = ("held", "what", "bytes")
    foot = [("parameters", "each tensor once", f"{result['parameters']:,}")]
    return Table(titled(result), head, body, foot)


# ---------------------------------------------------------------------------------------------
# fit
# ---------------------------------------------------------------------------------------------

def fit(config: Mapping, architecture: str | None = None, memory_bytes: int | None = None,
        accelerator: str | None = None, tokens: int | None = None, batch: int = 1, dtype: str | None = None,
        attention: str | None = None) -> dict:
    """``fit --json``'s object (derivations.fits): in ``memory_bytes`` bytes, or an ``accelerator``'s memory, the
    longest context at ``batch`` (``max_tokens``: the largest T with :func:`inference_bytes` within the memory)
    and the largest batch at ``tokens`` tokens (default: the config's context), each with what stops it there;
    without either, the same on every accelerator of :mod:`derivations.accelerators` (``"accelerators"``).
    ``attention``: the implementation the transient peak assumes (:func:`memory`'s; ``"attention"`` says which)."""
    from functools import cache

    from . import accelerators, fits

    if memory_bytes is not None and accelerator is not None:
        raise ConfigError("give --memory or --gpu, not both (--gpu stands for its memory)")
    tokens = context(config) if tokens is None else tokens
    # Refuses a dtype, a length past the positions; says which attention the transient assumes.
    held = memory(config, architecture, tokens, None, batch, dtype, attention=attention)
    architecture, dtype, weights = held["architecture"], held["dtype"], held["weights_bytes"]
    attention = held.get("attention", attention)
    positions = configs.select(config, architecture, parameter_symbols, base).values.get("P")
    declared = declared_context(config)

    @cache
    def at_length(length: int) -> int:
        return inference_bytes(config, architecture, length, batch, dtype, attention)

    @cache
    def at_batch(sequences: int) -> int:
        return inference_bytes(config, architecture, tokens, sequences, dtype, attention)

    def within(budget: int) -> dict:
        return (fits.longest_context(at_length, budget, weights, LONGEST, positions, held["kv_cache_windows"],
                                     None if declared is None else declared[1])
                | fits.largest_batch(at_batch, budget, weights, LONGEST, tokens))

    result = {"architecture": architecture, "dtype": dtype, "batch": batch, "seq": tokens, "weights_bytes": weights}
    if "attention" in held:
        result["attention"] = held["attention"]
        if "attention_note" in held:
            result["attention_note"] = held["attention_note"]
    if "quantization" in held:  # the config's quantization_config sets the weights' format, --dtype the rest's
        result["quantization"] = held["quantization"]["method"]
    if "transient_routing" in held:  # a mixture: the inference bytes are the most any routing holds
        result["transient_routing"] = held["transient_routing"]
    if memory_bytes is None and accelerator is None:
        result["accelerators"] = [{"name": card.name, "memory": card.memory, "memory_bytes": card.memory_bytes}
                                  | within(card.memory_bytes) for card in accelerators.ACCELERATORS.values()]
    else:
        card = None if accelerator is None else accelerators.get(accelerator)
        budget = card.memory_bytes if card is not None else memory_bytes
        result |= {"accelerator": None if card is None else card.name, "memory_bytes": budget} | within(budget)
    result["not_counted"] = list(fits.NOT_COUNTED)
    return result


def fit_table(result: dict) -> str:
    """The table ``fit`` prints."""
    return table(*fit_cells(result))


def _tokens(answer: dict) -> str:
    """A longest context as the tables show it: the tokens, and what stops them there unless it is the memory."""
    found = answer["max_tokens"]
    if found is None:
        return "none"
    return f"{found:,}" + {"memory": "", "positions": " (positions)", "longest": " or more"}[answer["max_tokens_limit"]]


def fit_cells(result: dict) -> Table:
    """The cells of the table ``fit`` prints: in one memory, the longest context and the largest batch, each
    with its bytes and why it stops there; on every accelerator, the longest context and the largest batch on
    each. Then the weights, what inference bytes hold, and what they do not count."""
    batch, seq = result["batch"], result["seq"]
    if "accelerators" in result:
        head = ("accelerator", f"memory; largest batch at {seq:,} tokens", f"longest context, batch {batch:,}")
        body = [(card["name"], f"{storage.in_unit(card['memory_bytes'], storage.DECIMAL)} = "
                 f"{storage.in_unit(card['memory_bytes'], storage.BINARY)}; batch "
                 + ("none" if card["max_batch"] is None else f"{card['max_batch']:,}"), _tokens(card))
                for card in result["accelerators"]]
    else:
        from . import accelerators

        head = ("fit", "what", "answer")
        name = result["accelerator"]
        where = "--memory" if name is None else f"--gpu {name}: “{accelerators.get(name).memory}”, its vendor's"
        body = [("memory", where, storage.both_units(result["memory_bytes"]))]
        # Each answer, then the bytes at it and at one more (the proof that one more does not fit).
        for what, unit, key, at in (("longest context", "token", "max_tokens", f"batch {batch:,}"),
                                    ("largest batch", "sequence", "max_batch", f"at {seq:,} tokens")):
            found = result[key]
            body.append((what, f"{at}: {result[key + '_reason']}",
                         _tokens(result) if key == "max_tokens" else "none" if found is None else f"{found:,}"))
            if found is not None:
                body.append(("  inference bytes", f"at {found:,} {unit}" + "s" * (found != 1),
                             storage.both_units(result[f"inference_bytes_at_{key}"])))
            if result[f"inference_bytes_past_{key}"] is not None:
                past = 1 if found is None else found + 1
                body.append(("  one more" if found else "  the least", f"at {past:,} {unit}" + "s" * (past != 1),
                             storage.both_units(result[f"inference_bytes_past_{key}"])))
    weights = result["dtype"] if "quantization" not in result else \
        f"{result['quantization']} (quantization_config), the rest in {result['dtype']}"
    holds = f", {ATTENTION_HOLDS[result['attention']]}" if "attention" in result else ""
    foot = [("weights", weights, storage.both_units(result["weights_bytes"])),
            ("inference bytes", "weights + key/value cache + the forward's transient peak" + holds
             + (f", at most: {result['transient_routing']}" if "transient_routing" in result else ""), ""),
            ("not counted", "; ".join(result["not_counted"]), "")]
    return Table(result["architecture"], head, body, foot)


# The printed tables fit a terminal of this many columns: the middle column (a formula, what a figure holds)
# wraps onto lines of its own below its row where the row would be wider.
COLUMNS = 100
NARROWEST = 12  # the middle column is never squeezed below this


def table(title: str, head: tuple[str, str, str], body: list, foot: list) -> str:
    """Three columns under a title, the last right-aligned, a rule above and below the body; at most
    :data:`COLUMNS` wide where the first and last columns leave the middle one :data:`NARROWEST` columns."""
    rows = (head, *body, *foot)
    widths = [max(len(line[i]) for line in rows) for i in range(3)]
    widths[1] = min(widths[1], max(NARROWEST, COLUMNS - widths[0] - widths[2] - 4))

    def lines(cells: tuple[str, str, str]) -> list[str]:
        # Break between words only: a formula's terms stay whole.
        middle = textwrap.wrap(cells[1], widths[1], break_long_words=False, break_on_hyphens=False) or [""]
        first = f"{cells[0]:<{widths[0]}}  {middle[0]:<{widths[1]}}  {cells[2]:>{widths[2]}}".rstrip()
        return [first] + [f"{'':<{widths[0]}}  {more}".rstrip() for more in middle[1:]]

    rule = "-" * (sum(widths) + 4)
    return "\n".join([title, *lines(head), rule, *(l for row in body for l in lines(row)), rule,
                      *(l for row in foot for l in lines(row))])
