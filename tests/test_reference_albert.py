"""What only ALBERT has, against transformers (the checks every family shares are tests/specs/albert.py's): its
classes are transformers' own, the body without a pooler, groups that do not divide the depth run, the configs
transformers builds and cannot run (or cannot build), and the tied head."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import albert
from specs.albert import TINY

torch = reference.torch
transformers = reference.transformers


def test_every_class_is_derived():
    # Every class transformers' ALBERT exports, but the abstract base, has a derivation, and no more.
    exported = set(transformers.models.albert.modeling_albert.__all__) - {"AlbertPreTrainedModel"}
    assert exported == set(albert.ARCHITECTURES)


@pytest.mark.parametrize("checkpoint", albert.FAMILY.checkpoints)
def test_without_pooler(checkpoint: str) -> None:
    config = configs.load(checkpoint)
    with torch.device("meta"):
        model = transformers.AlbertModel(transformers.AutoConfig.for_model(**config), add_pooling_layer=False)
    reference.compare(albert.without_pooler, registry.resolve(config).values, model)


def test_groups_that_do_not_divide_the_depth_run() -> None:
    # transformers accepts them in the forward pass too (step i uses group int(i G / L)): no error to mirror.
    config = transformers.AutoConfig.for_model(**{**TINY, "num_hidden_groups": 2, "num_hidden_layers": 3})
    output = transformers.AlbertModel(config)(torch.tensor([[1, 2, 3]]))
    assert output.last_hidden_state.shape == (1, 3, 16)


def test_zero_groups_build_but_do_not_run() -> None:
    # num_hidden_groups 0 builds a model whose forward pass divides by zero; the reader refuses it.
    config = transformers.AutoConfig.for_model(**{**TINY, "num_hidden_groups": 0})
    with pytest.raises(ZeroDivisionError):
        transformers.AlbertModel(config)(torch.tensor([[1, 2, 3]]))
    with pytest.raises(configs.ConfigError, match="num_hidden_groups"):
        registry.resolve({**TINY, "num_hidden_groups": 0})


def test_more_heads_than_width_is_refused_by_both() -> None:
    config = {**TINY, "num_attention_heads": 17}
    with pytest.raises(ZeroDivisionError):
        reference.build("AlbertModel", config)
    with pytest.raises(configs.ConfigError, match="heads of size 0"):
        registry.resolve(config)


def test_tying_is_real() -> None:
    model = reference.build("AlbertForMaskedLM", TINY)
    assert model.predictions.decoder.weight is model.albert.embeddings.word_embeddings.weight
    assert model.predictions.decoder.bias is model.predictions.bias
