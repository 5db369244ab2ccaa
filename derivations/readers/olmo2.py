"""OLMo 2 (model_type ``olmo2``): LLaMA's reader with Olmo2Config's defaults.

Olmo2Config has no head_dim field: Olmo2Attention reads ``getattr(config, "head_dim", hidden_size //
num_attention_heads)``, so a head_dim in config.json (kept as an attribute) sizes the heads, and null cannot.
The config does not require the heads to divide the width: each head then has the floor. OLMo 3 (readers.olmo3)
reads the same sizes.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, every_layer_windowed, padding_index, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED, read_decoder

# transformers' Olmo2Config defaults (configuration_olmo2.py, 5.23): OLMo-7B's sizes with its first vocabulary
# (50,304 rows, pad_token_id 1). num_key_value_heads defaults to null: as many as the heads.
FIELDS = Fields({"vocab_size": 50304, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32})


def read_getattr_head(config: Mapping, fields: Fields, pad_token_id: int | None, what: str) -> dict[str, int]:
    """The sizes of a LLaMA-style decoder whose attention reads head_dim with getattr (OLMo 2 and 3, Granite,
    SmolLM3): absent, the width over the heads (the floor); null, no size at all; 0, a rotary embedding that
    divides by it. ``pad_token_id`` is the config class's default, which must index the vocabulary."""
    if "head_dim" in config and config["head_dim"] is None:
        raise ConfigError(f"head_dim must be an integer when given ({what} reads it as it is), got null")
    sizes = read_decoder(config, fields, divisible=False, zero_head_dim=False, null_kv_heads=True)
    padding_index(config, sizes["V"], default=pad_token_id)
    return sizes


def read(config: Mapping) -> dict[str, int]:
    return read_getattr_head(config, FIELDS, 1, "Olmo2Attention")


# Biases on q, k, v and o (attention_bias; the norms have none), a head tied to the embeddings. There is no token
# classifier: no token_classification_bias.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), TIED))

# Olmo2Config's fields that set no size (configuration_olmo2.py, 5.23): LLaMA's.
CHECKS = validation.fields(DECODER_CHECKS, attention_dropout=validation.dropout("float | int"))

# Olmo2Config has no window, but a sliding_window in config.json is kept as an attribute, and transformers' cache
# (DynamicCache, get_layer_types_and_kwargs) then keeps only that many tokens in every layer, although the
# attention never slides: what the cache holds follows the cache.
WINDOWS = every_layer_windowed(None)

READER = Reader("olmo2", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=WINDOWS,
                checks=CHECKS)
