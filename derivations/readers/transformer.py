"""Marian, the original Transformer's layout (model_type ``marian``): config.json -> symbol values, layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Family, Fields, divides, flag, layout_name, padding_index, size

# MarianConfig.attribute_map: these names, when present, set the field they map to.
ALIASES = {"d_model": "hidden_size", "encoder_layers": "num_hidden_layers",
           "encoder_attention_heads": "num_attention_heads"}
# transformers' MarianConfig defaults (those of Helsinki-NLP/opus-mt-en-de's layout, 58,101 tokens).
FIELDS = Fields({"vocab_size": 58101, "max_position_embeddings": 1024, "d_model": 1024, "encoder_layers": 12,
                 "decoder_layers": 12, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096,
                 "encoder_attention_heads": 16, "decoder_attention_heads": 16}, ALIASES)
PAD_TOKEN_ID = 58100  # MarianConfig's default


def read(config: Mapping) -> dict[str, int]:
    hidden = FIELDS.size(config, "d_model")
    heads = FIELDS.size(config, "encoder_attention_heads")
    # Every MarianAttention requires its heads to divide the width (the count does not depend on them).
    for field in ("encoder_attention_heads", "decoder_attention_heads"):
        divides(FIELDS.size(config, field), hidden, FIELDS.written(config, field), FIELDS.written(config, "d_model"))
    vocabulary = FIELDS.size(config, "vocab_size")
    # MarianConfig: decoder_vocab_size = decoder_vocab_size or vocab_size (null and 0 both mean "the same").
    decoder_vocabulary = vocabulary if config.get("decoder_vocab_size") in (None, 0) else size(
        config, "decoder_vocab_size", {})
    # Every token table is built with padding_idx = pad_token_id, the decoder's too: it must index both.
    padding_index(config, vocabulary, default=PAD_TOKEN_ID)
    padding_index(config, decoder_vocabulary, default=PAD_TOKEN_ID, field="decoder_vocab_size")
    return {
        "V": vocabulary, "V_d": decoder_vocabulary, "P": FIELDS.size(config, "max_position_embeddings"),
        "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": FIELDS.size(config, "encoder_ffn_dim"), "F_d": FIELDS.size(config, "decoder_ffn_dim"),
        "L": FIELDS.size(config, "encoder_layers"), "L_d": FIELDS.size(config, "decoder_layers"),
    }


def layout(config: Mapping) -> str:
    """Which of transformer.VARIANTS the config builds."""
    return layout_name(unshared=not flag(config, "share_encoder_decoder_embeddings", default=True),
                       untied=not flag(config, "tie_word_embeddings", default=True))


FAMILY = Family("marian", "transformer", read, layout,
                {"V_d": "decoder_vocab_size", "F_d": "decoder_ffn_dim", "L_d": "decoder_layers"})
