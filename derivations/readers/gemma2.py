"""Gemma 2 (model_type ``gemma2``): Gemma's reader with Gemma2Config's defaults and its check of the heads."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Reader, alternating
from .gemma import GEMMA2_CHECKS, LAYOUT, read_gemma
from .llama import EVEN_HEAD, HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS


# transformers' Gemma2Config defaults (configuration_gemma2.py, 5.23): Gemma 2 2B's sizes.
FIELDS = Fields({"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                 "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256})


def read(config: Mapping) -> dict[str, int]:
    return read_gemma(config, FIELDS, divisible=True)


# Gemma2Config's fields that set no size (configuration_gemma2.py, 5.23): readers.gemma declares them.
CHECKS = GEMMA2_CHECKS

# Gemma2Config: local (sliding_window, 4096) and global attention alternate, the first layer local.
READER = Reader("gemma2", read, LAYOUT, SYMBOL_FIELDS,
                (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=alternating(4096), checks=CHECKS)
