"""What only RoBERTa has, against transformers (the checks every family shares are tests/specs/roberta.py's): its
classes are transformers' own, the body without a pooler, two refusals transformers makes as it builds, the tied
head, and the released position table of 514 rows."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import roberta


def test_every_class_transformers_defines_is_derived() -> None:
    # Every Roberta* model class of transformers that a config builds (not the abstract base class).
    defined = {name for name in dir(reference.transformers)
               if name.startswith("Roberta") and not name.startswith("RobertaPreLayerNorm")
               and name.removeprefix("Roberta").startswith(("Model", "For"))}
    assert defined == set(roberta.ARCHITECTURES)


@pytest.mark.parametrize("checkpoint", roberta.FAMILY.checkpoints)
def test_body_without_pooler(checkpoint: str) -> None:
    # RobertaModel(config, add_pooling_layer=False): the body the head classes hold.
    config = configs.load(checkpoint)
    with reference.torch.device("meta"):
        model = reference.transformers.RobertaModel(reference.transformers.AutoConfig.for_model(**config),
                                                    add_pooling_layer=False)
    reference.compare(roberta.without_pooler, registry.checkpoint(checkpoint).values, model)


def test_cross_attention_without_decoder_is_rejected_by_both() -> None:
    config = {"model_type": "roberta", "add_cross_attention": True}
    with pytest.raises(ValueError, match="decoder"):
        reference.build("RobertaModel", config)
    with pytest.raises(configs.ConfigError, match="is_decoder"):
        registry.resolve(config)


def test_padding_row_must_exist_in_the_position_table() -> None:
    # pad_token_id is the padding row of the position table too: 514 positions, pad 600 fails in both.
    config = {"model_type": "roberta", "num_hidden_layers": 1, "max_position_embeddings": 514, "pad_token_id": 600}
    with pytest.raises(AssertionError, match="Padding_idx"):
        reference.build("RobertaModel", config)
    with pytest.raises(configs.ConfigError, match="max_position_embeddings"):
        registry.resolve(config)


def test_tying_is_real() -> None:
    # The decoder weight *is* the word table and its bias *is* lm_head.bias: RobertaForMaskedLM on
    # roberta-base adds only dense, layer_norm and one bias of V to the body.
    model = reference.build("RobertaForMaskedLM", configs.load("roberta-base"))
    assert model.lm_head.decoder.weight is model.roberta.embeddings.word_embeddings.weight
    assert model.lm_head.decoder.bias is model.lm_head.bias
    body = reference.build("RobertaModel", configs.load("roberta-base"))
    pooler = 768 * 768 + 768
    assert reference.total(model) - (reference.total(body) - pooler) == 768 * 768 + 768 + 2 * 768 + 50265


def test_the_released_position_table_has_514_rows() -> None:
    model = reference.build("RobertaModel", configs.load("roberta-base"))
    assert tuple(model.embeddings.position_embeddings.weight.shape) == (514, 768)
    assert model.embeddings.position_embeddings.padding_idx == 1
    assert tuple(model.embeddings.token_type_embeddings.weight.shape) == (1, 768)
