"""Granite (model_type ``granite``): LLaMA's reader with GraniteConfig's defaults.

GraniteConfig has no head_dim field (GraniteAttention reads it with getattr, as Olmo2Attention does) and does not
require the heads to divide the width. Its four multipliers (embedding_multiplier, attention_multiplier,
residual_multiplier, logits_scaling) are numbers the forward multiplies or divides by: no tensor.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS
from . import olmo2

# transformers' GraniteConfig defaults (configuration_granite.py, 5.23): LLaMA's. num_key_value_heads defaults to
# null (as many as the heads); pad_token_id to null.
FIELDS = Fields({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32})


def read(config: Mapping) -> dict[str, int]:
    return olmo2.read_getattr_head(config, FIELDS, None, "GraniteAttention")


# LLaMA's switches but the token classifier's (Granite has no task classes); the head untied where
# tie_word_embeddings is false (GraniteConfig's default), so that the released models, tied, are the plain layout.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), switch("mlp_bias", "mlp_bias"),
                 switch("untied", "tie_word_embeddings", on=False)))

_MULTIPLIER = validation.Field("float | int")
# GraniteConfig's fields that set no size (configuration_granite.py, 5.23): LLaMA's and the four multipliers.
CHECKS = validation.fields(DECODER_CHECKS, attention_dropout=validation.dropout("float | int"),
                           embedding_multiplier=_MULTIPLIER, logits_scaling=_MULTIPLIER,
                           residual_multiplier=_MULTIPLIER, attention_multiplier=_MULTIPLIER)

# As OLMo 2's: a sliding_window in config.json makes transformers' cache keep that many tokens in every layer.
READER = Reader("granite", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), windows=olmo2.WINDOWS,
                checks=CHECKS)
