"""What only BERT has, against transformers (the checks every family shares are tests/specs/bert.py's): cross-attention
without a decoder is refused as transformers builds it, and the masked LM's decoder is the word table itself."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry


def test_cross_attention_without_decoder_is_rejected_by_both() -> None:
    config = {"model_type": "bert", "add_cross_attention": True}
    with pytest.raises(ValueError, match="decoder"):
        reference.build("BertModel", config)
    with pytest.raises(configs.ConfigError, match="is_decoder"):
        registry.resolve(config)


def test_tying_is_real() -> None:
    # BertForMaskedLM on bert-base-chinese: 102,290,312 parameters, as transformers counts them
    # ([cite: note-mlm]: AutoModelForMaskedLM.from_pretrained("bert-base-chinese"), "Total parameters:
    # 102290312"). Untied, the decoder weight would add a second 21128 x 768 table.
    model = reference.build("BertForMaskedLM", configs.load("bert-base-chinese"))
    assert reference.total(model) == 102_290_312
    # The state dict lists each tied tensor under both names: + 21128 * 768 (decoder.weight)
    # + 21128 (decoder.bias) = 118,537,744, the figure accelerate's untied build reports (design notes).
    listed = sum(t.numel() for t in model.state_dict().values())
    assert listed == 118_537_744 == 102_290_312 + 21128 * 768 + 21128
    # And the decoder weight is the embedding table itself, not a copy of the same shape.
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
