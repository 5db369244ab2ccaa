"""Gemma 3's language model (model_type ``gemma3_text``): Gemma's reader with Gemma3TextConfig's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Reader, alternating
from .. import validation
from .gemma import GEMMA2_CHECKS, LAYOUT, read_gemma
from .llama import EVEN_HEAD, HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS

# transformers' Gemma3TextConfig defaults (configuration_gemma3.py, 5.23): Gemma 3 4B's language model, and a
# vocabulary of 262,208 rows. A multimodal config's text_config leaves most of them out.
FIELDS = Fields({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                 "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256})


def read(config: Mapping) -> dict[str, int]:
    return read_gemma(config, FIELDS, divisible=True)


# Gemma 2's, and sliding_window_pattern, which Gemma3TextConfig.__post_init__ takes each layer's index modulo.
CHECKS = validation.fields(GEMMA2_CHECKS, sliding_window_pattern=validation.Field("int | float | bool"))

# Gemma3TextConfig: sliding_window_pattern - 1 local layers, then a global one (5 and 1 by default).
READER = Reader("gemma3_text", read, LAYOUT, SYMBOL_FIELDS,
                (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=alternating(4096, period=6),
                checks=CHECKS)
