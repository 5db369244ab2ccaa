"""Phi-3 and Phi-4 (model_type ``phi3``): LLaMA's reader with Phi3Config's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Reader, every_layer_windowed, padding_index
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED_LAYOUT, read_decoder

# transformers' Phi3Config defaults (configuration_phi3.py, 5.23): Phi-3-mini's sizes. num_key_value_heads
# defaults to null, as many as the heads. Phi3Config has no head_dim: Phi3Attention reads
# ``getattr(config, "head_dim", hidden_size // num_attention_heads)``, so a head_dim in config.json is taken as
# it is. The heads need not divide the width.
FIELDS = Fields({"vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
                 "num_attention_heads": 32})


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        raise ConfigError("head_dim must be an integer when given (Phi3Attention reads it as it is), got null")
    values = read_decoder(config, FIELDS, divisible=False, zero_head_dim=False)
    padding_index(config, values["V"], default=32000)  # Phi3Config's pad_token_id: 32000, a row of Phi-3's table
    return values


# Phi3Config's fields that set no size (configuration_phi3.py, 5.23): LLaMA's, its dropouts (embd_pdrop, which no
# module reads, has no bounds), the window; partial_rotary_factor, which Phi3Config.validate_rope multiplies.
CHECKS = validation.fields(DECODER_CHECKS, resid_pdrop=validation.dropout(), embd_pdrop="float | int",
                           original_max_position_embeddings="int", sliding_window="int | None",
                           partial_rotary_factor=validation.Field("int | float | bool"))

# Phi3Config: sliding_window null unless set (Phi-3-mini-4k sets 2047), every layer (no layer_types).
READER = Reader("phi3", read, TIED_LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD),
                windows=every_layer_windowed(None), checks=CHECKS)
