"""Command line: ``python -m derivations count CONFIG [--arch ARCH] [--json]``,
``python -m derivations flops CONFIG --seq T [--target T] [--arch ARCH] [--batch B] [--json]`` and
``python -m derivations memory CONFIG [--arch ARCH] [--seq T] [--target T] [--batch B] [--dtype DTYPE] [--json]``.

CONFIG is a Hugging Face config.json or the name of a bundled checkpoint. The table lists every
component (a leaf of the derivation, with the copies above it folded in), its formula and its exact
count, or its forward FLOPs; the components add up to the total. Bad input: one line on stderr, exit
status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import compiled, configs, storage

EXIT_BAD_INPUT = 2


def version() -> str:
    """The installed package's version (pyproject.toml's)."""
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("derivations")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


class _Version(argparse.Action):
    """--version, looked up only when asked (importlib.metadata takes longer to import than a count)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"derivations {version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not usage + message
        raise configs.ConfigError(message)


def parameter_symbols(model_type: str, layout: str) -> dict[str, set[str]]:
    """Per class, the symbols of its components, each of which must be at least 1; not those of the active
    count (Mixtral runs with num_experts_per_tok 0)."""
    return {name: {symbol for row in rows for _, powers in row["terms"] for symbol in powers}
            for name, rows in compiled.section(model_type, "count")["variants"][layout].items()}


def base(model_type: str) -> str:
    """The class a config without architectures builds: the family's base model."""
    return compiled.section(model_type, "count")["base"]


def components(config: dict, architecture: str | None) -> tuple[str, list[dict], int | None]:
    """The architecture, one row per component (dotted name, LaTeX, formula and exact count), and for
    a mixture of experts the parameters one token uses (None otherwise)."""
    chosen = configs.select(config, architecture, parameter_symbols, base)
    family = compiled.section(chosen.model_type, "count")
    rows = family["variants"][chosen.layout][chosen.architecture]
    active = family["active"][chosen.layout].get(chosen.architecture)
    return (chosen.architecture, [{**row, "count": compiled.count(row["terms"], chosen.values)} for row in rows],
            None if active is None else compiled.count(active, chosen.values))


def table(architecture: str, rows: list[dict], total: int, active: int | None = None) -> str:
    head = ("component", "formula", "parameters")
    body = [(r["name"], r["formula"], f"{r['count']:,}") for r in rows]
    foot = [("total", "", f"{total:,}")]
    # components.active_per_token: the experts a token uses, everything else whole (embedding included).
    extra = [] if active is None else [("active per token", "X_a of the X experts, the rest whole", f"{active:,}")]
    return _table(architecture, head, body, foot + extra)


def count_result(config: dict, architecture: str | None) -> tuple[dict, list[dict]]:
    """``count --json``'s object, and the rows behind it (with their formulas, for the table)."""
    architecture, rows, active = components(config, architecture)
    # The total is the sum of the components: each tensor is one leaf, a tied one counts 0.
    result = {"architecture": architecture, "total": sum(r["count"] for r in rows)}
    if active is not None:
        result["active"] = active
    result["components"] = [{k: r[k] for k in ("name", "latex", "count")} for r in rows]
    return result, rows


def count(args: argparse.Namespace) -> str:
    result, rows = count_result(configs.load(args.config, args.revision), args.arch)
    if args.json:
        return json.dumps(result, indent=2)
    return table(result["architecture"], rows, result["total"], result.get("active"))


# Longer than any model reads (2^24 tokens); a length beyond it is a typo, not a question.
LONGEST = 2**24


def positive(text: str) -> int:
    """A length or a batch: a whole number from 1 to LONGEST."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= LONGEST:
        raise argparse.ArgumentTypeError(f"expected a number from 1 to {LONGEST:,}, got {value:,}")
    return value


def flop_components(config: dict, architecture: str | None, tokens: int, target: int | None
                    ) -> tuple[str, list[dict], dict[str, int]]:
    """The architecture, one row per component with its forward FLOPs for one sequence (and the causal half
    where there is one), and the values the polynomials were evaluated at."""
    def known(model_type: str, layout: str) -> dict[str, set[str]]:
        return {name: {symbol for row in rows for _, powers in row["terms"] for symbol in powers} - {"s", "s_d"}
                for name, rows in compiled.section(model_type, "flops")["flops"][layout].items()}

    chosen = configs.select(config, architecture, known, base)
    rows = compiled.section(chosen.model_type, "flops")["flops"][chosen.layout][chosen.architecture]
    values = {str(symbol): value for symbol, value in chosen.values.items()}
    positions = values.get("P")
    if positions is not None and max(tokens, target or tokens) > positions:
        # Learned (or Marian's fixed) positions: a table of P rows, and no row for a token past them.
        raise configs.ConfigError(f"the model reads at most {positions:,} tokens (its position table), "
                                  f"got {max(tokens, target or tokens):,}")
    values |= {"s": tokens, "s_d": target or tokens}
    out = [{**row, "flops": compiled.count(row["terms"], values),
            "causal_flops": None if row["causal"] is None else compiled.count(row["causal"], values)} for row in rows]
    return chosen.architecture, out, values


def flops_result(config: dict, architecture: str | None, tokens: int, target: int | None, batch: int
                 ) -> tuple[dict, list[dict]]:
    """``flops --json``'s object, and the rows behind it (with their formulas, for the table)."""
    architecture, rows, values = flop_components(config, architecture, tokens, target)
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
    result["components"] = [{"name": r["name"], "latex": r["latex"], "flops": batch * r["flops"]} for r in rows]
    return result, rows


