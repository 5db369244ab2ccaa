"""The Gemma derivations (Gemma, Gemma 2, Gemma 3's language model) against transformers' classes: total and
every node, on the meta device. One module for the three families: their readers share one function."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import gemma, gemma2, gemma3_text
from test_reference_llama import head_sizes, runs

check = reference.check
FAMILIES = {"gemma": gemma, "gemma2": gemma2, "gemma3_text": gemma3_text}
SMALL = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
         "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16}
CAUSAL = {"gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM", "gemma3_text": "Gemma3ForCausalLM"}


@pytest.mark.parametrize("checkpoint", [c for f in FAMILIES.values() for c in f.FAMILY.checkpoints])
def test_checkpoint(checkpoint: str) -> None:
    config = configs.load(checkpoint)
    check(CAUSAL[config["model_type"]], config)


@pytest.mark.parametrize("model_type, architecture", [(t, a) for t, f in FAMILIES.items() for a in f.ARCHITECTURES])
def test_every_class(model_type: str, architecture: str) -> None:
    check(architecture, SMALL | {"model_type": model_type})


@pytest.mark.parametrize("model_type", FAMILIES)
def test_defaults(model_type: str) -> None:
    check(CAUSAL[model_type], {"model_type": model_type, "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [{"tie_word_embeddings": False}, {"token_classification_bias": False},
                                   {"attention_bias": True}, {"head_dim": 2}],
                         ids=["untied", "no-token-bias", "bias", "head-dim"])
@pytest.mark.parametrize("model_type", FAMILIES)
def test_layouts(model_type: str, flags: dict) -> None:
    check(list(FAMILIES[model_type].ARCHITECTURES)[-1], SMALL | {"model_type": model_type} | flags)
    check(CAUSAL[model_type], SMALL | {"model_type": model_type} | flags)


REFUSED = [
    ("gemma", {"num_key_value_heads": 3}, "num_key_value_heads"),
    ("gemma", {"head_dim": 7}, "head size"),
    ("gemma", {"head_dim": None}, "head_dim"),
    ("gemma2", {"hidden_size": 68}, "not a multiple of num_attention_heads"),  # validate_architecture
    ("gemma3_text", {"hidden_size": 68}, "not a multiple of num_attention_heads"),
    ("gemma2", {"num_key_value_heads": None}, "num_key_value_heads"),
]


@pytest.mark.parametrize("model_type, config, message", REFUSED, ids=[f"{t}-{c}" for t, c, _ in REFUSED])
def test_refused_by_both(model_type: str, config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | {"model_type": model_type} | config)
    assert not runs(SMALL | {"model_type": model_type} | config)


def test_gemma_takes_a_width_the_heads_do_not_divide() -> None:
    # GemmaConfig has no validate_architecture: Gemma 7B's 16 x 256 in 3,072 is the released case.
    config = SMALL | {"model_type": "gemma", "hidden_size": 68}
    assert runs(config)
    check("GemmaForCausalLM", config)


@st.composite
def gemma_configs(draw: st.DrawFn) -> dict:
    model_type = draw(st.sampled_from(sorted(FAMILIES)))
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": model_type, "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(st.integers(1, 16)),
              "head_dim": draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=40, deadline=None)
@given(config=gemma_configs(), data=st.data())
def test_random_configs(config: dict, data: st.DataObject) -> None:
    check(data.draw(st.sampled_from(sorted(FAMILIES[config["model_type"]].ARCHITECTURES))), config)
