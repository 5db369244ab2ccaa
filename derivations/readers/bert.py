"""BERT (model_type ``bert``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Layout, Switch, flag, num_labels, padding_index, size, switch
from ..rules import at_most, divides
from .. import validation

# transformers' BertConfig defaults: a minimal config.json takes these for a missing field.
DEFAULTS = {
    "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
}


FIELD_OF = {"V": "vocab_size", "P": "max_position_embeddings", "T": "type_vocab_size", "D": "hidden_size",
            "H": "num_attention_heads", "d_h": "hidden_size / num_attention_heads", "F": "intermediate_size",
            "L": "num_hidden_layers", "C": "num_labels"}

# BertSelfAttention refuses heads that do not divide the width unless the config has embedding_size (then each head
# gets the floor, and the heads cover less than the hidden size): a note for the calculator, a refusal here without
# embedding_size. Heads of size 0 fail either way (the scale, 0 ** -0.5, divides by zero): the class refuses a head
# size below 1 (configs.select), so the reader need not.
HEADS_DIVIDE_WIDTH = divides("H", "D", "When {H} does not divide {D}, transformers builds the model only if its config "
                                       "sets `embedding_size`: each head then has ⌊{D} / {H}⌋ dimensions.", refuse=False)
HEADS_AT_MOST_WIDTH = at_most("H", "D", "{H} can be at most {D}: more heads than width gives heads of size 0, on which "
                                        "transformers fails.", refusal="")


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return size(config, field, DEFAULTS)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    padding_index(config, vocabulary, default=0)
    flag(config, "is_decoder")
    positions, types = get("max_position_embeddings"), get("type_vocab_size")
    if "embedding_size" not in config:
        HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    return {
        "V": vocabulary, "P": positions, "T": types, "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": get("intermediate_size"), "L": get("num_hidden_layers"), "C": num_labels(config),
    }


def cross_attention(config: Mapping) -> bool:
    """A decoder layer with cross-attention (add_cross_attention), which needs is_decoder."""
    cross = flag(config, "add_cross_attention")
    if cross and not flag(config, "is_decoder"):
        # BertLayer raises the same: cross-attention needs a decoder.
        raise ConfigError("add_cross_attention needs is_decoder: true")
    return cross


# Which of bert.VARIANTS a config builds: cross-attention (a decoder) and an untied LM head.
LAYOUT = Layout((Switch("cross_attention", cross_attention), switch("untied", "tie_word_embeddings", True, on=False)))

# BertConfig's fields that set no size (configuration_bert.py, 5.23). classifier_dropout (else hidden_dropout_prob)
# is the classifiers' (modeling_bert.py: BertForSequenceClassification, ...ForMultipleChoice,
# ...ForTokenClassification build it).
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout(),
    attention_probs_dropout_prob=validation.dropout(), initializer_range=validation.deviation(),
    layer_norm_eps="float", use_cache="bool", **validation.TOKENS, chunk_size_feed_forward=validation.CHUNK,
    classifier_dropout=validation.dropout("float | int | None", "ForSequenceClassification", "ForMultipleChoice",
                                          "ForTokenClassification"))

READER = Reader("bert", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH, HEADS_AT_MOST_WIDTH), checks=CHECKS)
