"""Marian, the original Transformer's layout (model_type ``marian``): config.json -> symbol values, layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, padding_index, size, switch
from ..rules import divides
from .. import validation

# MarianConfig.attribute_map: these names, when present, set the field they map to.
ALIASES = {"d_model": "hidden_size", "encoder_layers": "num_hidden_layers",
           "encoder_attention_heads": "num_attention_heads"}
# transformers' MarianConfig defaults (those of Helsinki-NLP/opus-mt-en-de's layout, 58,101 tokens).
FIELDS = Fields({"vocab_size": 58101, "max_position_embeddings": 1024, "d_model": 1024, "encoder_layers": 12,
                 "decoder_layers": 12, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096,
                 "encoder_attention_heads": 16, "decoder_attention_heads": 16}, ALIASES)
PAD_TOKEN_ID = 58100  # MarianConfig's default


# MarianAttention requires its heads to divide the width, the encoder's and the decoder's (the count does not depend
# on them: the calculator asks for no heads).
HEADS_DIVIDE_WIDTH = divides("H", "D", "The heads {H} must divide the width {D}.")


def encoder(config: Mapping) -> dict[str, int]:
    """The encoder's sizes, checked as transformers checks them when it builds an encoder: every class
    but MarianForCausalLM, which builds the decoder alone (see :func:`check`)."""
    hidden = FIELDS.size(config, "d_model")
    heads = FIELDS.size(config, "encoder_attention_heads")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": FIELDS.written(config, "encoder_attention_heads"),
                                                         "D": FIELDS.written(config, "d_model")})
    # The encoder's token table (and `shared`) has vocab_size rows and padding_idx = pad_token_id.
    padding_index(config, FIELDS.size(config, "vocab_size"), default=PAD_TOKEN_ID)
    return {"H": heads, "d_h": hidden // heads, "F": FIELDS.size(config, "encoder_ffn_dim"),
            "L": FIELDS.size(config, "encoder_layers")}


def read(config: Mapping) -> dict[str, int]:
    hidden = FIELDS.size(config, "d_model")
    HEADS_DIVIDE_WIDTH.check({"H": FIELDS.size(config, "decoder_attention_heads"), "D": hidden},
                             {"H": "decoder_attention_heads", "D": FIELDS.written(config, "d_model")})
    vocabulary = FIELDS.size(config, "vocab_size")
    # MarianConfig: decoder_vocab_size = decoder_vocab_size or vocab_size: null and 0 mean "the same"
    # (false and 0.0 are refused by its type check, as size() refuses them).
    written = config.get("decoder_vocab_size")
    same = written is None or (type(written) is int and written == 0)
    decoder_vocabulary = vocabulary if same else size(config, "decoder_vocab_size", {})
    # The decoder's token table is built with padding_idx = pad_token_id.
    padding_index(config, decoder_vocabulary, default=PAD_TOKEN_ID, field="decoder_vocab_size")
    values = {"V": vocabulary, "V_d": decoder_vocabulary, "P": FIELDS.size(config, "max_position_embeddings"),
              "D": hidden, "F_d": FIELDS.size(config, "decoder_ffn_dim"), "L_d": FIELDS.size(config, "decoder_layers")}
    try:
        values |= encoder(config)
    except ConfigError:
        # Only MarianForCausalLM can be counted from such a config, and it reads none of these;
        # check() gives the error for every other class.
        values |= {"H": 0, "d_h": 0, "F": 0, "L": 0}
    return values


def check(config: Mapping, architecture: str) -> None:
    if architecture != "MarianForCausalLM":
        encoder(config)


# Which of transformer.VARIANTS a config builds: the encoder's and decoder's embeddings unshared, the head
# untied from the decoder's embeddings.
LAYOUT = Layout((switch("unshared", "share_encoder_decoder_embeddings", True, on=False),
                 switch("untied", "tie_word_embeddings", True, on=False)))

# MarianConfig's fields that set no size (configuration_marian.py, 5.23). The layer drops are chances compared
# with a draw, no dropout module's.
CHECKS = validation.fields(
    encoder_layerdrop="float | int", decoder_layerdrop="float | int", use_cache="bool", is_encoder_decoder="bool",
    activation_function=validation.activation(), dropout=validation.dropout(), attention_dropout=validation.dropout(),
    activation_dropout=validation.dropout(), init_std=validation.deviation(), decoder_start_token_id="int",
    scale_embedding="bool",
    **validation.TOKENS, forced_eos_token_id="int | list[int] | None", is_decoder="bool",
    # PreTrainedConfig's return_dict (bool | None, unchecked there): MarianMTModel's forward fails on null.
    return_dict="some")

READER = Reader("marian", read, LAYOUT,
                {"V": "vocab_size", "V_d": "decoder_vocab_size", "P": "max_position_embeddings", "D": "d_model",
                 "H": ("encoder_attention_heads", "decoder_attention_heads"), "d_h": "d_model / encoder_attention_heads",
                 "F": "encoder_ffn_dim", "F_d": "decoder_ffn_dim", "L": "encoder_layers", "L_d": "decoder_layers"},
                (HEADS_DIVIDE_WIDTH,), check=check, checks=CHECKS)
