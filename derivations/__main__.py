"""Command line: ``python -m derivations count CONFIG [--arch ARCH] [--json]``,
``python -m derivations flops CONFIG --seq T [--target T] [--image HxW] [--arch ARCH] [--batch B] [--gpu NAME]
[--json]``, ``python -m derivations memory CONFIG [--arch ARCH] [--seq T] [--target T] [--image HxW] [--batch B]
[--dtype DTYPE]
[--attention eager|sdpa] [--json]`` and ``python -m derivations fit CONFIG [--memory SIZE | --gpu NAME] [--seq T]
[--batch B] [--dtype DTYPE] [--attention eager|sdpa] [--json]``.

CONFIG is a Hugging Face config.json or the name of a bundled checkpoint. The table lists every
component (a leaf of the derivation, with the copies above it folded in), its formula and its exact
count, or its forward FLOPs; the components add up to the total. Bad input: one line on stderr, exit
status 2. What each command answers is :mod:`derivations.answers`'s; this module reads the arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import NamedTuple

from . import answers, configs, measured, parallel, storage

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


def count(args: argparse.Namespace) -> tuple[dict, answers.Table]:
    try:
        result, rows = answers.count(args.loaded, args.arch)
    except configs.UnknownModelType as unknown:
        if not (isinstance(unknown.model_type, str) and measured.available()):
            raise
        # Never a dead end: what transformers builds, measured on the meta device and labelled so.
        result, body = measured.count(args.loaded, args.arch)
        return result, answers.Table(f"{result['architecture']}, measured (not derived)",
                                     ("module", "tensors", "parameters"), body, [("total", "", f"{result['total']:,}")])
    return result, answers.count_cells(result, rows)


def positive(text: str) -> int:
    """A length or a batch (answers.length), refused as argparse refuses an argument's value."""
    try:
        return answers.length(text)
    except configs.ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def tokens(text: str) -> int:
    """A length in tokens as a person writes it (storage.parse_tokens: 32k is 32,768), within answers.length's
    range."""
    try:
        # A plain number (0 and negatives included) is judged as a length; one with a unit is read first.
        return answers.length(text if text.strip().lstrip("-").isdigit() else storage.parse_tokens(text))
    except configs.ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def size(text: str) -> int:
    """A memory as a person writes it (storage.parse_bytes: 24GB, 24GiB, 80G, plain bytes)."""
    try:
        return storage.parse_bytes(text)
    except configs.ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def accelerator(text: str) -> str:
    """An accelerator's name, as derivations.accelerators knows it (its refusal lists the known ones)."""
    from . import accelerators

    try:
        return accelerators.get(text).name
    except configs.ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def flops(args: argparse.Namespace) -> tuple[dict, answers.Table]:
    result, rows = answers.flops(args.loaded, args.arch, args.seq, args.target, args.batch,
                                 getattr(args, "gpu", None), args.image)
    return result, answers.flops_cells(result, rows)


def memory(args: argparse.Namespace) -> tuple[dict, answers.Table]:
    config = args.loaded
    result = answers.memory(config, args.arch, args.seq, args.target, args.batch, args.dtype,
                            attention=args.attention, image=args.image)
    # Splitting: the largest layer, and with --tp, --devices, --memory or --gpu what each device holds.
    result |= parallel.answer(config, args.arch, result, args.tp, args.devices,
                              parallel.capacity(args.memory, args.gpu))
    cells = answers.memory_cells(result)
    return result, cells._replace(body=cells.body + parallel.rows(result))


def fit(args: argparse.Namespace) -> tuple[dict, answers.Table]:
    result = answers.fit(args.loaded, args.arch, args.memory, args.gpu, args.seq,
                         args.batch, args.dtype, args.attention)
    return result, answers.fit_cells(result)


