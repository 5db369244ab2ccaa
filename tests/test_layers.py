"""The package's floors only go down: no module imports one of a floor above its own, and no import closes a circle.

The floors, and what each may import, are CONTRIBUTING.md's; this test reads every import of every module of
``derivations`` (at the top of a module and inside a function alike: an import made only when a function runs is an
import all the same) and holds them to it; and it imports every module.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "derivations"

# Bottom to top. A module may import its own floor's modules and those of the floors below.
FLOORS = (
    ("ground", ("reading", "validation", "rules", "storage", "quantization", "cache", "sources", "accelerators")),  # plain Python: fields, sizes' rules, bytes, cards
    ("readers", ("readers", "readers.*", "configs", "hub")),  # config.json -> sizes and layout (plain Python)
    ("notation", ("symbols", "components", "render", "claims", "flops", "transient")),  # SymPy: notation, building blocks
    ("contract", ("contract",)),  # the record every family declares
    ("families", ("families", "families.*")),  # one module a family
    ("registry", ("registry",)),  # the families, found; a config joined to its tree
    ("library", ("memory", "sharding", "compiled", "fits", "roofline", "answers", "parallel", "measured")),  # what a tree holds
    # and where it splits; the compiled polynomials; what fits a memory and how fast at best (plain Python); the answers
    ("doors", ("__init__", "__main__", "api", "pasted")),  # the command line, the Python API, the config page
    ("site", ("site", "site.*")),  # what the pages show: references, shortcodes, exhibits, pictures, calculators
)
# Plain Python floors: the command line reads a config and answers without SymPy.
PLAIN = ("ground", "readers")
# Third-party modules only some modules may import.
ONLY = {"argparse": ("__main__",), "matplotlib": ("site.figures",), "markdown": ("site.families",)}


def modules() -> dict[str, Path]:
    """Every module of the package, by its name below ``derivations`` ("readers.llama", "__init__")."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1]) if parts[-1] == "__init__" and len(parts) > 1 else ".".join(parts)
        found[name] = path
    return found


MODULES = modules()


def floor(name: str) -> int:
    for level, (_, patterns) in enumerate(FLOORS):
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
            return level
    raise AssertionError(f"derivations.{name} is on no floor: add it to CONTRIBUTING.md and to FLOORS here")


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


@functools.cache  # parsed when a test first asks, not at collection (each worker asks for its own tests' modules)
def imports(name: str) -> tuple[set[str], set[str]]:
    """The package's modules ``name`` imports, and the top-level names of the other modules it imports."""
    path = MODULES[name]
    package = name.split(".")[:-1] if path.name != "__init__.py" else name.split(".") if name != "__init__" else []
    inside, outside = set(), set()

    def add(dotted: str) -> None:
        # "families.llama" is a module; "components.Part" is a name in one: the longest module prefix is imported.
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in MODULES:
                inside.add(".".join(parts[:end]))
                return
        raise AssertionError(f"derivations.{name} imports derivations.{dotted}, which is no module")

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return  # annotations only
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "derivations" or alias.name.startswith("derivations."):
                    add(alias.name.removeprefix("derivations").removeprefix(".") or "__init__")
                else:
                    outside.add(alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and not (node.module or "").startswith("derivations"):
                outside.add((node.module or "").split(".")[0])
            else:
                base = (package[: len(package) - node.level + 1] if node.level else [])
                module = [*base, *(node.module.split(".") if node.module and node.level else
                                   (node.module or "").split(".")[1:])]
                for alias in node.names:
                    dotted = ".".join([*module, alias.name])
                    add(dotted if dotted in MODULES else ".".join(module) or "__init__")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    inside.discard(name)
    return inside, outside


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_a_floor_above_its_own(name):
    upward = {other for other in imports(name)[0] if floor(other) > floor(name)}
    assert not upward, (f"derivations.{name} ({FLOORS[floor(name)][0]}) imports "
                        + ", ".join(f"derivations.{o} ({FLOORS[floor(o)][0]})" for o in sorted(upward)))


def test_no_import_closes_a_circle():
    # Depth first over the package's imports: a module met again while its own imports are being visited closes
    # a circle.
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for other in sorted(imports(name)[0]):
            if state.get(other) == "open":
                circle = path[path.index(other):] + [name, other] if other in path else [name, other]
                raise AssertionError("a circle: " + " -> ".join(f"derivations.{m}" for m in circle))
            if other not in state:
                visit(other, [*path, name])
        state[name] = "done"

    for name in sorted(MODULES):
        if name not in state:
            visit(name, [])


@pytest.mark.parametrize("name", sorted(n for n in MODULES if FLOORS[floor(n)][0] in PLAIN))
def test_the_plain_floors_import_no_sympy(name):
    assert "sympy" not in imports(name)[1], f"derivations.{name} is plain Python (the command line's), and imports SymPy"


@pytest.mark.parametrize("module, allowed", sorted(ONLY.items()))
def test_some_libraries_are_imported_only_where_they_belong(module, allowed):
    importers = {name for name in MODULES if module in imports(name)[1]}
    assert importers <= set(allowed), f"{module} is imported by {sorted(importers - set(allowed))}"


def test_the_site_layer_is_left_out_of_the_wheel():
    # Page content is the site's: the installed package (pyproject.toml's packages) is the library and its doors.
    import tomllib

    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    assert "derivations.site" not in listed and {"derivations", "derivations.families", "derivations.readers"} <= set(listed)


def test_every_module_imports():
    # In a fresh interpreter, every module in turn: none fails to import. (A module that works only after another
    # was imported would need a circle, which the test above refuses.)
    names = [("derivations." + name).removesuffix(".__init__") for name in sorted(MODULES) if name != "__main__"]
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    done = subprocess.run([sys.executable, "-c", script, *names], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_contributing_states_the_floors_this_test_holds():
    # CONTRIBUTING.md's table of floors, row by row: the same floors, in the same order, with the same modules.
    import re

    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| ((?:`[^`]+`(?:, )?)+) \|", text, flags=re.M)
    stated = [(name, {m for listed in re.findall(r"`([^`]+)`", modules)
                      for m in ((listed[:-2], listed[:-2] + ".*") if listed.endswith("/*") else (listed,))})
              for name, modules in rows]
    assert stated == [(name, set(patterns)) for name, patterns in FLOORS]
