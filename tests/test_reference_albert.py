"""The ALBERT derivation against transformers' ALBERT classes: total and every node.

The expected numbers are transformers' own, measured on the meta device (see reference.py); the
derivation is evaluated on the same config dict, through ``derivations.configs.resolve``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_labels
from derivations import configs, registry
from derivations.families import albert

check = reference.check
torch = reference.torch
transformers = reference.transformers

TINY = {"model_type": "albert", "vocab_size": 100, "embedding_size": 8, "hidden_size": 16, "num_attention_heads": 4,
        "intermediate_size": 32, "num_hidden_layers": 3, "max_position_embeddings": 16}


def test_every_class_is_derived():
    # Every class transformers' ALBERT exports, but the abstract base, has a derivation, and no more.
    exported = set(transformers.models.albert.modeling_albert.__all__) - {"AlbertPreTrainedModel"}
    assert exported == set(albert.ARCHITECTURES)


@pytest.mark.parametrize("architecture", albert.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", albert.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("checkpoint", albert.FAMILY.checkpoints)
def test_without_pooler(checkpoint: str) -> None:
    config = configs.load(checkpoint)
    with torch.device("meta"):
        model = transformers.AlbertModel(transformers.AutoConfig.for_model(**config), add_pooling_layer=False)
    reference.compare(albert.without_pooler, registry.resolve(config).values, model)


@pytest.mark.parametrize("architecture", albert.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # A config with no sizes is AlbertConfig's defaults: the xxlarge shape.
    check(architecture, {"model_type": "albert"})


@pytest.mark.parametrize("architecture", albert.ARCHITECTURES)
def test_untied(architecture: str) -> None:
    check(architecture, {**TINY, "tie_word_embeddings": False})


@pytest.mark.parametrize("groups, inner, layers", [(2, 1, 4), (3, 2, 5), (5, 1, 2), (1, 3, 1)])
def test_groups(groups: int, inner: int, layers: int) -> None:
    # Groups that divide the depth, that do not, and more groups than steps: transformers builds all.
    config = {**TINY, "num_hidden_groups": groups, "inner_group_num": inner, "num_hidden_layers": layers}
    for architecture in albert.ARCHITECTURES:
        check(architecture, config)


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


def test_heads_that_do_not_divide_the_width() -> None:
    check("AlbertModel", {**TINY, "num_attention_heads": 5})


def test_tying_is_real() -> None:
    model = reference.build("AlbertForMaskedLM", TINY)
    assert model.predictions.decoder.weight is model.albert.embeddings.word_embeddings.weight
    assert model.predictions.decoder.bias is model.predictions.bias


@st.composite
def albert_configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 8))
    # The width need not be a multiple of the heads (each head is the floor), nor equal to E.
    hidden = draw(st.integers(heads, 96))
    config = {"model_type": "albert", "vocab_size": draw(st.integers(1, 5000)),
              "embedding_size": draw(st.integers(1, 64)), "hidden_size": hidden, "num_attention_heads": heads,
              "intermediate_size": draw(st.integers(1, 128)), "num_hidden_layers": draw(st.integers(1, 6)),
              "num_hidden_groups": draw(st.integers(1, 3)), "inner_group_num": draw(st.integers(1, 2)),
              "max_position_embeddings": draw(st.integers(1, 600)), "type_vocab_size": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        config["tie_word_embeddings"] = draw(st.booleans())
    maybe_labels(draw, config)
    return config


# Meta-device builds take ~20 ms each. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(albert.ARCHITECTURES)), config=albert_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)
