"""The families, found once: by name, by model_type and by bundled checkpoint; and a config joined to its derivation.

The floor above ``derivations/families/``: each module there declares one record, ``FAMILY``
(:class:`derivations.contract.Family`), and this module collects them (a new family adds its module, and nothing
here). A config's reader (:mod:`derivations.configs`, plain Python) reads its sizes, layout and class; this module
gives the SymPy tree of that class in that layout (:func:`resolve`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping
from typing import NamedTuple

import sympy

from . import configs, families as package, symbols
from .components import Part
from .contract import Family
from .reading import ConfigError


def _load(name: str) -> Family:
    module = importlib.import_module(f"{package.__name__}.{name}")
    record = getattr(module, "FAMILY", None)  # the one name the registry reads: a module without it is no family
    if not isinstance(record, Family):
        raise TypeError(f"{module.__name__} declares no FAMILY (a contract.Family); name a helper module _{name}")
    if record.name != name:
        raise TypeError(f"{module.__name__}.FAMILY is named {record.name!r}: a family's name is its module's")
    return record


@functools.cache
def families() -> dict[str, Family]:
    """Every family, by name, in the order of their first papers (the site's navigation and pictures follow it)."""
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
    found = [_load(name) for name in names]
    return {f.name: f for f in sorted(found, key=lambda f: f.first_published)}


def family(name: str) -> Family:
    """A family by its name (its module's: ``bert``); LookupError for another name."""
    try:
        return families()[name]
    except KeyError:
        raise LookupError(f"no family {name!r} (known: {', '.join(families())})") from None


def of_model_type(model_type: str) -> Family:
    """The family whose reader reads ``model_type`` (the module with the reader's name), imported alone."""
    return _load(configs.READERS[model_type].module)


# ---------------------------------------------------------------------------------------------
# A config, joined to its derivation
# ---------------------------------------------------------------------------------------------

class Resolved(NamedTuple):
    """A model to count: the architecture's derivation and the symbol values from the config."""

    architecture: str
    part: Part
    values: dict[sympy.Symbol, int]

    @property
    def total(self) -> int:
        return self.part.count(self.values)


def resolve(config: Mapping, architecture: str | None = None) -> Resolved:
    """The SymPy derivation for a config: its part (the class it asks for, in its layout) and its symbol values."""
    def known(model_type: str, layout: str) -> dict[str, set[str]]:
        return {name: {str(s) for s in part.total.free_symbols}
                for name, part in of_model_type(model_type).variants[layout].items()}

    chosen = configs.select(config, architecture, known, lambda model_type: of_model_type(model_type).base)
    part = of_model_type(chosen.model_type).variants[chosen.layout][chosen.architecture]
    return Resolved(chosen.architecture, part, symbols.valued(chosen.values))


def checkpoint(name: str, architecture: str | None = None) -> Resolved:
    """A bundled checkpoint, resolved."""
    return resolve(configs.load(name), architecture)


def layout_of(family: Family, checkpoint: str) -> str | None:
    """The layout (a key of ``family.variants``) the bundled ``checkpoint``'s config asks for, when it is a config of
    ``family``'s model_type; else None."""
    config = configs.load(checkpoint)
    model_type = configs.read_model_type(config)
    if model_type != family.model_type:
        return None
    layout = configs.READERS[model_type].layout.of(config)
    if layout not in family.variants:
        raise ConfigError(f"{checkpoint} asks for the layout {layout!r}, which {family.name} does not lay out")
    return layout


def as_built(family: Family, name: str, checkpoint: str) -> Part | None:
    """``family``'s class ``name`` as the bundled ``checkpoint``'s config lays it out (Llama 3.2 ties its head, T5
    1.1 gates its feed-forward), when ``name`` is a class of the family and the checkpoint one of its configs; else
    None."""
    if name not in family.architectures:
        return None
    layout = layout_of(family, checkpoint)
    return None if layout is None else family.variants[layout][name]
