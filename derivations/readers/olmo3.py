"""OLMo 3 (model_type ``olmo3``): OLMo 2's reader with Olmo3Config's defaults and its windows."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, layer_windows, window_size
from .. import validation
from .llama import EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS
from . import olmo2

# transformers' Olmo3Config defaults (configuration_olmo3.py, 5.23): OLMo 2's (Olmo3Config copies Olmo2Config's
# fields), a sliding_window of 4096 and layer_types.
FIELDS = olmo2.FIELDS


def read(config: Mapping) -> dict[str, int]:
    sizes = olmo2.read_getattr_head(config, FIELDS, 1, "Olmo3Attention")
    windows(config, sizes["L"])  # a window the model cannot run without, layer_types one a layer
    return sizes


def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
    """Olmo3Config: without layer_types, three sliding layers then a full one ((i + 1) % 4 != 0 slides)."""
    window = window_size(config, 4096)
    if window is None:
        # Olmo3Model.forward builds the sliding-window mask whichever layers slide, and it needs a window.
        raise ConfigError("sliding_window must be set: OLMo 3 builds a sliding-window mask on every forward")
    return layer_windows(config, layers, window, lambda i: bool((i + 1) % 4))


# Olmo3Config's fields that set no size (configuration_olmo3.py, 5.23): OLMo 2's and the windows.
# rope_theta: Olmo3Config keeps it in rope_parameters without checking its type (a string or null is taken).
CHECKS = validation.fields({f: c for f, c in olmo2.CHECKS.items() if f != "rope_theta"}, sliding_window="int | None",
                           layer_types="list[str] | None")

READER = Reader("olmo3", read, olmo2.LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=windows,
                checks=CHECKS)
