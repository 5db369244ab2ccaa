"""ALBERT (model_type ``albert``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, num_labels, padding_index, switch
from ..rules import at_most
from .. import validation

# transformers' AlbertConfig defaults (5.23, configuration_albert.py): the xxlarge shape, so a minimal
# config.json without sizes is ALBERT-xxlarge. AlbertConfig has no attribute_map of its own.
FIELDS = Fields({
    "vocab_size": 30000, "embedding_size": 128, "hidden_size": 4096, "num_hidden_layers": 12,
    "num_hidden_groups": 1, "num_attention_heads": 64, "intermediate_size": 16384, "inner_group_num": 1,
    "max_position_embeddings": 512, "type_vocab_size": 2,
})


# AlbertAttention checks that the heads divide the width only for a config without embedding_size, and AlbertConfig
# always has one: each head gets hidden_size // heads, and the heads may cover less than the width (the output map
# stays D by D). More heads than width gives heads of size 0, on which transformers fails (the attention scale
# 0 ** -0.5 divides by zero).
HEADS_AT_MOST_WIDTH = at_most("H", "D", "{H} can be at most {D}: more heads than width gives heads of size 0, on which "
                                        "transformers fails.", "{H_field} ({H}) exceeds {D_field} ({D}): heads of size 0")
FIELD_OF = {"V": "vocab_size", "E": "embedding_size", "P": "max_position_embeddings", "T": "type_vocab_size",
            "D": "hidden_size", "H": "num_attention_heads", "d_h": "hidden_size // num_attention_heads",
            "F": "intermediate_size", "L": "num_hidden_layers", "G": "num_hidden_groups", "L_g": "inner_group_num",
            "C": "num_labels"}


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return FIELDS.size(config, field)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    # nn.Embedding(V, E, padding_idx=pad_token_id) refuses an index outside the table.
    padding_index(config, vocabulary, default=0)
    HEADS_AT_MOST_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    return {
        "V": vocabulary, "E": get("embedding_size"), "P": get("max_position_embeddings"),
        "T": get("type_vocab_size"), "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": get("intermediate_size"), "L": get("num_hidden_layers"),
        # num_hidden_groups need not divide num_hidden_layers: AlbertTransformer sends layer i to group
        # int(i / (L / G)), and builds all G groups even when some are never reached (G > L). Zero groups
        # builds but fails in the forward pass (L / 0); FIELDS.size refuses it, and zero inner layers.
        "G": get("num_hidden_groups"), "L_g": get("inner_group_num"),
        "C": num_labels(config),
    }


# Which of albert.VARIANTS a config builds: the masked-LM decoder tied to the word embeddings or not.
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),))

# AlbertConfig's fields that set no size (configuration_albert.py, 5.23). classifier_dropout_prob is the heads'
# (modeling_albert.py: the sentence-order head of AlbertForPreTraining, and the classifiers).
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout("int | float"),
    attention_probs_dropout_prob=validation.dropout("int | float"), initializer_range=validation.deviation(),
    layer_norm_eps="float",
    **validation.TOKENS, chunk_size_feed_forward=validation.CHUNK,
    classifier_dropout_prob=validation.dropout("int | float", "ForPreTraining", "ForSequenceClassification",
                                               "ForTokenClassification", "ForMultipleChoice"))

READER = Reader("albert", read, LAYOUT, FIELD_OF, (HEADS_AT_MOST_WIDTH,), checks=CHECKS)
