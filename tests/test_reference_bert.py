"""The BERT derivation against transformers' BERT classes: the total and every node of the tree.

The expected numbers are transformers' own, measured on the meta device (see reference.py); the
derivation is evaluated on the same config dict, through ``derivations.configs.resolve`` (config
reading, layout and class selection included).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import bert_sizes
from derivations import configs, registry
from derivations.families import bert

check = reference.check


@pytest.mark.parametrize("architecture", bert.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", bert.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("architecture", bert.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # A config.json with no sizes: the derivation's defaults must be BertConfig's.
    check(architecture, {"model_type": "bert"})


@pytest.mark.parametrize("architecture", bert.ARCHITECTURES)
def test_cross_attention(architecture: str) -> None:
    # A BERT decoder with cross-attention (as inside an EncoderDecoderModel): every layer gains a
    # second attention block, which transformers builds and the derivation must count.
    check(architecture, {"model_type": "bert", "is_decoder": True, "add_cross_attention": True})


@pytest.mark.parametrize("architecture", ["BertForMaskedLM", "BertForPreTraining", "BertLMHeadModel"])
def test_untied_head(architecture: str) -> None:
    # tie_word_embeddings false: the decoder gets a weight and a bias of its own.
    check(architecture, {"model_type": "bert", "tie_word_embeddings": False})


def test_heads_narrower_than_the_hidden_size() -> None:
    # hidden 100, 12 heads of 8: transformers allows it when embedding_size is set.
    check("BertModel", {"model_type": "bert", "hidden_size": 100, "num_attention_heads": 12, "embedding_size": 7})


def test_cross_attention_without_decoder_is_rejected_by_both() -> None:
    config = {"model_type": "bert", "add_cross_attention": True}
    with pytest.raises(ValueError, match="decoder"):
        reference.build("BertModel", config)
    with pytest.raises(configs.ConfigError, match="is_decoder"):
        registry.resolve(config)


@st.composite
def bert_configs(draw: st.DrawFn) -> dict:
    config = bert_sizes(draw, "bert", smallest=1, most_layers=4, most_positions=1024)
    # config.json gives the classes as num_labels, as an id2label map (string keys, as in JSON; "0"
    # and "00" are one label to transformers), or both, where num_labels wins.
    labels = draw(st.lists(st.integers(0, 30), min_size=1, max_size=20))
    how = draw(st.sampled_from(["num_labels", "id2label", "both"]))
    if how in ("id2label", "both"):
        config["id2label"] = {("0" if draw(st.booleans()) else "") + str(i): f"LABEL_{i}" for i in labels}
    if how in ("num_labels", "both"):
        config["num_labels"] = draw(st.integers(1, 20))
    if draw(st.booleans()):
        # Any index into the word embeddings, negative ones included, or no padding at all.
        vocabulary = config["vocab_size"]
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1)))
    return config


# Meta-device builds take ~20 ms each: 100 examples cost ~2 s. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(bert.ARCHITECTURES)), config=bert_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


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
