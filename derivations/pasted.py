"""A config.json pasted into the site: the command line's ``count``, ``fit``, ``flops`` and ``memory``, run in the
reader's browser.

The site's page for a config of one's own runs this module in Pyodide (CPython compiled to WebAssembly,
shipped with the site: hooks/pasted.py) on a bundle of this package's own modules, the readers
included, and its compiled families. So a pasted config is read by the same code as
``derivations count config.json`` (and ``flops``, ``memory``): the same defaults, aliases and layout flags,
the same numbers and the same one-line errors. There is no reader written a second time in JavaScript. Plain Python (no
SymPy), like the command line. A count is :mod:`derivations.answers`'s, as the command line's is; ``fit``, ``flops``
and ``memory`` run the command line itself on the arguments the page shows (:func:`command`), its parser's refusals
included, and the page shows the cells of the table it prints as an HTML table.
"""

from __future__ import annotations

import contextlib
import json
import tempfile

from . import __main__ as cli
from . import answers, compiled, configs, storage

# The name the pasted text is read under: the command line's errors name the file they read.
FILE = "config.json"
_folder: str | None = None


def folder() -> str:
    """The folder the pasted text is written to, as ``config.json``: one of its own, so that no config.json of
    the caller's is touched (the page writes a chosen file's bytes there too)."""
    global _folder
    if _folder is None:
        _folder = tempfile.mkdtemp(prefix="derivations-pasted-")
    return _folder


def install(bundle: str) -> None:
    """Read the compiled families from the bundle (the folder it was unpacked to), so that no command needs SymPy,
    which the bundle does not hold: each family's section when a command first reads it."""
    compiled.read_from(bundle)


def _write(text: str | None) -> None:
    if text is not None:
        # A lone surrogate (a JavaScript string may hold one) is written as it stands, which is not UTF-8:
        # the command line's line for such a file, as for any file that is not UTF-8.
        with open(FILE, "w", encoding="utf-8", errors="surrogatepass") as file:
            file.write(text)


def count(text: str | None, architecture: str | None = None) -> str:
    """What ``derivations count config.json [--arch ARCHITECTURE]`` answers when config.json holds ``text`` (None:
    the file :func:`folder` holds, as the page wrote it: the bytes of a file the reader chose, UTF-8 or not), as
    a JSON object for the page: the class, each component's name, formula and count and the totals, the
    numbers written as the command's table writes them (strings: JavaScript's numbers are exact to 2^53
    only); ``json``, what ``--json`` prints; ``table``, the table the command prints; ``architectures``, the
    classes the config can build; ``notes``, the lines it adds on stderr (what transformers would refuse in a field
    that sets no size). Or ``error``: the line the command prints, and nothing else."""
    with contextlib.chdir(folder()):
        _write(text)
        try:
            config = configs.load(FILE)
            result, rows = answers.count(config, architecture)
        except configs.ConfigError as error:
            return json.dumps({"error": f"error: {error}"})
    model_type = configs.read_model_type(config)
    layout = configs.READERS[model_type].layout.of(config)
    active = result.get("active")
    return json.dumps({
        "architecture": result["architecture"],
        "rows": [{"name": row["name"], "formula": row["formula"], "count": f"{row['count']:,}"} for row in rows],
        "total": f"{result['total']:,}",
        "active": None if active is None else f"{active:,}",
        "json": json.dumps(result, indent=2),
        "table": answers.count_table(result, rows),
        "architectures": list(answers.parameter_symbols(model_type, layout)),
        "notes": [note] if (note := configs.note(config, result["architecture"])) else [],
    })


def formats() -> dict:
    """The data types ``memory --dtype`` takes, and the one it takes by default, for the page's choice."""
    return {"names": list(storage.FORMATS), "default": answers.DEFAULT_DTYPE}


def command(argv: list[str], text: str | None = None) -> str:
    """What ``derivations ARGV`` prints when config.json holds ``text`` (None: the file as :func:`folder` holds it),
    ARGV naming config.json: ``{"status": exit status, "output": what it prints on stdout, or else on stderr,
    "table": the cells of the table it prints, "notes": the lines it adds on stderr}``, the cells as
    :class:`derivations.answers.Table`'s fields
    (``title``, ``head``, ``body``, ``foot``; None when it prints JSON or refuses). For ``fit``, ``flops`` and
    ``memory`` on the page, run as the command line runs (its own parser, its own lines, its own table)."""
    argv = [str(arg) for arg in argv]  # from the page: a JavaScript array
    with contextlib.chdir(folder()):
        _write(text)
        status, output, cells, notes = cli.run(argv)
    return json.dumps({"status": status, "output": output, "table": None if cells is None else cells._asdict(),
                       "notes": list(notes)})