def flops(args: argparse.Namespace) -> str:
    result, rows = flops_result(configs.load(args.config, args.revision), args.arch, args.seq, args.target, args.batch)
    batch, forward = args.batch, result["forward"]
    if args.json:
        return json.dumps(result, indent=2)
    head = ("component", "formula (one sequence)", "forward FLOPs")
    body = [(r["name"], r["formula"], f"{batch * r['flops']:,}") for r in rows]
    lengths = f"s = {args.seq:,}" + (f", s_dec = {result['target']:,}" if "target" in result else "")
    foot = [("forward", f"batch {batch:,}, {lengths}", f"{forward:,}")]
    if result["forward_causal"] != forward:
        foot.append(("forward, causal half", "each query against the keys up to it", f"{result['forward_causal']:,}"))
    foot += [("backward", "2 x forward", f"{result['backward']:,}"),
             ("training step", "forward + backward", f"{result['training_step']:,}"),
             ("+ full recomputation", "the layers' forward again", f"{result['full_recomputation']:,}"),
             ("+ selective recomputation", "attention's products again", f"{result['selective_recomputation']:,}")]
    return _table(result["architecture"], head, body, foot)


# The context a config declares (the sequence length memory assumes without --seq), else this.
CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "n_ctx")
DEFAULT_CONTEXT = 2048


def context(config: dict) -> int:
    for field in CONTEXT_FIELDS:
        value = config.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= LONGEST:
            return value
    return DEFAULT_CONTEXT


def memory_result(config: dict, architecture: str | None, tokens: int | None, target: int | None, batch: int,
                  dtype: str) -> dict:
    """What the model holds, in bytes (derivations.memory, on the compiled polynomials): the weights in every
    format, the key/value cache, training state for each optimizer, and activations."""
    chosen = configs.select(config, architecture, parameter_symbols, base)
    held = compiled.section(chosen.model_type, "memory")["memory"][chosen.layout][chosen.architecture]
    values = {str(symbol): value for symbol, value in chosen.values.items()}
    tokens = tokens if tokens is not None else context(config)
    positions = values.get("P")
    if positions is not None and max(tokens, target or tokens) > positions:
        raise configs.ConfigError(f"the model reads at most {positions:,} tokens (its position table), "
                                  f"got {max(tokens, target or tokens):,}")
    tensors = [(compiled.count(size, values), compiled.count(copies, values), quantizable)
               for size, copies, quantizable in held["tensors"]]
    parameters = sum(size * copies for size, copies, _ in tensors)
    cache = [(compiled.count(per_copy, values), compiled.count(copies, values), cross)
             for per_copy, copies, cross in held["cache"]]
    cross = any(c for _, _, c in cache)
    # An encoder-decoder caches its decoder's tokens (--target, else --seq) and its encoder's (--seq).
    decoder_tokens = (target or tokens) if cross else tokens
    layers = sum(copies for _, copies, is_cross in cache if not is_cross)
    windows = configs.READERS[chosen.model_type].windows(config, layers)
    elements = batch * storage.cache_elements(cache, decoder_tokens, windows, tokens if cross else None)
    fmt = storage.FORMATS[dtype]
    # The cache is kept at the weights' width, or at 16 bits under a 4-bit format (its scales do not apply).
    cache_bits = fmt.bits if fmt.block is None else fmt.kept_bits
    result = {
        "architecture": chosen.architecture, "seq": tokens, "batch": batch, "dtype": dtype,
        "parameters": parameters,
        "weights_bytes": storage.weight_bytes(tensors, fmt),
        "weights_bytes_by_dtype": {name: storage.weight_bytes(tensors, f) for name, f in storage.FORMATS.items()},
        "kv_cache_elements": elements,
        "kv_cache_bytes": elements * cache_bits // 8,
        "kv_cache_windows": sorted({w for w in windows if w is not None}),
        "training_bytes": {name: o.per_parameter * parameters for name, o in storage.OPTIMIZERS.items()}
        | {"adam-8bit": 8 * parameters + storage.adam_8bit_states([(size, copies) for size, copies, _ in tensors])},
    }
    if cross:
        result["target"] = decoder_tokens
    if {"D", "H", "L"} <= values.keys():
        # Korthikanti et al.'s GPT layer at 16 bits: sbh(34 + 5as/h) a layer; full recomputation keeps 2sbh.
        h, a, depth = values["D"], values["H"], values["L"]
        result["activations_bytes"] = depth * storage.activations(tokens, batch, h, a)
        result["activations_selective_recomputation_bytes"] = depth * storage.activations_selective(tokens, batch, h)
        result["activations_full_recomputation_bytes"] = depth * storage.activations_full(tokens, batch, h)
    return result


