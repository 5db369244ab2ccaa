"""Qwen2 and Qwen2.5 (model_type ``qwen2``): LLaMA's reader with Qwen2Config's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Reader, qwen_windows
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED_LAYOUT, read_decoder

# transformers' Qwen2Config defaults (configuration_qwen2.py, 5.23). num_key_value_heads defaults to 32, and
# null means as many as the heads. Qwen2Config has no head_dim and no bias options: Qwen2Attention reads
# ``getattr(config, "head_dim", hidden_size // num_attention_heads)`` (a head_dim in config.json is kept as an
# attribute) and always gives q, k and v a bias, o none. The config does not require the heads to divide the
# width: each head then has the floor.
FIELDS = Fields({"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 32})


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        # getattr finds the attribute, None, and the projections cannot be sized.
        raise ConfigError("head_dim must be an integer when given (Qwen2Attention reads it as it is), got null")
    return read_decoder(config, FIELDS, divisible=False, zero_head_dim=False, null_kv_heads=True)


# Qwen2Config's fields that set no size (configuration_qwen2.py, 5.23): LLaMA's, and the windows (which memory reads).
CHECKS = validation.fields(DECODER_CHECKS, use_sliding_window="bool", sliding_window="int | None",
                           max_window_layers="int", layer_types="list[str] | None")

READER = Reader("qwen2", read, TIED_LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=qwen_windows,
                checks=CHECKS)
