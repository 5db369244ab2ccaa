"""Gemma (model_type ``gemma``): config.json -> sizes, as GemmaConfig reads them. Gemma 2 and Gemma 3
(readers.gemma2, readers.gemma3_text) read theirs with :func:`read_gemma` and their own defaults.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, num_labels, padding_index, shown, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS

# transformers' GemmaConfig defaults (configuration_gemma.py, 5.23): Gemma 7B's sizes. head_dim is a field of
# its own (256 in every Gemma), and the heads need not divide the width (Gemma 7B: 16 heads of 256 in 3,072).
FIELDS = Fields({"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576, "num_hidden_layers": 28,
                 "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 256})


def read_gemma(config: Mapping, fields: Fields, *, divisible: bool) -> dict[str, int]:
    """The sizes of a Gemma decoder. ``divisible``: the config class refuses a width the heads do not divide,
    even with head_dim set (Gemma2Config and Gemma3TextConfig.validate_architecture); GemmaConfig does not."""
    def get(field: str) -> int:
        return fields.size(config, field)

    for field in ("num_key_value_heads", "head_dim"):  # typed int: null is refused
        if field in config and config[field] is None:
            raise ConfigError(f"{field} must be an integer, got null")
    hidden, heads, kv_heads = get("hidden_size"), get("num_attention_heads"), get("num_key_value_heads")
    if divisible:
        HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, SYMBOL_FIELDS)
    KV_HEADS_DIVIDE_HEADS.check({"K": kv_heads, "H": heads}, SYMBOL_FIELDS)  # else the forward pass fails
    head = get("head_dim")
    EVEN_HEAD.check({"d_h": head})
    vocabulary = get("vocab_size")
    padding_index(config, vocabulary, default=0)
    if not isinstance(config.get("attention_bias", False), bool):
        raise ConfigError(f"attention_bias must be true or false, got {shown(config['attention_bias'])}")
    return {"V": vocabulary, "D": hidden, "H": heads, "K": kv_heads, "d_h": head, "F": get("intermediate_size"),
            "L": get("num_hidden_layers"), "C": num_labels(config)}


def read(config: Mapping) -> dict[str, int]:
    return read_gemma(config, FIELDS, divisible=False)


# Biases on q, k, v and o (attention_bias, false in every release); an untied head (tie_word_embeddings is true
# by default and in every release); a token classifier without bias.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), switch("untied", "tie_word_embeddings", True, on=False),
                 NO_TOKEN_BIAS))

# GemmaConfig's fields that set no size (configuration_gemma.py, 5.23): LLaMA's, and the bidirectional switch.
CHECKS = validation.fields(DECODER_CHECKS, use_bidirectional_attention="bool | None")
# Gemma2Config's and Gemma3TextConfig's (configuration_gemma2.py, configuration_gemma3.py): the activation is
# hidden_activation, the windows (which memory reads), the soft caps.
GEMMA2_CHECKS = validation.fields(
    {f: c for f, c in CHECKS.items() if f != "hidden_act"}, hidden_activation=validation.activation(),
    attention_dropout=validation.dropout("int | float"), query_pre_attn_scalar="int",
    # The annotations take null; a training step does not take a null dropout (functional dropout compares it), and
    # the model does not run without a window for its local layers (masking_utils: "Could not find a
    # `sliding_window` argument").
    sliding_window="int", layer_types="list[str] | None", final_logit_softcapping="float | None",
    attn_logit_softcapping="float | None")

READER = Reader("gemma", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), checks=CHECKS)
