"""The DistilBERT derivation against transformers' DistilBERT classes: the total and every node of the tree.

The expected numbers are transformers' own, measured on the meta device (see reference.py); the
derivation is evaluated on the same config dict, through ``derivations.configs.resolve`` (config
reading, layout and class selection included).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import distilbert

check = reference.check


def test_every_class_transformers_defines_is_derived() -> None:
    defined = {name for name in dir(reference.transformers)
               if name.startswith("DistilBert") and name.removeprefix("DistilBert").startswith(("Model", "For"))}
    assert defined == set(distilbert.ARCHITECTURES)


@pytest.mark.parametrize("architecture", distilbert.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", distilbert.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("architecture", distilbert.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # A config.json with no sizes: the derivation's defaults must be DistilBertConfig's.
    check(architecture, {"model_type": "distilbert"})


@pytest.mark.parametrize("architecture", distilbert.ARCHITECTURES)
def test_untied_projector(architecture: str) -> None:
    check(architecture, {"model_type": "distilbert", "n_layers": 1, "tie_word_embeddings": False})


@pytest.mark.parametrize("architecture", distilbert.ARCHITECTURES)
def test_sinusoidal_positions_are_still_trainable(architecture: str) -> None:
    # transformers 5.x fills the table with sinusoids but leaves it a parameter with requires_grad true:
    # the count does not change.
    config = {"model_type": "distilbert", "n_layers": 1, "sinusoidal_pos_embds": True}
    check(architecture, config)
    model = reference.build(architecture, config)
    embeddings = model.embeddings if architecture == "DistilBertModel" else model.distilbert.embeddings
    assert embeddings.position_embeddings.weight.requires_grad


def test_hidden_dim_does_not_follow_dim() -> None:
    # DistilBertConfig's hidden_dim defaults to 3072 whatever dim is, and intermediate_size is no alias.
    config = {"model_type": "distilbert", "dim": 64, "n_heads": 4, "n_layers": 1, "intermediate_size": 100}
    check("DistilBertModel", config)
    assert registry.resolve(config).values[distilbert.F] == 3072


def test_attribute_map_names_win() -> None:
    # DistilBertConfig maps hidden_size onto dim (and so on); given both, the mapped name wins.
    config = {"model_type": "distilbert", "hidden_size": 64, "dim": 128, "num_attention_heads": 4, "n_heads": 8,
              "num_hidden_layers": 1, "n_layers": 3}
    check("DistilBertForMaskedLM", config)
    values = registry.resolve(config).values
    assert (values[distilbert.D], values[distilbert.H], values[distilbert.L]) == (64, 4, 1)


def test_question_answering_needs_two_labels_in_both() -> None:
    config = {"model_type": "distilbert", "n_layers": 1, "num_labels": 3}
    with pytest.raises(ValueError, match="num_labels"):
        reference.build("DistilBertForQuestionAnswering", config)
    with pytest.raises(configs.ConfigError, match="num_labels"):
        registry.resolve(config, "DistilBertForQuestionAnswering")
    check("DistilBertForSequenceClassification", config)  # the other classes take any number


def test_heads_must_divide_the_width_in_both() -> None:
    config = {"model_type": "distilbert", "dim": 100, "n_heads": 12, "n_layers": 1}
    with pytest.raises(ValueError, match="divide"):
        reference.build("DistilBertModel", config)
    with pytest.raises(configs.ConfigError, match="n_heads"):
        registry.resolve(config)


@st.composite
def distilbert_configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 16)), draw(st.integers(1, 64))
    config = {"model_type": "distilbert", "vocab_size": draw(st.integers(1, 60000)),
              "max_position_embeddings": draw(st.integers(1, 1024)), "hidden_dim": draw(st.integers(1, 4096))}
    # The sizes under their own names or under the names attribute_map gives them.
    names = ("hidden_size", "num_attention_heads", "num_hidden_layers") if draw(st.booleans()) else \
        ("dim", "n_heads", "n_layers")
    config |= dict(zip(names, (heads * head_size, heads, draw(st.integers(1, 3)))))
    maybe_flags(draw, config, "tie_word_embeddings", "sinusoidal_pos_embds")
    maybe_labels(draw, config)
    if draw(st.booleans()):
        vocabulary = config["vocab_size"]
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1)))
    return config


# The question-answering class is drawn only with two labels (it refuses any other number; see above).
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(distilbert.ARCHITECTURES)), config=distilbert_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    if architecture == "DistilBertForQuestionAnswering":
        config = {**config, "num_labels": 2}
    check(architecture, config)


def test_tying_is_real() -> None:
    # The projector's weight *is* the word table; its bias is a tensor of its own.
    model = reference.build("DistilBertForMaskedLM", configs.load("distilbert-base-uncased"))
    assert model.vocab_projector.weight is model.distilbert.embeddings.word_embeddings.weight
    names = {name for name, _ in model.named_parameters()}
    assert "vocab_projector.bias" in names and "vocab_projector.weight" not in names
