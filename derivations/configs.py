"""From a Hugging Face ``config.json`` to symbol values, a layout and an architecture.

A minimal config (as ``save_pretrained`` writes it) takes transformers' default for every missing
field, as transformers does. Anything that transformers would reject, or that makes no model, is a
:class:`ConfigError` with a one-line message.

Everything here is plain Python, so that the command line answers from the compiled derivations
without importing SymPy: :func:`select` does the reading, and :func:`resolve` joins its result to
the SymPy derivation.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sympy

    from .components import Part

CHECKPOINTS_DIR = Path(__file__).with_name("checkpoints")
# Tensor sizes are int64 in PyTorch; anything larger describes no model.
LARGEST = 2**63 - 1


class ConfigError(ValueError):
    """A config that describes no model: the message is one line, for a person to read."""


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", float: "a number",
             int: "an integer", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else _json_type(value)


# ---------------------------------------------------------------------------------------------
# Reading fields
# ---------------------------------------------------------------------------------------------

def size(config: Mapping, field: str, defaults: Mapping[str, int], minimum: int = 1) -> int:
    """An integer field of at least ``minimum``, or the transformers default when the field is absent."""
    value = config.get(field, defaults.get(field))
    if value is None:
        raise ConfigError(f"{field} is missing")
    # bool is an int in Python, and 12.0 is not an integer in a config: both are mistakes.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field} must be an integer, got {_shown(value)}")
    if value < minimum:
        raise ConfigError(f"{field} must be {'positive' if minimum == 1 else f'at least {minimum}'}, got {value}")
    if value > LARGEST:
        raise ConfigError(f"{field} is too large for a tensor size ({len(str(value))} digits)")
    return value


def flag(config: Mapping, field: str, default: bool = False) -> bool:
    value = config.get(field, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{field} must be true or false, got {_shown(value)}")
    return value


def num_labels(config: Mapping) -> int:
    """As transformers: num_labels if given, else the distinct integer keys of id2label, else 2. Zero
    is allowed here (transformers builds it); a class with a classifier rejects it in :func:`select`."""
    if "num_labels" in config:
        if config["num_labels"] is None:  # transformers fails on it too
            raise ConfigError("num_labels must be an integer, got null")
        return size(config, "num_labels", {}, minimum=0)
    labels = config.get("id2label")
    if labels is None:
        return 2
    if not isinstance(labels, dict):
        raise ConfigError(f"id2label must be an object, got {_json_type(labels)}")
    try:
        # transformers turns the keys into integers: "0" and "00" are one label.
        return len({int(key) for key in labels})
    except ValueError:
        raise ConfigError("id2label keys must be integers") from None


def padding_index(config: Mapping, vocabulary: int, default: int | None) -> None:
    """pad_token_id must index the word embeddings (nn.Embedding accepts -V to V - 1), or be null."""
    value = config.get("pad_token_id", default)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"pad_token_id must be an integer or null, got {_shown(value)}")
    if not -vocabulary <= value < vocabulary:
        raise ConfigError(f"pad_token_id ({value}) is outside the vocabulary (vocab_size {vocabulary})")


def head_size(config: Mapping, hidden: int, heads: int) -> int:
    """hidden / heads, which transformers requires to be exact unless the config has embedding_size
    (then each head has the floor of it, and the heads cover less than the hidden size)."""
    if hidden % heads and "embedding_size" not in config:
        raise ConfigError(f"hidden_size ({hidden}) is not a multiple of num_attention_heads ({heads})")
    return hidden // heads


# ---------------------------------------------------------------------------------------------
# BERT: config.json -> {symbol name: value}, and the layout it asks for
# ---------------------------------------------------------------------------------------------

# transformers' BertConfig defaults: a minimal config.json takes these for a missing field.
BERT_DEFAULTS = {
    "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
}


def read_bert(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return size(config, field, BERT_DEFAULTS)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    padding_index(config, vocabulary, default=0)
    flag(config, "is_decoder")
    return {
        "V": vocabulary, "P": get("max_position_embeddings"), "T": get("type_vocab_size"),
        "D": hidden, "H": heads, "d_h": head_size(config, hidden, heads),
        "F": get("intermediate_size"), "L": get("num_hidden_layers"), "C": num_labels(config),
    }


def bert_layout(config: Mapping) -> str:
    """Which of bert.VARIANTS the config builds: cross-attention (a decoder) and an untied LM head."""
    cross = flag(config, "add_cross_attention")
    if cross and not flag(config, "is_decoder"):
        # BertLayer raises the same: cross-attention needs a decoder.
        raise ConfigError("add_cross_attention needs is_decoder: true")
    untied = not flag(config, "tie_word_embeddings", default=True)
    return "+".join(name for name, on in (("cross_attention", cross), ("untied", untied)) if on)


@dataclass(frozen=True)
class Family:
    """How to read one model_type: its module in this package, its values, its layout, and the
    config field behind each symbol (for error messages)."""

    module: str
    read: Callable[[Mapping], dict[str, int]]
    layout: Callable[[Mapping], str]
    fields: Mapping[str, str]


# model_type -> family. A new family adds its line here and its module beside this one.
FAMILIES = {"bert": Family("bert", read_bert, bert_layout,
                           {"C": "num_labels", "d_h": "hidden_size / num_attention_heads"})}


def families() -> dict[str, ModuleType]:
    """model_type -> family module (SymPy)."""
    modules = {kind: importlib.import_module(f"{__package__}.{family.module}") for kind, family in FAMILIES.items()}
    for kind, module in modules.items():
        assert module.MODEL_TYPE == kind, f"{module.__name__} says it is {module.MODEL_TYPE!r}, not {kind!r}"
    return modules


# ---------------------------------------------------------------------------------------------
# Loading and selecting
# ---------------------------------------------------------------------------------------------

def bundled() -> list[str]:
    return sorted(p.stem for p in CHECKPOINTS_DIR.glob("*.json"))


def load(source: str) -> dict:
    """A config from a file path or a bundled checkpoint name."""
    if not source.strip():
        raise ConfigError("CONFIG is empty: give a config.json or a bundled checkpoint name")
    shown = repr(source) if not source.isprintable() else source
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    try:
        path = Path(source)
        if not path.exists():
            candidate = CHECKPOINTS_DIR / f"{source}.json"
            if "/" in source or not candidate.exists():
                raise ConfigError(f"{shown}: no such file, and not a bundled checkpoint "
                                  f"(bundled: {', '.join(bundled())})")
            path = candidate
        if path.is_dir():
            raise ConfigError(f"{shown}: is a directory, not a config.json")
        if not path.is_file():
            raise ConfigError(f"{shown}: not a regular file")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not a UTF-8 text file") from None
    except OSError as error:
        raise ConfigError(f"{shown}: cannot read ({error.strerror})") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{shown}: invalid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except (RecursionError, ValueError) as error:  # nesting too deep, an integer of thousands of digits
        raise ConfigError(f"{shown}: invalid JSON ({str(error).splitlines()[0]})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{shown}: a config must be a JSON object, got {_json_type(config)}")
    return config


def model_type(config: Mapping) -> str:
    kind = config.get("model_type")
    if kind is None:
        raise ConfigError("the config has no model_type")
    if not isinstance(kind, str) or kind not in FAMILIES:
        raise ConfigError(f"unknown model_type {_shown(kind)} (known: {', '.join(sorted(FAMILIES))})")
    return kind


@dataclass(frozen=True)
class Selection:
    """What a config asks to count, before any SymPy: the family, its layout, the class, the values."""

    model_type: str
    layout: str
    architecture: str
    values: dict[str, int]


def select(config: Mapping, requested: str | None, architectures: Callable[[str, str], Mapping],
           base: Callable[[str], str]) -> Selection:
    """Read ``config`` and pick the class: ``requested``, else ``architectures[0]``, else the base model.

    ``architectures(model_type, layout)`` gives the classes (and the symbols each uses) and
    ``base(model_type)`` the base class: the compiled derivations or the SymPy ones.
    """
    kind = model_type(config)
    family = FAMILIES[kind]
    values, layout = family.read(config), family.layout(config)
    known = architectures(kind, layout)
    listed = config.get("architectures")
    if listed is not None and (not isinstance(listed, list) or not all(isinstance(a, str) for a in listed)):
        raise ConfigError("architectures must be a list of class names")
    name = requested if requested is not None else (listed[0] if listed else base(kind))
    if name not in known:
        raise ConfigError(f"unknown architecture {_shown(name)} for model_type {kind!r} (known: {', '.join(known)})")
    for symbol in sorted(known[name]):
        if values[symbol] < 1:  # e.g. num_labels 0 for a class that has a classifier
            raise ConfigError(f"{name} needs {family.fields.get(symbol, symbol)} >= 1, got {values[symbol]}")
    return Selection(kind, layout, name, values)


@dataclass(frozen=True)
class Resolved:
    """A model to count: the architecture's derivation and the symbol values from the config."""

    architecture: str
    part: Part
    values: dict[sympy.Symbol, int]

    @property
    def total(self) -> int:
        return self.part.count(self.values)


def resolve(config: Mapping, architecture: str | None = None) -> Resolved:
    """The SymPy derivation for a config: its part and its symbol values."""
    from . import symbols

    modules = families()

    def known(kind: str, layout: str) -> dict[str, set[str]]:
        return {name: {str(s) for s in part.total.free_symbols}
                for name, part in modules[kind].VARIANTS[layout].items()}

    chosen = select(config, architecture, known, lambda kind: modules[kind].BASE_ARCHITECTURE)
    part = modules[chosen.model_type].VARIANTS[chosen.layout][chosen.architecture]
    return Resolved(chosen.architecture, part, {getattr(symbols, k): v for k, v in chosen.values.items()})


def checkpoint(name: str, architecture: str | None = None) -> Resolved:
    """A bundled checkpoint, resolved."""
    return resolve(load(name), architecture)
