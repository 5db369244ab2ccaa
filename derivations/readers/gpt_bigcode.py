"""GPTBigCode: SantaCoder and StarCoder (model_type ``gpt_bigcode``): config.json -> {symbol name: value}, and the
layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, flag, num_labels, size, switch
from ..rules import divides
from .. import validation
from .gpt2 import ALIASES

# transformers' GPTBigCodeConfig defaults (configuration_gpt_bigcode.py, 5.23): GPT-2 small's sizes; its
# attribute_map is GPT2Config's (hidden_size is n_embd, and so on).
FIELDS = Fields({"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)

# GPTBigCodeAttention raises unless the heads divide the width.
HEADS_DIVIDE_WIDTH = divides("H", "D", "`GPTBigCodeAttention` requires the heads {H} to divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "P": "n_positions", "D": "n_embd", "H": "n_head", "d_h": "n_embd / n_head",
            "K": "multi_query (1 key/value head, else n_head)", "F": "n_inner", "L": "n_layer", "C": "num_labels"}


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": FIELDS.written(config, "n_head"),
                                                         "D": FIELDS.written(config, "n_embd")})
    # GPTBigCodeConfig.__post_init__: num_key_value_heads = 1 if multi_query else n_head.
    multi_query = flag(config, "multi_query", default=True)
    if multi_query and flag(config, "add_cross_attention"):
        # GPTBigCodeBlock raises NotImplementedError("Cross-attention not implemented for MQA").
        raise ConfigError("add_cross_attention needs multi_query false: transformers has no multi-query "
                          "cross-attention")
    inner = 4 * hidden if config.get("n_inner") is None else size(config, "n_inner", {})
    return {"V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden,
            "H": heads, "d_h": hidden // heads, "K": 1 if multi_query else heads, "F": inner,
            "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


# Which of gpt_bigcode.VARIANTS a config builds: cross-attention blocks (multi-head configs only), an untied head.
LAYOUT = Layout((switch("cross_attention", "add_cross_attention"),
                 switch("untied", "tie_word_embeddings", True, on=False)))

# GPTBigCodeConfig's fields that set no size (configuration_gpt_bigcode.py, 5.23); classifier_dropout is read by
# the token classifier alone (modeling_gpt_bigcode.py, GPTBigCodeForTokenClassification).
CHECKS = validation.fields(
    activation_function=validation.activation(), resid_pdrop=validation.dropout(), embd_pdrop=validation.dropout(),
    attn_pdrop=validation.dropout(), layer_norm_epsilon="float", initializer_range=validation.deviation(),
    scale_attn_weights="bool", use_cache="bool", **validation.TOKENS, pad_token_id="int | None",
    attention_softmax_in_fp32="bool", scale_attention_softmax_in_fp32="bool",
    classifier_dropout=validation.dropout("float | int | None", "ForTokenClassification"))

READER = Reader("gpt_bigcode", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), checks=CHECKS)
