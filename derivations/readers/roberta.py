"""RoBERTa (model_type ``roberta``): config.json -> {symbol name: value}, and the layout it asks for.

RobertaConfig is BertConfig with another default vocabulary and padding token, and RobertaModel holds
BertModel's tensors: BERT's reader reads it, with one check more (the position table's padding row).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader
from .. import validation
from . import bert

# transformers' RobertaConfig defaults where they differ from BertConfig's (the released checkpoints
# also set 514 positions and one token type; the defaults stay BERT's 512 and 2).
DEFAULTS = {"vocab_size": 50265, "pad_token_id": 1}


def read(config: Mapping) -> dict[str, int]:
    config = {**DEFAULTS, **config}
    values = bert.read(config)  # checks pad_token_id against the word table
    # RobertaEmbeddings gives the position table padding_idx=pad_token_id too (nn.Embedding refuses an
    # index outside the table): it must index both tables.
    pad, positions = config["pad_token_id"], values["P"]
    if pad is not None and not -positions <= pad < positions:
        raise ConfigError(f"pad_token_id ({pad}) is outside the position table (max_position_embeddings {positions})")
    return values


# RobertaConfig's fields that set no size (configuration_roberta.py, 5.23): BERT's, its multiple-choice head
# without classifier_dropout (modeling_roberta.py).
# pad_token_id: the annotation takes null, but RoBERTa's positions count the tokens that are not padding
# (create_position_ids_from_input_ids: input_ids.ne(padding_idx)), and the forward fails without one.
CHECKS = validation.fields(bert.CHECKS, classifier_dropout=validation.dropout(
    "float | int | None", "ForSequenceClassification", "ForTokenClassification"), pad_token_id="int")

# BERT's flags, read the same way (RobertaLayer refuses cross-attention without is_decoder, as BertLayer does), and
# its rules (RobertaSelfAttention checks the width as BertSelfAttention does).
READER = Reader("roberta", read, bert.LAYOUT, bert.READER.fields, bert.READER.rules, checks=CHECKS)
