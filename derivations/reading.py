"""Reading config.json fields as transformers reads them: the pieces every family's reader uses.

Plain Python (no SymPy), so that the command line answers without importing it. Anything that
transformers would reject, or that makes no model, is a :class:`ConfigError` with a one-line message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# Tensor sizes are int64 in PyTorch; anything larger describes no model.
LARGEST = 2**63 - 1


class ConfigError(ValueError):
    """A config that describes no model: the message is one line, for a person to read."""


def json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", float: "a number",
             int: "an integer", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def shown(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else json_type(value)


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
        raise ConfigError(f"{field} must be an integer, got {shown(value)}")
    if value < minimum:
        raise ConfigError(f"{field} must be {'positive' if minimum == 1 else f'at least {minimum}'}, got {value}")
    if value > LARGEST:
        raise ConfigError(f"{field} is too large for a tensor size ({len(str(value))} digits)")
    return value


def flag(config: Mapping, field: str, default: bool = False) -> bool:
    value = config.get(field, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{field} must be true or false, got {shown(value)}")
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
        raise ConfigError(f"id2label must be an object, got {json_type(labels)}")
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
        raise ConfigError(f"pad_token_id must be an integer or null, got {shown(value)}")
    if not -vocabulary <= value < vocabulary:
        raise ConfigError(f"pad_token_id ({value}) is outside the vocabulary (vocab_size {vocabulary})")


def head_size(config: Mapping, hidden: int, heads: int) -> int:
    """hidden / heads, which transformers requires to be exact unless the config has embedding_size
    (then each head has the floor of it, and the heads cover less than the hidden size)."""
    if hidden % heads and "embedding_size" not in config:
        raise ConfigError(f"hidden_size ({hidden}) is not a multiple of num_attention_heads ({heads})")
    return hidden // heads


@dataclass(frozen=True)
class Family:
    """How to read one model_type: the derivation module in this package (``derivations.<module>``),
    the reader from config.json to symbol values, the layout (a key of the module's ``VARIANTS``) the
    config asks for, and the config field behind each symbol where it is not obvious (for errors)."""

    model_type: str
    module: str
    read: Callable[[Mapping], dict[str, int]]
    layout: Callable[[Mapping], str]
    fields: Mapping[str, str]