def memory(args: argparse.Namespace) -> str:
    result = memory_result(configs.load(args.config, args.revision), args.arch, args.seq, args.target, args.batch, args.dtype)
    if args.json:
        return json.dumps(result, indent=2)
    lengths = f"T = {result['seq']:,}" + (f", T_dec = {result['target']:,}" if "target" in result else "")
    windows = result["kv_cache_windows"]
    body = [(f"weights, {name}", "--dtype" if name == args.dtype else "", storage.both_units(value))
            for name, value in result["weights_bytes_by_dtype"].items()]
    body.append(("key/value cache", f"{result['kv_cache_elements']:,} elements, batch {args.batch:,}, {lengths}"
                 + (f", windows {', '.join(map(str, windows))}" if windows else ""),
                 storage.both_units(result["kv_cache_bytes"])))
    body += [(f"training, {name}", "weights, gradients, optimizer states", storage.both_units(value))
             for name, value in result["training_bytes"].items()]
    if "activations_bytes" in result:
        body += [("activations", "Korthikanti et al., 16-bit: L sbh(34 + 5as/h)",
                  storage.both_units(result["activations_bytes"])),
                 ("  selective recomputation", "L sbh 34", storage.both_units(result["activations_selective_recomputation_bytes"])),
                 ("  full recomputation", "L sbh 2", storage.both_units(result["activations_full_recomputation_bytes"]))]
    head = ("held", "what", "bytes")
    foot = [("parameters", "each tensor once", f"{result['parameters']:,}")]
    return _table(result["architecture"], head, body, foot)


def _table(title: str, head: tuple[str, str, str], body: list, foot: list) -> str:
    widths = [max(len(line[i]) for line in (head, *body, *foot)) for i in range(3)]

    def line(cells: tuple[str, str, str]) -> str:
        return f"{cells[0]:<{widths[0]}}  {cells[1]:<{widths[1]}}  {cells[2]:>{widths[2]}}".rstrip()

    rule = "-" * (sum(widths) + 4)
    return "\n".join([title, line(head), rule, *map(line, body), rule, *map(line, foot)])


def count_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG",
                   help="a config.json (model_type " + ", ".join(sorted(configs.READERS)) + "), a bundled "
                        "checkpoint name (" + ", ".join(configs.bundled()) + "), or a Hugging Face model id "
                        "(OWNER/NAME: its config.json from the local cache, or fetched with the hub extra)")
    p.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    p.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def flops_arguments(f: argparse.ArgumentParser) -> None:
    f.add_argument("config", metavar="CONFIG", help="a config.json or a bundled checkpoint name (as for count)")
    f.add_argument("--seq", metavar="T", type=positive, required=True,
                   help="tokens in a sequence (an encoder-decoder's source, and its target unless --target)")
    f.add_argument("--target", metavar="T", type=positive, help="an encoder-decoder's target length (default: --seq)")
    f.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    f.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    f.add_argument("--batch", metavar="B", type=positive, default=1, help="sequences in the batch (default 1)")
    f.add_argument("--json", action="store_true", help="print one JSON object")


def memory_arguments(m: argparse.ArgumentParser) -> None:
    m.add_argument("config", metavar="CONFIG", help="a config.json or a bundled checkpoint name (as for count)")
    m.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    m.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    m.add_argument("--seq", metavar="T", type=positive,
                   help="tokens in a sequence (default: the config's max_position_embeddings, else 2048)")
    m.add_argument("--target", metavar="T", type=positive, help="an encoder-decoder's target length (default: --seq)")
    m.add_argument("--batch", metavar="B", type=positive, default=1, help="sequences in the batch (default 1)")
    m.add_argument("--dtype", metavar="DTYPE", choices=list(storage.FORMATS), default="bf16",
                   help="the weights' data type: " + ", ".join(storage.FORMATS) + " (default bf16)")
    m.add_argument("--json", action="store_true", help="print one JSON object")


# Each command: its help line, its arguments, what it prints.
COMMANDS = {
    "count": ("count the parameters of a model, component by component", count_arguments, count),
    "flops": ("the forward FLOPs of a model, component by component, and a training step's", flops_arguments, flops),
    "memory": ("what a model holds: weights by data type, key/value cache, training state, activations",
               memory_arguments, memory),
}


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command``, only that command's arguments are declared (the others
    keep their name and help line): a parser costs a tenth of a millisecond an argument to build, and a count
    answers in a few tens of milliseconds."""
    top = _Parser(prog="derivations", description=__doc__.split("\n\n")[0])
    top.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = top.add_subparsers(dest="command", required=True)
    for name, (line, arguments, _) in COMMANDS.items():
        each = sub.add_parser(name, help=line)
        if command in (None, name):
            arguments(each)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
        output = COMMANDS[args.command][2](args)
    except configs.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        print(output)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (count ... | head): nothing is wrong, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


def console() -> None:
    """The installed command, ``derivations`` (pyproject.toml's [project.scripts])."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
