"""A model_type the project does not derive, counted by transformers itself: built on the meta device, measured.

``count`` never leaves a reader at a dead end. For a config whose ``model_type`` no family derives, where torch and
transformers are installed (the ``verify`` extra), it builds the class transformers builds for the config on the
meta device (shapes, no memory, no data) and sums its parameters, module by module: a measurement of the reference
implementation, labelled as such, with no formula, no FLOPs and no memory. Without them, one line says what to
install and where the derived model_types are listed.

A parameter shared by two modules (a tied head) is held once: ``Module.parameters()`` yields each tensor once, and
the second name is listed with 0, as the derived tables list a tied head. Buffers (BART's ``final_logits_bias``,
rotary tables) are not parameters and are not counted.
"""

from __future__ import annotations

import importlib.util
import io
import re
import warnings
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout

from .configs import LISTED
from .reading import ConfigError, shown

# A layer's index in a parameter's path ("model.layers.11.mlp"): the copies of one module fold into one row.
INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)")


def available() -> bool:
    """Whether torch and transformers can be imported (without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "transformers"))


def _build(config: Mapping, architecture: str | None):
    """The model transformers builds for ``config`` (as ``architecture``, else its first architecture, else the
    base model), on the meta device; its class name and the versions that built it."""
    import torch
    import transformers
    from transformers import AutoConfig, AutoModel

    model_type = config["model_type"]
    fields = {k: v for k, v in config.items() if k not in ("model_type", "transformers_version")}
    if "auto_map" in fields:
        raise ConfigError(f"model_type {shown(model_type)} is built by the checkpoint's own code (auto_map), which "
                          "is not run here: not derived, not measured")
    transformers.logging.set_verbosity_error()
    try:
        built = AutoConfig.for_model(model_type, **fields)
    except ValueError as error:
        if "Unrecognized model identifier" in str(error) or model_type not in str(error):
            raise ConfigError(f"unknown model_type {shown(model_type)}: neither derived (the derived ones: {LISTED}) "
                              f"nor known to transformers {transformers.__version__}") from None
        raise ConfigError(f"transformers refuses this config: {_first_line(error)}") from None
    except Exception as error:  # transformers' own validation, any type: one line
        raise ConfigError(f"transformers refuses this config: {_first_line(error)}") from None
    names = [architecture] if architecture is not None else list(config.get("architectures") or ())[:1]
    try:
        with torch.device("meta"), warnings.catch_warnings(), redirect_stdout(io.StringIO()), \
                redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            if names:
                cls = getattr(transformers, names[0], None)
                if not isinstance(cls, type) or not issubclass(cls, transformers.PreTrainedModel):
                    raise ConfigError(f"unknown architecture {shown(names[0])}: transformers "
                                      f"{transformers.__version__} has no such model class")
                if not isinstance(built, cls.config_class):
                    raise ConfigError(f"unknown architecture {shown(names[0])}: not a class of model_type "
                                      f"{shown(model_type)}")
                model = cls(built)
            else:
                model = AutoModel.from_config(built)
    except ConfigError:
        raise
    except Exception as error:
        raise ConfigError(f"transformers cannot build this config: {_first_line(error)}") from None
    return model, f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def count(config: Mapping, architecture: str | None = None) -> tuple[dict, list[tuple[str, str, str]]]:
    """``count --json``'s object for a model_type that is not derived, and the table's rows: each module's
    parameters, the copies of a repeated module (its layers) folded into one row, in the order the model holds
    them; a tied tensor's second name with 0."""
    model, versions = _build(config, architecture)
    rows: dict[str, dict] = {}
    seen: dict[int, str] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        module, _, tensor = name.rpartition(".")
        key = INDEX.sub("*", module) or "(model)"
        row = rows.setdefault(key, {"name": key, "copies": set(), "shapes": {}, "count": 0, "tied": []})
        row["copies"].add(module)
        if id(parameter) in seen:  # the same tensor under a second name: held once
            row["tied"].append(f"{tensor} tied to {seen[id(parameter)]}")
            continue
        seen[id(parameter)] = name
        row["shapes"].setdefault(tensor, set()).add(tuple(parameter.shape))
        row["count"] += parameter.numel()
    components = [{"name": row["name"], "shapes": _shapes(row), "count": row["count"]} for row in rows.values()]
    result = {"architecture": type(model).__name__, "total": sum(c["count"] for c in components),
              "measured": f"built on the meta device by {versions}; not derived", "components": components}
    return result, [(c["name"], c["shapes"], f"{c['count']:,}") for c in components]


def _shapes(row: dict) -> str:
    """A row's tensors as shapes ("24 × (1024·1024 + 1024)"), or the number of modules where their sizes differ."""
    copies = len(row["copies"])
    if any(len(shapes) > 1 for shapes in row["shapes"].values()):
        return f"{copies} modules of different sizes"
    terms = " + ".join("·".join(map(str, shape)) or "1" for (shape,) in row["shapes"].values())
    terms = " + ".join(filter(None, (terms, *row["tied"])))
    return f"{copies} × ({terms})" if copies > 1 else terms


def note(model_type: str) -> str:
    """What the answer is, beside it."""
    return (f"note: model_type {shown(model_type)} is not derived here: its parameters are measured by transformers "
            "on the meta device (slower; no formula, no FLOPs, no memory)")
