"""From a Hugging Face ``config.json`` to symbol values, a layout and an architecture.

A minimal config (as ``save_pretrained`` writes it) takes transformers' default for every missing
field, as transformers does. Anything that transformers would reject, or that makes no model, is a
:class:`ConfigError` with a one-line message.

Everything here is plain Python, so that the command line answers from the compiled derivations
without importing SymPy: :func:`select` does the reading, and ``derivations.registry.resolve`` joins its
result to the SymPy derivation.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
from collections.abc import Callable, Mapping
from typing import NamedTuple

from . import cache, readers, validation
from .reading import ConfigError, Reader, json_type, shown

# A str, not a Path: pathlib costs the command a tenth of its start-up.
CHECKPOINTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")


def _find_readers() -> dict[str, Reader]:
    """model_type -> reader: the READER of every module in derivations/readers/ (a new family adds
    its reader module there, and nothing here)."""
    import pkgutil

    found: dict[str, Reader] = {}
    for info in sorted(pkgutil.iter_modules(readers.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):  # helpers shared by readers, not readers
            continue
        module = importlib.import_module(f"{readers.__name__}.{info.name}")
        reader = getattr(module, "READER", None)
        if not isinstance(reader, Reader):
            raise TypeError(f"{module.__name__} defines no READER (a reading.Reader); name a helper _{info.name}")
        if reader.model_type in found:
            raise TypeError(f"two readers for model_type {reader.model_type!r}: {found[reader.model_type].module} "
                            f"and {info.name}")
        found[reader.model_type] = reader._replace(module=info.name)  # the family module has the reader's name
    return found


class _Readers(Mapping):
    """model_type -> reader, each reader module imported when first asked for: the command line reads one
    family's config and need not import the other readers. Which module reads which model_type is found
    once by importing them all (:func:`_find_readers`), then kept (:mod:`derivations.cache`)."""

    def __init__(self) -> None:
        self._modules: dict[str, str] | None = None
        self._readers: dict[str, Reader] = {}

    def modules(self) -> dict[str, str]:
        """model_type -> the name of its reader module."""
        if self._modules is None:
            kept = cache.read("readers")
            if kept is None:
                self._readers = _find_readers()
                kept = {model_type: reader.module for model_type, reader in self._readers.items()}
                cache.write("readers", kept)
            self._modules = kept
        return self._modules

    def __getitem__(self, model_type: str) -> Reader:
        if model_type not in self._readers:
            module = self.modules()[model_type]
            reader = importlib.import_module(f"{readers.__name__}.{module}").READER
            self._readers[model_type] = reader._replace(module=module)
        return self._readers[model_type]

    def __iter__(self):
        return iter(self.modules())

    def __len__(self) -> int:
        return len(self.modules())

    def __contains__(self, model_type: object) -> bool:
        return model_type in self.modules()


READERS: Mapping[str, Reader] = _Readers()


# ---------------------------------------------------------------------------------------------
# Loading and selecting
# ---------------------------------------------------------------------------------------------

def bundled() -> list[str]:
    return sorted(name[:-5] for name in os.listdir(CHECKPOINTS_DIR) if name.endswith(".json"))


def _tidy(source: str) -> str:
    """The path as pathlib reads it, which the command line did: without empty or "." parts, so that
    ``config.json/`` is config.json."""
    parts = [part for part in source.split("/") if part not in ("", ".")]
    return ("/" if source.startswith("/") else "") + "/".join(parts) or "."


def _exists(path: str) -> bool:
    """Whether ``path`` names something, as pathlib's ``exists`` says: a loop of links or a NUL in the name is
    no file; a name the system cannot even look up (too long) is an OSError, which says why."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return False
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EBADF):
            return False
        raise
    return True


def load(source: str, revision: str | None = None) -> dict:
    """A config from a file path, a bundled checkpoint name, or a Hugging Face model id (its config.json from
    the local cache, or fetched: derivations.hub; ``revision`` a branch, tag or commit)."""
    if not source.strip():
        raise ConfigError("CONFIG is empty: give a config.json, a bundled checkpoint name or a model id")
    name = repr(source) if not source.isprintable() else source
    name = name if len(name) <= 80 else name[:77] + "..."
    try:
        path = _tidy(source)
        if not _exists(path):
            candidate = os.path.join(CHECKPOINTS_DIR, f"{source}.json")
            if "/" not in source and revision is None and os.path.exists(candidate):
                path = candidate
            else:
                from . import hub  # a model id: imported only then (it needs pathlib)

                if not hub.is_model_id(source):
                    raise ConfigError(f"{name}: no such file, and not a bundled checkpoint "
                                      f"(bundled: {', '.join(bundled())})")
                try:
                    path = str(hub.locate(source, revision))
                except ConfigError as error:
                    bundled_too = "" if "/" in source else f"; not a bundled checkpoint either ({', '.join(bundled())})"
                    raise ConfigError(f"{name}: no such file; {error}{bundled_too}") from None
        if os.path.isdir(path):
            raise ConfigError(f"{name}: is a directory, not a config.json")
        if not os.path.isfile(path):
            raise ConfigError(f"{name}: not a regular file")
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: not a UTF-8 text file") from None
    except OSError as error:
        raise ConfigError(f"{name}: cannot read ({error.strerror})") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{name}: invalid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except (RecursionError, ValueError) as error:  # nesting too deep, an integer of thousands of digits
        raise ConfigError(f"{name}: invalid JSON ({str(error).splitlines()[0]})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{name}: a config must be a JSON object, got {json_type(config)}")
    return config


