"""From a Hugging Face ``config.json`` to symbol values, and from an architecture name to its derivation.

A minimal config (as ``save_pretrained`` writes it) takes transformers' default for every missing
field, as transformers does. Anything that transformers would reject, or that makes no model, is a
:class:`ConfigError` with a one-line message.

Reading a config is plain Python (values keyed by symbol name), so that the command line can answer
from the compiled derivations without importing SymPy; :func:`resolve` joins the values to the
SymPy derivation.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sympy

    from .components import Part

CHECKPOINTS_DIR = Path(__file__).with_name("checkpoints")


class ConfigError(ValueError):
    """A config that describes no model: the message is one line, for a person to read."""


# The family modules of this package; a new family adds its module name here.
FAMILY_MODULES = ("bert",)


def families() -> dict[str, ModuleType]:
    """model_type -> family module (each family module sets MODEL_TYPE)."""
    modules = (importlib.import_module(f"{__package__}.{name}") for name in FAMILY_MODULES)
    return {module.MODEL_TYPE: module for module in modules}


# ---------------------------------------------------------------------------------------------
# Reading sizes
# ---------------------------------------------------------------------------------------------

def size(config: Mapping, field: str, defaults: Mapping[str, int]) -> int:
    """A positive integer field, or the transformers default when the field is absent."""
    value = config.get(field, defaults.get(field))
    if value is None:
        raise ConfigError(f"{field} is missing")
    # bool is an int in Python, and 12.0 is not an integer in a config: both are mistakes.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field} must be an integer, got {json.dumps(value)}")
    if value <= 0:
        raise ConfigError(f"{field} must be positive, got {value}")
    return value


def num_labels(config: Mapping) -> int:
    """As transformers: the length of id2label if given, else num_labels, else 2."""
    if "id2label" in config and config["id2label"] is not None:
        if not isinstance(config["id2label"], dict) or not config["id2label"]:
            raise ConfigError("id2label must be a non-empty object")
        return len(config["id2label"])
    return size(config, "num_labels", {"num_labels": 2})


def divide(numerator: int, numerator_field: str, denominator: int, denominator_field: str) -> int:
    if numerator % denominator:
        raise ConfigError(f"{numerator_field} ({numerator}) is not a multiple of {denominator_field} ({denominator})")
    return numerator // denominator


# ---------------------------------------------------------------------------------------------
# One reader per model_type: config.json -> {symbol name: value}
# ---------------------------------------------------------------------------------------------

# transformers' BertConfig defaults: a minimal config.json takes these for a missing field.
BERT_DEFAULTS = {
    "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
}


def flag(config: Mapping, field: str) -> bool:
    value = config.get(field, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{field} must be true or false, got {json.dumps(value)}")
    return value


def bert_variant(config: Mapping) -> str:
    """"cross_attention" for a BERT decoder with cross-attention layers, else "" (the plain layout)."""
    if not flag(config, "add_cross_attention"):
        return ""
    if not flag(config, "is_decoder"):
        # BertLayer raises the same: cross-attention needs a decoder.
        raise ConfigError("add_cross_attention needs is_decoder: true")
    return "cross_attention"


def read_bert(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return size(config, field, BERT_DEFAULTS)

    hidden, heads = get("hidden_size"), get("num_attention_heads")
    return {
        "V": get("vocab_size"), "P": get("max_position_embeddings"), "T": get("type_vocab_size"),
        "D": hidden, "H": heads, "F": get("intermediate_size"), "L": get("num_hidden_layers"),
        # BertSelfAttention raises unless heads divide the hidden size; then H d_h = D.
        "d_h": divide(hidden, "hidden_size", heads, "num_attention_heads"),
        "C": num_labels(config),
    }


# model_type -> (symbol values, layout variant), both plain Python.
READERS = {"bert": (read_bert, bert_variant)}


def model_type(config: Mapping) -> str:
    kind = config.get("model_type")
    if kind is None:
        raise ConfigError("the config has no model_type")
    if not isinstance(kind, str) or kind not in READERS:
        raise ConfigError(f"unknown model_type {json.dumps(kind)} (known: {', '.join(sorted(READERS))})")
    return kind


def read(config: Mapping) -> dict[str, int]:
    """Symbol name -> value, with the transformers defaults for missing fields."""
    return READERS[model_type(config)][0](config)


def variant(config: Mapping) -> str:
    """Which of the family's layouts the config asks for ("" for the plain one)."""
    return READERS[model_type(config)][1](config)


def architecture(config: Mapping, requested: str | None, known: Mapping, base: str) -> str:
    """The requested class, else ``architectures[0]`` of the config, else the family's base model."""
    listed = config.get("architectures")
    if listed is not None and (not isinstance(listed, list) or not all(isinstance(a, str) for a in listed)):
        raise ConfigError("architectures must be a list of class names")
    name = requested or (listed[0] if listed else base)
    if name not in known:
        raise ConfigError(f"unknown architecture {name!r} for model_type {config['model_type']!r} "
                          f"(known: {', '.join(known)})")
    return name


# ---------------------------------------------------------------------------------------------
# Resolving a config
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Resolved:
    """A model to count: the architecture's derivation and the symbol values from the config."""

    architecture: str
    part: "Part"
    values: "dict[sympy.Symbol, int]"

    @property
    def total(self) -> int:
        return self.part.count(self.values)


def bundled() -> list[str]:
    return sorted(p.stem for p in CHECKPOINTS_DIR.glob("*.json"))


def load(source: str) -> dict:
    """A config from a file path or a bundled checkpoint name."""
    path = Path(source)
    if not path.exists():
        candidate = CHECKPOINTS_DIR / f"{source}.json"
        if "/" in source or not candidate.exists():
            raise ConfigError(f"{source}: no such file, and not a bundled checkpoint "
                              f"(bundled: {', '.join(bundled())})")
        path = candidate
    if path.is_dir():
        raise ConfigError(f"{source}: is a directory, not a config.json")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not a text file") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{source}: invalid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except OSError as error:
        raise ConfigError(f"{source}: cannot read ({error.strerror})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{source}: a config must be a JSON object, got {type(config).__name__}")
    return config


def resolve(config: Mapping, architecture_name: str | None = None) -> Resolved:
    """Symbol values and the derivation for an architecture (default: ``architectures[0]``, else the base model)."""
    from . import symbols

    kind = model_type(config)
    family = families()[kind]
    values = {getattr(symbols, name): value for name, value in read(config).items()}
    architectures = family.VARIANTS[variant(config)]
    name = architecture(config, architecture_name, architectures, family.BASE_ARCHITECTURE)
    return Resolved(name, architectures[name], values)


def checkpoint(name: str, architecture: str | None = None) -> Resolved:
    """A bundled checkpoint, resolved."""
    return resolve(load(name), architecture)
