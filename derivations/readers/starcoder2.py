"""StarCoder2 (model_type ``starcoder2``): LLaMA's reader with Starcoder2Config's defaults, and its bias switch."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, every_layer_windowed, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, read_decoder

# transformers' Starcoder2Config defaults (configuration_starcoder2.py, 5.23): StarCoder2-3B's sizes, 2 key/value heads
# (typed int: null refused). Starcoder2Config has no head_dim field: Starcoder2Attention reads
# ``getattr(config, "head_dim", None) or hidden_size // num_attention_heads``, so a head_dim in config.json is taken,
# and 0 reads as unset, as Mistral's attention reads it. The heads need not divide the width (each has the floor).
FIELDS = Fields({"vocab_size": 49152, "hidden_size": 3072, "intermediate_size": 12288, "num_hidden_layers": 30,
                 "num_attention_heads": 24, "num_key_value_heads": 2})


def read(config: Mapping) -> dict[str, int]:
    return read_decoder(config, FIELDS, divisible=False, zero_head_dim=True)


# Which of starcoder2.VARIANTS a config builds: every linear map of the layers without its bias (use_bias false; true
# by default), a head of its own (tie_word_embeddings false; true by default, unlike LLaMA), a token classifier
# without bias.
LAYOUT = Layout((switch("no_bias", "use_bias", True, on=False), switch("untied", "tie_word_embeddings", True, on=False),
                 NO_TOKEN_BIAS))

# Starcoder2Config's fields that set no size (configuration_starcoder2.py, 5.23): LLaMA's (its norm's epsilon is
# norm_epsilon), the window and its dropouts.
CHECKS = validation.fields(
    {name: field for name, field in DECODER_CHECKS.items() if name != "rms_norm_eps"}, norm_epsilon="float",
    sliding_window="int | None", residual_dropout=validation.dropout(), embedding_dropout=validation.dropout(),
    pad_token_id="int | None")

# Starcoder2Config: sliding_window null unless set (the released models set 4096), every layer (no layer_types).
READER = Reader("starcoder2", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD),
                windows=every_layer_windowed(None), checks=CHECKS)
