"""What only DistilBERT has, against transformers (the checks every family shares are tests/specs/distilbert.py's):
its classes are transformers' own, the sinusoidal table stays trainable, hidden_dim does not follow dim, the
attribute map's names win, two refusals transformers makes as it builds, and the tied projector."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import distilbert

check = reference.check


def test_every_class_transformers_defines_is_derived() -> None:
    defined = {name for name in dir(reference.transformers)
               if name.startswith("DistilBert") and name.removeprefix("DistilBert").startswith(("Model", "For"))}
    assert defined == set(distilbert.ARCHITECTURES)


@pytest.mark.parametrize("architecture", distilbert.ARCHITECTURES)
def test_sinusoidal_positions_are_still_trainable(architecture: str) -> None:
    # transformers 5.x fills the table with sinusoids but leaves it a parameter with requires_grad true:
    # the count does not change (the harness checks it: the spec's "sinusoidal" layout).
    config = {"model_type": "distilbert", "n_layers": 1, "sinusoidal_pos_embds": True}
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


def test_tying_is_real() -> None:
    # The projector's weight *is* the word table; its bias is a tensor of its own.
    model = reference.build("DistilBertForMaskedLM", configs.load("distilbert-base-uncased"))
    assert model.vocab_projector.weight is model.distilbert.embeddings.word_embeddings.weight
    names = {name for name, _ in model.named_parameters()}
    assert "vocab_projector.bias" in names and "vocab_projector.weight" not in names
