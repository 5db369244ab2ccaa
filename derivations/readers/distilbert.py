"""DistilBERT (model_type ``distilbert``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, flag, num_labels, padding_index, switch
from ..rules import divides
from .. import validation

# DistilBertConfig.attribute_map: these names, when present, set the field (hidden_size sets dim).
ALIASES = {"dim": "hidden_size", "n_heads": "num_attention_heads", "n_layers": "num_hidden_layers"}
# transformers' DistilBertConfig defaults: a minimal config.json takes these for a missing field.
# hidden_dim is 3072 whatever dim is (the default is 4 * 768, not 4 * dim), and intermediate_size is
# no alias of it: DistilBERT ignores that field.
FIELDS = Fields({"vocab_size": 30522, "max_position_embeddings": 512, "n_layers": 6, "n_heads": 12, "dim": 768,
                 "hidden_dim": 3072}, ALIASES)


# TransformerBlock requires the heads to divide the width.
HEADS_DIVIDE_WIDTH = divides("H", "D", "transformers requires the heads {H} to divide the width {D} (`dim`).")


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "dim"), FIELDS.size(config, "n_heads")
    vocabulary = FIELDS.size(config, "vocab_size")
    padding_index(config, vocabulary, default=0)
    # sinusoidal_pos_embds changes what the position table is initialised with, not whether it is a
    # parameter (transformers 5.x leaves it trainable): read only to reject a value that is no flag.
    flag(config, "sinusoidal_pos_embds")
    positions = FIELDS.size(config, "max_position_embeddings")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": FIELDS.written(config, "n_heads"),
                                                         "D": FIELDS.written(config, "dim")})
    return {
        "V": vocabulary, "P": positions, "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": FIELDS.size(config, "hidden_dim"), "L": FIELDS.size(config, "n_layers"), "C": num_labels(config),
    }


# Which of distilbert.VARIANTS a config builds: an untied vocab_projector or not. (The ``tie_weights_``
# field of the released configs is a leftover that transformers does not read.)
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),))


def check(config: Mapping, architecture: str) -> None:
    """DistilBertForQuestionAnswering raises unless num_labels is 2 (start and end)."""
    if architecture == "DistilBertForQuestionAnswering" and (labels := num_labels(config)) != 2:
        raise ConfigError(f"DistilBertForQuestionAnswering needs num_labels 2 (start and end), got {labels}")


# DistilBertConfig's fields that set no size (configuration_distilbert.py, 5.23); the heads' dropouts are their
# classes' (modeling_distilbert.py).
CHECKS = validation.fields(
    dropout=validation.dropout(), attention_dropout=validation.dropout(), activation=validation.activation(),
    initializer_range=validation.deviation(), **validation.TOKENS, chunk_size_feed_forward=validation.CHUNK,
    qa_dropout=validation.dropout("float | int", "ForQuestionAnswering"),
    seq_classif_dropout=validation.dropout("float | int", "ForSequenceClassification", "ForMultipleChoice"))

READER = Reader("distilbert", read, LAYOUT,
                {"V": "vocab_size", "P": "max_position_embeddings", "D": "dim", "H": "n_heads", "d_h": "dim / n_heads",
                 "F": "hidden_dim", "L": "n_layers", "C": "num_labels"}, (HEADS_DIVIDE_WIDTH,), check=check,
                 checks=CHECKS)
