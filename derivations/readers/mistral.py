"""Mistral (model_type ``mistral``): LLaMA's reader with MistralConfig's defaults and without its biases."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Reader, every_layer_windowed
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED_LAYOUT, read_decoder

# transformers' MistralConfig defaults (configuration_mistral.py, 5.23): Mistral-7B's sizes, 8 key/value
# heads. MistralConfig has no attention_bias or mlp_bias: MistralAttention and MistralMLP build every
# projection without bias, whatever a config.json says.
FIELDS = Fields({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 8})


def read(config: Mapping) -> dict[str, int]:
    return read_decoder(config, FIELDS, divisible=False, zero_head_dim=True)


# MistralConfig's fields that set no size (configuration_mistral.py, 5.23): LLaMA's, and the window.
CHECKS = validation.fields(DECODER_CHECKS, sliding_window="int | None")

# MistralConfig: sliding_window 4096 unless null, every layer (no layer_types).
READER = Reader("mistral", read, TIED_LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD),
                windows=every_layer_windowed(4096), checks=CHECKS)
