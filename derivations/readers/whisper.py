"""Whisper (model_type ``whisper``): config.json -> symbol values, layout.

WhisperConfig (configuration_whisper.py, 5.23) is BART's config with a speech encoder: ``num_mel_bins`` channels in,
``max_source_positions`` frames out of its strided convolution (the encoder refuses input features of any length but
twice that), and the decoder's positions ``max_target_positions``. Its attribute_map reads hidden_size as d_model,
num_hidden_layers as encoder_layers, num_attention_heads (and num_key_value_heads) as encoder_attention_heads.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, num_labels, padding_index, switch
from .. import validation
from . import bart

# WhisperConfig.attribute_map: these names, when present, set the field they map to.
ALIASES = {"d_model": "hidden_size", "encoder_layers": "num_hidden_layers",
           "encoder_attention_heads": "num_attention_heads"}
# transformers' WhisperConfig defaults (openai/whisper-tiny's shape).
FIELDS = Fields({"vocab_size": 51865, "num_mel_bins": 80, "d_model": 384, "encoder_layers": 4, "decoder_layers": 4,
                 "encoder_ffn_dim": 1536, "decoder_ffn_dim": 1536, "encoder_attention_heads": 6,
                 "decoder_attention_heads": 6, "max_source_positions": 1500, "max_target_positions": 448,
                 "classifier_proj_size": 256}, ALIASES)
PAD_TOKEN_ID = 50256  # WhisperConfig's default: the decoder's embed_tokens has padding_idx = pad_token_id

# WhisperAttention raises unless its heads divide the width (embed_dim // num_heads * num_heads == embed_dim).
HEADS_DIVIDE_WIDTH = bart.HEADS_DIVIDE_WIDTH


def encoder(config: Mapping) -> dict[str, int]:
    """The encoder's sizes, its heads checked as WhisperAttention checks them (BART's reading, over Whisper's
    fields): every class but ForCausalLM (the decoder alone) builds it."""
    return bart.encoder(config, FIELDS)


def decoder(config: Mapping) -> None:
    """The decoder's heads and its token table's padding index, checked where it is built: every class but
    ForAudioClassification (the encoder alone)."""
    HEADS_DIVIDE_WIDTH.check({"H": FIELDS.size(config, "decoder_attention_heads"), "D": FIELDS.size(config, "d_model")},
                             {"H": "decoder_attention_heads", "D": FIELDS.written(config, "d_model")})
    padding_index(config, FIELDS.size(config, "vocab_size"), default=PAD_TOKEN_ID)


def read(config: Mapping) -> dict[str, int]:
    bart.typed(config, nullable=False)
    values = {"V": FIELDS.size(config, "vocab_size"), "N_m": FIELDS.size(config, "num_mel_bins"),
              "N_f": FIELDS.size(config, "max_source_positions"), "P": FIELDS.size(config, "max_target_positions"),
              "D": FIELDS.size(config, "d_model"), "F_d": FIELDS.size(config, "decoder_ffn_dim"),
              "L_d": FIELDS.size(config, "decoder_layers"), "D_c": FIELDS.size(config, "classifier_proj_size"),
              "C": num_labels(config)}
    try:
        values |= encoder(config)
    except ConfigError:
        # Only the decoder alone (ForCausalLM) can be counted from such a config; check() refuses every other class.
        values |= {"H": 0, "d_h": 0, "F": 0, "L": 0}
    return values


def check(config: Mapping, architecture: str) -> None:
    if not architecture.endswith("ForCausalLM"):
        encoder(config)
    if not architecture.endswith("ForAudioClassification"):
        decoder(config)


# Which of whisper.VARIANTS a config builds: proj_out a weight of its own (tie_word_embeddings false; the decoder's
# table otherwise), and the audio classifier's learned weights over the encoder's layers (use_weighted_layer_sum).
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),
                 switch("weighted", "use_weighted_layer_sum", False)))

# WhisperConfig's fields that set no size (configuration_whisper.py, 5.23).
CHECKS = validation.fields(
    encoder_layerdrop="float | int", decoder_layerdrop="float | int", use_cache="bool", is_encoder_decoder="bool",
    activation_function=validation.activation("str"), dropout=validation.dropout(),
    attention_dropout=validation.dropout(), activation_dropout=validation.dropout(),
    init_std=validation.deviation("float"), scale_embedding="bool", decoder_start_token_id="int",
    apply_spec_augment="bool", use_weighted_layer_sum="bool", mask_time_prob="float | int", mask_time_length="int",
    mask_time_min_masks="int", mask_feature_prob="float | int", mask_feature_length="int",
    mask_feature_min_masks="int", median_filter_width="int", **validation.TOKENS,
    # PreTrainedConfig's return_dict (bool | None, unchecked there): WhisperModel's forward fails on null, as Marian's.
    return_dict="some")

FIELD_NAMES = {"V": "vocab_size", "N_m": "num_mel_bins", "N_f": "max_source_positions", "P": "max_target_positions",
               "D": "d_model", "H": ("encoder_attention_heads", "decoder_attention_heads"),
               "d_h": "d_model / encoder_attention_heads", "F": "encoder_ffn_dim", "F_d": "decoder_ffn_dim",
               "L": "encoder_layers", "L_d": "decoder_layers", "D_c": "classifier_proj_size", "C": "num_labels"}

READER = Reader("whisper", read, LAYOUT, FIELD_NAMES, (HEADS_DIVIDE_WIDTH,), check=check, checks=CHECKS)