def count_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG",
                   help="a config.json (model_type " + ", ".join(sorted(configs.READERS)) + " derived; any other "
                        "measured by transformers where the verify extra is installed), a bundled "
                        "checkpoint name (" + ", ".join(configs.bundled()) + "), or a Hugging Face model id "
                        "(OWNER/NAME: its config.json from the local cache, or fetched with the hub extra)")
    p.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    p.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def image(text: str) -> tuple[int, int]:
    """An image's HxW in pixels (reading.image_size), refused as argparse refuses an argument's value."""
    from .reading import image_size

    try:
        return image_size(text)
    except configs.ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def image_argument(p: argparse.ArgumentParser) -> None:
    """flops' and memory's --image: one image's size, for a model whose config does not size its images."""
    p.add_argument("--image", metavar="HxW", type=image,
                   help="one image's height and width in pixels (1024x768), for Qwen2.5-VL and Qwen3-VL, whose "
                        "configs do not size their images: resized as their processor resizes it, its tokens among "
                        "the sequence's")


def flops_arguments(f: argparse.ArgumentParser) -> None:
    f.add_argument("config", metavar="CONFIG", help="a config.json or a bundled checkpoint name (as for count)")
    f.add_argument("--seq", metavar="T", type=tokens,
                   help="tokens in a sequence, as 4096 or 4k (k = 1024) (an encoder-decoder's source, and its target "
                        "unless --target); required, except for a class whose input has the size its config sets (an "
                        "image's patches and class token, a window of audio's frames)")
    f.add_argument("--target", metavar="T", type=tokens, help="an encoder-decoder's target length (default: --seq)")
    image_argument(f)
    f.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    f.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    f.add_argument("--batch", metavar="B", type=positive, default=1, help="sequences in the batch (default 1)")
    f.add_argument("--gpu", metavar="NAME", type=accelerator,
                   help="an accelerator (as derivations fit lists them): adds lower bounds on the prefill's and one "
                        "decode step's time, max(FLOPs / its bf16 peak, bytes / its bandwidth), or the bandwidth's term "
                        "alone where its vendor states no dense bf16 rate")
    f.add_argument("--json", action="store_true", help="print one JSON object")


def memory_arguments(m: argparse.ArgumentParser) -> None:
    m.add_argument("config", metavar="CONFIG", help="a config.json or a bundled checkpoint name (as for count)")
    m.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    m.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    m.add_argument("--seq", metavar="T", type=tokens,
                   help="tokens in a sequence, as 4096 or 4k (k = 1024) (default: the config's max_position_embeddings, "
                        "else 2048)")
    m.add_argument("--target", metavar="T", type=tokens, help="an encoder-decoder's target length (default: --seq)")
    image_argument(m)
    m.add_argument("--batch", metavar="B", type=positive, default=1, help="sequences in the batch (default 1)")
    m.add_argument("--dtype", metavar="DTYPE",
                   help="the weights' data type: " + ", ".join(storage.FORMATS) + ", or torch's name (bfloat16, "
                        f"float16, float32) (default {answers.DEFAULT_DTYPE}); a config's quantization_config sets the "
                        "weights' format instead, --dtype's float width the tensors it leaves unquantized")
    attention_argument(m)
    m.add_argument("--json", action="store_true", help="print one JSON object")
    parallel_arguments(m)


def attention_argument(p: argparse.ArgumentParser) -> None:
    """memory's and fit's --attention: the implementation the forward's transient peak assumes."""
    p.add_argument("--attention", choices=answers.ATTENTIONS,
                   help="the attention the forward's transient peak assumes: sdpa (transformers' default, no T x T "
                        "scores held) where derived, else eager (every head's scores held), which a note then says")


def parallel_arguments(m: argparse.ArgumentParser) -> None:
    """memory's options for splitting a model over devices (derivations.parallel)."""
    m.add_argument("--tp", metavar="N", type=positive,
                   help="tensor parallelism over N devices: each device's weights and key/value cache (Megatron's "
                        "split: heads, feed-forward, vocabulary padded to a multiple of 128 N)")
    m.add_argument("--devices", metavar="N", type=positive,
                   help="training on N devices (with --tp, groups of that many): each device's model states under "
                        "ZeRO stages 0 to 3 (mixed-precision Adam) and activations")
    m.add_argument("--memory", metavar="SIZE", help="a device's memory (24GB, 80GiB; G means GB): which totals fit")
    m.add_argument("--gpu", metavar="NAME", help="an accelerator whose memory is a device's (A100, MI300X)")


