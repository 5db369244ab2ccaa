"""XLM-RoBERTa (model_type ``xlm-roberta``): config.json -> {symbol name: value}, and the layout it asks for.

XLMRobertaConfig has RobertaConfig's fields (configuration_xlm_roberta.py, 5.23), but BERT's default vocabulary
(30522, not RoBERTa's 50265) with RoBERTa's padding token (1); XLMRobertaModel holds RobertaModel's tensors, so
RoBERTa's reading applies with these defaults: BERT's sizes, then the position table's padding row.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader
from . import bert, roberta

# XLMRobertaConfig's defaults where they differ from BertConfig's: the padding token only (vocab_size stays
# 30522, max_position_embeddings 512, type_vocab_size 2; the released checkpoints set 250002, 514 and 1).
DEFAULTS = {"pad_token_id": 1}


def reading(defaults: Mapping[str, object]):
    """RoBERTa's reading (BERT's sizes, pad_token_id in both tables) under another config class's defaults."""

    def read(config: Mapping) -> dict[str, int]:
        config = {**defaults, **config}
        values = bert.read(config)  # checks pad_token_id against the word table
        # The embeddings give the position table padding_idx=pad_token_id too (XLMRobertaEmbeddings, as RoBERTa's).
        pad, positions = config["pad_token_id"], values["P"]
        if pad is not None and not -positions <= pad < positions:
            raise ConfigError(f"pad_token_id ({pad}) is outside the position table "
                              f"(max_position_embeddings {positions})")
        return values

    return read


# RoBERTa's layout (cross-attention with is_decoder, an untied head), size rules and field checks: the config class
# declares the same fields with the same annotations.
READER = Reader("xlm-roberta", reading(DEFAULTS), bert.LAYOUT, bert.READER.fields, bert.READER.rules,
                checks=roberta.CHECKS)
