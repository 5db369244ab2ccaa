"""Command line: ``python -m derivations count CONFIG [--arch ARCH] [--json]``.

CONFIG is a Hugging Face config.json or the name of a bundled checkpoint. The table lists every
component (a leaf of the derivation, with the copies above it folded in), its formula and its exact
count; the components add up to the total. Bad input: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import compiled, configs

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not usage + message
        raise configs.ConfigError(message)


def components(config: dict, architecture: str | None) -> tuple[str, list[dict], int | None]:
    """The architecture, one row per component (dotted name, LaTeX, formula and exact count), and for
    a mixture of experts the parameters one token uses (None otherwise)."""
    def known(model_type: str, layout: str) -> dict[str, set[str]]:
        # The symbols of the components, each of which must be at least 1; not those of the active count
        # (Mixtral runs with num_experts_per_tok 0).
        return {name: {symbol for row in rows for _, powers in row["terms"] for symbol in powers}
                for name, rows in compiled.load(model_type)["variants"][layout].items()}

    chosen = configs.select(config, architecture, known, lambda model_type: compiled.load(model_type)["base"])
    family = compiled.load(chosen.model_type)
    rows = family["variants"][chosen.layout][chosen.architecture]
    active = family["active"][chosen.layout].get(chosen.architecture)
    return (chosen.architecture, [{**row, "count": compiled.count(row["terms"], chosen.values)} for row in rows],
            None if active is None else compiled.count(active, chosen.values))


def table(architecture: str, rows: list[dict], total: int, active: int | None = None) -> str:
    head = ("component", "formula", "parameters")
    body = [(r["name"], r["formula"], f"{r['count']:,}") for r in rows]
    foot = ("total", "", f"{total:,}")
    # components.active_per_token: the experts a token uses, everything else whole (embedding included).
    extra = [] if active is None else [("active per token", "X_a of the X experts, the rest whole", f"{active:,}")]
    widths = [max(len(line[i]) for line in (head, *body, foot, *extra)) for i in range(3)]

    def line(cells: tuple[str, str, str]) -> str:
        return f"{cells[0]:<{widths[0]}}  {cells[1]:<{widths[1]}}  {cells[2]:>{widths[2]}}".rstrip()

    rule = "-" * (sum(widths) + 4)
    return "\n".join([architecture, line(head), rule, *map(line, body), rule, line(foot), *map(line, extra)])


def count(args: argparse.Namespace) -> str:
    architecture, rows, active = components(configs.load(args.config), args.arch)
    # The total is the sum of the components: each tensor is one leaf, a tied one counts 0.
    total = sum(r["count"] for r in rows)
    if args.json:
        result = {"architecture": architecture, "total": total}
        if active is not None:
            result["active"] = active
        result["components"] = [{k: r[k] for k in ("name", "latex", "count")} for r in rows]
        return json.dumps(result, indent=2)
    return table(architecture, rows, total, active)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m derivations", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("count", help="count the parameters of a model, component by component")
    p.add_argument("config", metavar="CONFIG",
                   help="a config.json (model_type " + ", ".join(sorted(configs.READERS)) + "), or a bundled "
                        "checkpoint name (" + ", ".join(configs.bundled()) + ")")
    p.add_argument("--arch", metavar="ARCH", help="architecture class (default: architectures[0], else the base model)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        args = parser.parse_args(argv)
        output = count(args)
    except configs.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        print(output)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (count ... | head): nothing is wrong, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
