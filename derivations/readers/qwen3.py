"""Qwen3 (model_type ``qwen3``): LLaMA's reader with Qwen3Config's defaults, a head size of its own."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, qwen_windows, switch
from .llama import EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, TIED, read_decoder
from . import qwen2

# transformers' Qwen3Config defaults (configuration_qwen3.py, 5.23). head_dim is a field of its own, 128 by
# default whatever the width (Qwen3-0.6B: 16 heads of 128 in a width of 1024). num_key_value_heads defaults to
# 32, and null means as many as the heads. The heads need not divide the width.
FIELDS = Fields({"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 128})


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        raise ConfigError("head_dim must be an integer, got null (Qwen3Config types it int)")
    return read_decoder(dict(config) | {"head_dim": config.get("head_dim", FIELDS.defaults["head_dim"])}, FIELDS,
                        divisible=False, zero_head_dim=False, null_kv_heads=True)


# Qwen3Config's fields that set no size (configuration_qwen3.py, 5.23): Qwen2's.
CHECKS = qwen2.CHECKS

# Biases on q, k, v and o (attention_bias, false in every release), a tied head, a token classifier without bias.
READER = Reader("qwen3", read, Layout((switch("attention_bias", "attention_bias"), TIED, NO_TOKEN_BIAS)),
                SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=qwen_windows, checks=CHECKS)
