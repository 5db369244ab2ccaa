"""The Python API: what the command line answers (count, flops, memory), as functions that return results.

    >>> import derivations
    >>> derivations.count("bert-base-chinese").total
    102290312
    >>> derivations.flop_count("gpt2", seq=1024).forward
    291648307200
    >>> derivations.memory_use("Qwen/Qwen2.5-7B", seq=8192).kv_cache_elements   # a model id, from the local cache

``model`` is a bundled checkpoint name, a path to a config.json, a config as a dict, or a Hugging Face model id
(its config.json from the local cache, or fetched: :mod:`derivations.hub`). Each result carries the numbers of
the command line's ``--json`` object as attributes, that object itself (:meth:`Result.json`), and for count and
flops the components with their SymPy expressions. Bad input raises :class:`derivations.configs.ConfigError`
with the command line's one-line message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import sympy

from . import __main__ as _cli
from . import configs, render


@dataclass(frozen=True)
class Component:
    """One component (a leaf of the derivation, its copies folded in): its dotted name, its formula, that
    formula in LaTeX, and its value (parameters, or forward FLOPs for the batch)."""

    name: str
    expr: sympy.Expr
    latex: str
    value: int


class Result:
    """The command line's JSON object, its keys as attributes (``result.total``, ``result.kv_cache_elements``)."""

    def __init__(self, data: dict, components: tuple[Component, ...] = ()) -> None:
        self._data = data
        self.components = components

    def json(self) -> dict:
        """The object ``--json`` prints, equal to it."""
        return self._data

    def __getattr__(self, name: str):
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"no {name!r} in this result (it has {', '.join(self._data)})") from None

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._data.items() if k != "components")
        return f"{type(self).__name__}({shown})"


def _positive(name: str, value: int | None) -> int | None:
    """A length or a batch, checked as the command line checks it, its refusal a ConfigError."""
    import argparse

    if value is None:
        return None
    try:
        return _cli.positive(str(value))
    except argparse.ArgumentTypeError as error:
        raise configs.ConfigError(f"{name}: {error}") from None


def _config(model: str | Path | Mapping, revision: str | None) -> dict:
    if isinstance(model, Mapping):
        return dict(model)
    return configs.load(str(model), revision)


def count(model: str | Path | Mapping, architecture: str | None = None, revision: str | None = None) -> Result:
    """The parameters of ``architecture`` (default: the config's architectures[0], else the base model): total,
    ``active`` for a mixture of experts, and every component with its formula."""
    config = _config(model, revision)
    data, _ = _cli.count_result(config, architecture)
    resolved = configs.resolve(config, data["architecture"])
    exprs = [row.expr for row in resolved.part.rows()]
    return Result(data, tuple(Component(c["name"], e, render.latex(e), c["count"])
                              for c, e in zip(data["components"], exprs, strict=True)))


def flop_count(model: str | Path | Mapping, seq: int, architecture: str | None = None, target: int | None = None,
          batch: int = 1, revision: str | None = None) -> Result:
    """The forward FLOPs over ``seq`` tokens (``target`` an encoder-decoder's decoder tokens), its causal half,
    the backward, a training step and what recomputation adds; every component with its formula in s."""
    from . import flops as _flops

    config = _config(model, revision)
    data, _ = _cli.flops_result(config, architecture, _positive("seq", seq), _positive("target", target),
                                _positive("batch", batch))
    rows = _flops.rows(configs.resolve(config, data["architecture"]).part)
    return Result(data, tuple(Component(c["name"], r.expr, render.latex(r.expr), c["flops"])
                              for c, r in zip(data["components"], rows, strict=True)))


def memory_use(model: str | Path | Mapping, seq: int | None = None, architecture: str | None = None,
           target: int | None = None, batch: int = 1, dtype: str = "bf16", revision: str | None = None) -> Result:
    """What the model holds, in bytes: weights in every format, the key/value cache after ``seq`` tokens
    (default: the config's context), training state per optimizer, activations."""
    from .storage import FORMATS

    if dtype not in FORMATS:
        raise configs.ConfigError(f"unknown dtype {dtype!r} (known: {', '.join(FORMATS)})")
    return Result(_cli.memory_result(_config(model, revision), architecture, _positive("seq", seq),
                                     _positive("target", target), _positive("batch", batch), dtype))