# Where the derived model_types are listed, and what measures the others (derivations.measured).
LISTED = "derivations count --help, or the site's page 'What is derived' (coverage.html)"
INSTALL = 'pip install "derivations[verify]"'


class UnknownModelType(ConfigError):
    """A model_type no family derives: ``count`` measures it where transformers is installed
    (derivations.measured); every other answer is refused with this line."""

    def __init__(self, model_type: object) -> None:
        super().__init__(f"unknown model_type {shown(model_type)}: not derived (the derived ones: {LISTED}); "
                         f"count measures its parameters with transformers on the meta device where torch and transformers are installed: "
                         f"{INSTALL}")
        self.model_type = model_type


def read_model_type(config: Mapping) -> str:
    value = config.get("model_type")
    if value is None:
        raise ConfigError("the config has no model_type")
    if not isinstance(value, str) or value not in READERS:
        raise UnknownModelType(value)
    return value


class Selection(NamedTuple):
    """What a config asks to count, before any SymPy: the family, its layout, the class, the values."""

    model_type: str
    layout: str
    architecture: str
    values: dict[str, int]
    # The image asked for (--image HxW) as the model's processor makes it (Reader.image), or None.
    image: object = None


def select(config: Mapping, requested: str | None, architectures: Callable[[str, str], Mapping],
           base: Callable[[str], str], image: tuple[int, int] | None = None) -> Selection:
    """Read ``config`` and pick the class: ``requested``, else ``architectures[0]``, else the base model.

    ``architectures(model_type, layout)`` gives the classes (and the symbols each uses) and
    ``base(model_type)`` the base class: the compiled derivations or the SymPy ones. ``image``: an image's
    (height, width) in pixels, for a model whose config does not size its images (Reader.image).
    """
    model_type = read_model_type(config)
    reader = READERS[model_type]
    values, layout = reader.read(config), reader.layout.of(config)
    known = architectures(model_type, layout)
    listed = config.get("architectures")
    if listed is not None and (not isinstance(listed, list) or not all(isinstance(a, str) for a in listed)):
        raise ConfigError("architectures must be a list of class names")
    name = requested if requested is not None else (listed[0] if listed else base(model_type))
    if name not in known:
        raise ConfigError(f"unknown architecture {shown(name)} for model_type {model_type!r} (known: {', '.join(known)})")
    reader.check(config, name)  # what only this class checks (first: it names the field at fault)
    picture = None
    if image is not None:
        if reader.image is None:
            raise ConfigError(f"--image is for a model whose config does not size its images (Qwen2.5-VL, Qwen3-VL); "
                              f"{model_type}'s config sizes what it reads: leave out --image")
        picture, sizes = reader.image(config, values, *image)
        values = values | sizes
    unsized = sorted(set(known[name]) - set(values))
    if unsized:  # an input no config sizes (Qwen2.5-VL's images, each its own grid of patches): asked for
        # The last named: the patches (image_grid_thw), where A_v's field names more than fits a line.
        raise ConfigError(f"{name}: needs {reader.field(unsized[-1])}, not in a config: give --image HxW")
    for symbol in sorted(known[name]):
        if values[symbol] < 1 and symbol not in reader.zero:  # e.g. num_labels 0 for a class with a classifier
            raise ConfigError(f"{name} needs {reader.field(symbol)} >= 1, got {values[symbol]}")
    return Selection(model_type, layout, name, values, picture)


def sizes(config: Mapping) -> dict[str, int]:
    """The sizes a config gives, by symbol name, as its model_type's reader reads them (any class's)."""
    return READERS[read_model_type(config)].read(config)


def note(config: Mapping, architecture: str | None = None) -> str | None:
    """The line the command adds on stderr for what transformers would refuse in the fields of ``config`` that set
    no size, for the class ``architecture`` (derivations.validation); None when it would refuse none."""
    return validation.note(config, READERS[read_model_type(config)].checks, architecture)
