"""ELECTRA (model_type ``electra``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, flag, num_labels, padding_index, shown, switch
from ..rules import at_most
from .. import validation
from . import bert

# transformers' ElectraConfig defaults (5.23, configuration_electra.py): the small discriminator's shape, so a
# minimal config.json without sizes is ELECTRA-Small. ElectraConfig has no attribute_map of its own.
FIELDS = Fields({
    "vocab_size": 30522, "embedding_size": 128, "hidden_size": 256, "num_hidden_layers": 12,
    "num_attention_heads": 4, "intermediate_size": 1024, "max_position_embeddings": 512, "type_vocab_size": 2,
})

FIELD_OF = {"V": "vocab_size", "E": "embedding_size", "P": "max_position_embeddings", "T": "type_vocab_size",
            "D": "hidden_size", "H": "num_attention_heads", "d_h": "hidden_size // num_attention_heads",
            "F": "intermediate_size", "L": "num_hidden_layers", "C": "num_labels"}

# ElectraSelfAttention (BERT's, copied) refuses heads that do not divide the width only for a config without
# embedding_size, and ElectraConfig always has one: each head gets int(hidden_size / heads), and the heads may cover
# less than the width (the output map stays D by D). More heads than width gives heads of size 0, on which
# transformers fails (the scale 0 ** -0.5 divides by zero).
HEADS_AT_MOST_WIDTH = at_most("H", "D", "{H} can be at most {D}: more heads than width gives heads of size 0, on which "
                                        "transformers fails.", "{H_field} ({H}) exceeds {D_field} ({D}): heads of size 0")


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return FIELDS.size(config, field)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    # nn.Embedding(V, E, padding_idx=pad_token_id) refuses an index outside the table.
    padding_index(config, vocabulary, default=0)
    HEADS_AT_MOST_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    flag(config, "is_decoder")
    return {
        "V": vocabulary, "E": get("embedding_size"), "P": get("max_position_embeddings"),
        "T": get("type_vocab_size"), "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": get("intermediate_size"), "L": get("num_hidden_layers"), "C": num_labels(config),
    }


def projected(config: Mapping) -> bool:
    """ElectraModel builds ``embeddings_project`` (E to D) only when embedding_size differs from hidden_size."""
    return FIELDS.size(config, "embedding_size") != FIELDS.size(config, "hidden_size")


def summary(config: Mapping) -> str:
    """ElectraSequenceSummary (the multiple-choice head): a projection when summary_use_proj (ElectraConfig's field,
    true by default), to num_labels outputs only when the config carries summary_proj_to_labels (not a field of
    ElectraConfig: hasattr finds it only in a config.json that sets it) and num_labels > 0, else to hidden_size."""
    if not flag(config, "summary_use_proj", default=True):
        return "no_summary"
    return "summary_labels" if flag(config, "summary_proj_to_labels") and num_labels(config) > 0 else ""


# Which of electra.VARIANTS a config builds: BERT's two switches (a decoder with cross-attention, an untied LM head),
# the projection from E to D, and the multiple-choice summary's projection.
LAYOUT = Layout((Switch("cross_attention", bert.cross_attention), switch("untied", "tie_word_embeddings", True, on=False),
                 Switch("projected", projected), Switch("summary", summary, ("", "no_summary", "summary_labels"))))

SUMMARY_TYPES = ("last", "first", "mean", "cls_index")


def check(config: Mapping, architecture: str) -> None:
    """ElectraSequenceSummary raises NotImplementedError for summary_type "attn" as ElectraForMultipleChoice is
    built; another name builds and fails in the forward (no output is bound)."""
    if architecture != "ElectraForMultipleChoice":
        return
    kind = config.get("summary_type", "first")
    if kind not in SUMMARY_TYPES:
        raise ConfigError(f"ElectraForMultipleChoice needs summary_type among {', '.join(SUMMARY_TYPES)}, "
                          f"got {shown(kind)}")


# ElectraConfig's fields that set no size (configuration_electra.py, 5.23): BERT's, and the summary's. classifier_dropout
# (else hidden_dropout_prob) is ElectraClassificationHead's; summary_last_dropout the multiple-choice summary's.
CHECKS = validation.fields(
    bert.CHECKS, classifier_dropout=validation.dropout("float | int | None", "ForSequenceClassification",
                                                      "ForTokenClassification"),
    hidden_dropout_prob=validation.dropout("float | int"),
    attention_probs_dropout_prob=validation.dropout("float | int"),
    summary_activation="str", summary_last_dropout=validation.dropout("float | int", "ForMultipleChoice"))

READER = Reader("electra", read, LAYOUT, FIELD_OF, (HEADS_AT_MOST_WIDTH,), check=check, checks=CHECKS)
