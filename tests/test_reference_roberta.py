"""The RoBERTa derivation against transformers' RoBERTa classes: the total and every node of the tree.

The expected numbers are transformers' own, measured on the meta device (see reference.py); the
derivation is evaluated on the same config dict, through ``derivations.configs.resolve`` (config
reading, layout and class selection included).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import bert_sizes, maybe_labels
from derivations import configs, registry
from derivations.families import roberta

check = reference.check


def test_every_class_transformers_defines_is_derived() -> None:
    # Every Roberta* model class of transformers that a config builds (not the abstract base class).
    defined = {name for name in dir(reference.transformers)
               if name.startswith("Roberta") and not name.startswith("RobertaPreLayerNorm")
               and name.removeprefix("Roberta").startswith(("Model", "For"))}
    assert defined == set(roberta.ARCHITECTURES)


@pytest.mark.parametrize("architecture", roberta.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", roberta.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("checkpoint", roberta.FAMILY.checkpoints)
def test_body_without_pooler(checkpoint: str) -> None:
    # RobertaModel(config, add_pooling_layer=False): the body the head classes hold.
    config = configs.load(checkpoint)
    with reference.torch.device("meta"):
        model = reference.transformers.RobertaModel(reference.transformers.AutoConfig.for_model(**config),
                                                    add_pooling_layer=False)
    reference.compare(roberta.without_pooler, registry.checkpoint(checkpoint).values, model)


@pytest.mark.parametrize("architecture", roberta.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # A config.json with no sizes: the derivation's defaults must be RobertaConfig's (512 positions and
    # two token types there, unlike the released checkpoints).
    check(architecture, {"model_type": "roberta"})


@pytest.mark.parametrize("flags", [
    {"is_decoder": True, "add_cross_attention": True},
    {"tie_word_embeddings": False},
    {"is_decoder": True, "add_cross_attention": True, "tie_word_embeddings": False},
    {"is_decoder": True},
], ids=["cross", "untied", "both", "decoder-only"])
@pytest.mark.parametrize("architecture", roberta.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, {"model_type": "roberta", "num_hidden_layers": 2, **flags})


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


@st.composite
def roberta_configs(draw: st.DrawFn) -> dict:
    # At least two rows in each table: the padding row (1 by default) must fit both.
    config = bert_sizes(draw, "roberta", smallest=2, most_layers=3, most_positions=1026)
    maybe_labels(draw, config)
    if draw(st.booleans()):
        # Any row of both tables (the word and the position table share pad_token_id), or none.
        rows = min(config["vocab_size"], config["max_position_embeddings"])
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-rows, rows - 1)))
    return config


# Meta-device builds take ~20 ms each. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(roberta.ARCHITECTURES)), config=roberta_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


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
