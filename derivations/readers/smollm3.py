"""SmolLM3 (model_type ``smollm3``): LLaMA's reader with SmolLM3Config's defaults and its windows.

SmolLM3Config has no head_dim field (SmolLM3Attention reads it with getattr, as Olmo2Attention does) and does not
require the heads to divide the width. ``no_rope_layers`` only says which layers rotate their queries and keys: a
layer without rotary embeddings holds the same tensors.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, flag, layer_windows, shown, switch, window_size
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS
from . import olmo2

# transformers' SmolLM3Config defaults (configuration_smollm3.py, 5.23): SmolLM3-3B's sizes, 4 key/value heads
# (null: as many as the heads), a head tied to the embeddings, pad_token_id 128004.
FIELDS = Fields({"vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 11008, "num_hidden_layers": 36,
                 "num_attention_heads": 16, "num_key_value_heads": 4})


def rotary_layers(config: Mapping, layers: int) -> list[bool]:
    """Which layers rotate (no_rope_layers: 1 rotates, 0 does not), as SmolLM3Config.__post_init__ fills it: without
    it, every no_rope_layer_interval-th layer does not. SmolLM3Attention indexes it by layer: it must be long enough."""
    given = config.get("no_rope_layers")
    if given is None:
        every = config.get("no_rope_layer_interval", 4)
        if isinstance(every, bool) or not isinstance(every, int) or every == 0:
            raise ConfigError(f"no_rope_layer_interval must be a non-zero integer, got {shown(every)}")
        return [bool((i + 1) % every) for i in range(layers)]
    if not isinstance(given, list) or len(given) < layers:
        raise ConfigError(f"no_rope_layers must list at least num_hidden_layers ({layers}) entries, 1 or 0")
    return [bool(each) for each in given[:layers]]


def read(config: Mapping) -> dict[str, int]:
    sizes = olmo2.read_getattr_head(config, FIELDS, 128004, "SmolLM3Attention")
    windows(config, sizes["L"])  # the rotary layers, long enough; layer_types one a layer
    return sizes


def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
    """SmolLM3Config: without layer_types, a layer slides where use_sliding_window and sliding_window are set and the
    layer has no rotary embedding; layer_types, where given, are what the cache reads (whatever use_sliding_window
    says)."""
    if config.get("layer_types") is not None:
        return layer_windows(config, layers, window_size(config, None))
    rotary = rotary_layers(config, layers)
    window = window_size(config, None, flag(config, "use_sliding_window"))
    return layer_windows(config, layers, window, lambda i: not rotary[i])


# LLaMA's switches, the head untied where tie_word_embeddings is false (SmolLM3Config ties it by default).
LAYOUT = Layout((switch("attention_bias", "attention_bias"), switch("mlp_bias", "mlp_bias"),
                 switch("untied", "tie_word_embeddings", default=True, on=False), NO_TOKEN_BIAS))

# SmolLM3Config's fields that set no size (configuration_smollm3.py, 5.23): LLaMA's and the windows and rotary layers.
CHECKS = validation.fields(DECODER_CHECKS, attention_dropout=validation.dropout("float | int"),
                           use_sliding_window="bool", sliding_window="int | None", no_rope_layers="list[int] | None",
                           no_rope_layer_interval="int", layer_types="list[str] | None")

READER = Reader("smollm3", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=windows,
                checks=CHECKS, rotary=rotary_layers)
