"""BART (model_type ``bart``): config.json -> symbol values, layout. mBART's reader (readers/mbart.py) is this one with
MBartConfig's defaults and annotations."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..reading import ConfigError, Reader, Fields, Layout, num_labels, padding_index, shown, switch
from ..rules import divides
from .. import validation

# BartConfig.attribute_map (and MBartConfig's): these names, when present, set the field they map to.
ALIASES = {"d_model": "hidden_size", "encoder_layers": "num_hidden_layers",
           "encoder_attention_heads": "num_attention_heads"}
# transformers' BartConfig defaults (facebook/bart-large's shape); MBartConfig's sizes are the same.
FIELDS = Fields({"vocab_size": 50265, "max_position_embeddings": 1024, "d_model": 1024, "encoder_layers": 12,
                 "decoder_layers": 12, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096,
                 "encoder_attention_heads": 16, "decoder_attention_heads": 16}, ALIASES)
PAD_TOKEN_ID = 1  # BartConfig's and MBartConfig's default

# BartAttention requires its heads to divide the width, the encoder's and the decoder's (the count does not depend on
# them: the calculator asks for no heads).
HEADS_DIVIDE_WIDTH = divides("H", "D", "The heads {H} must divide the width {D}.")


def typed(config: Mapping, nullable: bool) -> None:
    """A field that attribute_map's name overrides (num_hidden_layers for encoder_layers) is still checked against its
    annotation when the config gives both: transformers refuses encoder_layers 8.0 beside num_hidden_layers 6 (and
    null, where the annotation is int without None: MBartConfig's)."""
    for name, alias in ALIASES.items():
        if alias not in config or name not in config or (config[name] is None and nullable):
            continue
        value = config[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} must be an integer, got {shown(value)}")


def bart_labels(config: Mapping) -> int:
    """BartConfig.__post_init__: without id2label, num_labels defaults to 3 (not PreTrainedConfig's 2)."""
    if "num_labels" not in config and config.get("id2label") is None:
        return 3
    return num_labels(config)


def encoder(config: Mapping, fields: Fields = FIELDS) -> dict[str, int]:
    """The encoder's sizes, checked as transformers checks them when it builds an encoder: every class but
    ForCausalLM, which builds the decoder alone (see :func:`check`). ``fields``: the config class's (Whisper's)."""
    hidden = fields.size(config, "d_model")
    heads = fields.size(config, "encoder_attention_heads")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": fields.written(config, "encoder_attention_heads"),
                                                         "D": fields.written(config, "d_model")})
    return {"H": heads, "d_h": hidden // heads, "F": fields.size(config, "encoder_ffn_dim"),
            "L": fields.size(config, "encoder_layers")}


def reader(labels: Callable[[Mapping], int], nullable: bool) -> Callable[[Mapping], dict[str, int]]:
    """The sizes of a config, with ``labels`` the config class's reading of num_labels; ``nullable``: its sizes are
    annotated ``int | None`` (BartConfig's), not ``int``."""

    def read(config: Mapping) -> dict[str, int]:
        typed(config, nullable)
        hidden = FIELDS.size(config, "d_model")
        HEADS_DIVIDE_WIDTH.check({"H": FIELDS.size(config, "decoder_attention_heads"), "D": hidden},
                                 {"H": "decoder_attention_heads", "D": FIELDS.written(config, "d_model")})
        vocabulary = FIELDS.size(config, "vocab_size")
        # Every token table (shared, the encoder's, the decoder's) has vocab_size rows and padding_idx = pad_token_id.
        padding_index(config, vocabulary, default=PAD_TOKEN_ID)
        values = {"V": vocabulary, "P": FIELDS.size(config, "max_position_embeddings"), "D": hidden,
                  "F_d": FIELDS.size(config, "decoder_ffn_dim"), "L_d": FIELDS.size(config, "decoder_layers"),
                  "C": labels(config)}
        try:
            values |= encoder(config)
        except ConfigError:
            # Only the decoder alone (ForCausalLM) can be counted from such a config, and it reads none of these;
            # check() gives the error for every other class.
            values |= {"H": 0, "d_h": 0, "F": 0, "L": 0}
        return values

    return read


def check(config: Mapping, architecture: str) -> None:
    if not architecture.endswith("ForCausalLM"):
        encoder(config)


# Which of bart.VARIANTS a config builds: the head and the two stacks' tables untied from the shared table
# (tie_word_embeddings false: BartConfig's annotation is bool, and it refuses anything else, null included).
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),))

# BartConfig's fields that set no size (configuration_bart.py, 5.23). Most are annotated "| None", but a null fails
# where the model reads it: the layer drops in a training step (compared with a draw), the dropouts in a training step,
# init_std as the weights are drawn, the activation as the layers are built; those are declared without it.
# classifier_dropout is the classification head's nn.Dropout.
CHECKS = validation.fields(
    encoder_layerdrop="float", decoder_layerdrop="float", use_cache="bool",
    is_encoder_decoder="bool | None", activation_function=validation.activation("str"),
    dropout=validation.dropout(), attention_dropout=validation.dropout(), activation_dropout=validation.dropout(),
    init_std=validation.deviation("float"),
    classifier_dropout=validation.dropout("float | int | None", "ForSequenceClassification"),
    scale_embedding="bool | None", decoder_start_token_id="int | None", **validation.TOKENS,
    forced_eos_token_id="int | list[int] | None", is_decoder="bool | None")

FIELD_NAMES = {"V": "vocab_size", "P": "max_position_embeddings", "D": "d_model",
               "H": ("encoder_attention_heads", "decoder_attention_heads"), "d_h": "d_model / encoder_attention_heads",
               "F": "encoder_ffn_dim", "F_d": "decoder_ffn_dim", "L": "encoder_layers", "L_d": "decoder_layers",
               "C": "num_labels"}

READER = Reader("bart", reader(bart_labels, nullable=True), LAYOUT, FIELD_NAMES, (HEADS_DIVIDE_WIDTH,), check=check,
                checks=CHECKS)