def fit_arguments(f: argparse.ArgumentParser) -> None:
    f.add_argument("config", metavar="CONFIG", help="a config.json or a bundled checkpoint name (as for count)")
    where = f.add_mutually_exclusive_group()
    where.add_argument("--memory", metavar="SIZE", type=size,
                       help="the memory: 24GB, 24GiB, 80G or plain bytes (G alone means GB, 10^9 bytes, as GPU "
                            "memory is sold; GiB is 2^30)")
    where.add_argument("--gpu", metavar="NAME", type=accelerator,
                       help="an accelerator's memory as its vendor states it (A100-SXM4-40GB, MI300X, ...: an "
                            "unknown name lists them); without --memory or --gpu, every accelerator's")
    f.add_argument("--seq", metavar="T", type=tokens,
                   help="the length the largest batch is found at, as 4096 or 4k (default: the config's context)")
    f.add_argument("--batch", metavar="B", type=positive, default=1,
                   help="the batch the longest context is found at (default 1)")
    f.add_argument("--dtype", metavar="DTYPE",
                   help="the weights' data type: " + ", ".join(storage.FORMATS) + ", or torch's name (default "
                        f"{answers.DEFAULT_DTYPE}); a config's quantization_config sets the weights' format instead")
    attention_argument(f)
    f.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    f.add_argument("--revision", metavar="REV", help="a model id's branch, tag or commit (default main)")
    f.add_argument("--json", action="store_true", help="print one JSON object")


# Each command: its help line, its arguments, what it answers (--json's object and the table's cells).
COMMANDS = {
    "count": ("count the parameters of a model, component by component", count_arguments, count),
    "flops": ("the forward FLOPs of a model, component by component, and a training step's", flops_arguments, flops),
    "memory": ("what a model holds: weights by data type, key/value cache, training state, activations",
               memory_arguments, memory),
    "fit": ("the longest context and the largest batch a memory holds (weights, cache and the forward's peak; "
            "not the framework's context, the allocator's fragmentation or an engine's reservation)",
            fit_arguments, fit),
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


class Ran(NamedTuple):
    """What ``derivations ARGV`` did: its exit status, what it prints (on stdout; on stderr, a status other than
    0), the cells of the table it prints (None when it prints JSON or refuses) and the lines it adds on stderr
    while answering (a length past the model's context, a field transformers would refuse). The config page shows
    the cells and the notes (:mod:`derivations.pasted`)."""

    status: int
    output: str
    cells: answers.Table | None
    notes: tuple[str, ...] = ()


def run(argv: list[str]) -> Ran:
    """``derivations ARGV``, without printing."""
    try:
        args = parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
        args.loaded = configs.load(args.config, args.revision)  # read once (a model id's config fetched once)
        result, cells = COMMANDS[args.command][2](args)
    except configs.ConfigError as error:
        return Ran(EXIT_BAD_INPUT, f"error: {error}", None)
    config = args.loaded  # its notes are said beside its answer
    # What transformers would refuse in the fields that set no size (derivations.validation): said, answered anyway.
    notes = ((measured.note(config["model_type"]) if "measured" in result
              else configs.note(config, result.get("architecture"))),)
    if getattr(args, "seq", None) is not None:
        notes += (answers.beyond_context(config, args.seq),)
    if args.command in ("memory", "fit"):
        notes += (answers.quantization_note(config, args.dtype),)
        # sdpa meant (transformers' default, or asked) and eager answered: why.
        notes += (result.get("attention_note") and f"note: {result['attention_note']}",)
    notes = tuple(note for note in notes if note)
    if args.json:
        return Ran(0, json.dumps(result, indent=2), None, notes)
    return Ran(0, answers.table(*cells), cells, notes)


def shown(note: str) -> str:
    """A note as the terminal shows it: within the tables' 100 columns, a longer note's lines indented under its
    first (the config page shows it as a paragraph)."""
    return textwrap.fill(note, answers.COLUMNS, subsequent_indent="  ", break_on_hyphens=False)


def main(argv: list[str] | None = None) -> int:
    status, output, _, notes = run(sys.argv[1:] if argv is None else argv)
    if status != 0:
        print(output, file=sys.stderr)
        return status
    for note in notes:
        print(shown(note), file=sys.stderr)
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
