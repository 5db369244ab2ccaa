"""What only GPT-2 has, against transformers (the checks every family shares are tests/specs/gpt2.py's, GPT-3's rows
tests/specs/gpt3.py's): the attribute map's names win, the double heads refuse an attention summary, and the
tied head."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import gpt2

check = reference.check


def test_attribute_map_names_win() -> None:
    # GPT2Config maps hidden_size onto n_embd (and so on); given both, the mapped name wins.
    config = {"model_type": "gpt2", "hidden_size": 64, "n_embd": 128, "num_attention_heads": 4, "n_head": 8,
              "num_hidden_layers": 1, "max_position_embeddings": 16}
    check("GPT2LMHeadModel", config)
    assert registry.resolve(config).values[gpt2.D] == 64


def test_double_heads_refuse_attention_summary() -> None:
    config = {"model_type": "gpt2", "n_layer": 1, "summary_type": "attn"}
    with pytest.raises(NotImplementedError):
        reference.build("GPT2DoubleHeadsModel", config)
    with pytest.raises(configs.ConfigError, match="summary_type"):
        registry.resolve(config, "GPT2DoubleHeadsModel")
    check("GPT2LMHeadModel", config)  # the other classes ignore it


def test_tying_is_real() -> None:
    # The head *is* the token embedding: [cite: transformers-14960] prints "Whole model: 124439808" and the
    # head's 38,597,376 inside it, not beside it.
    model = reference.build("GPT2LMHeadModel", configs.load("gpt2"))
    assert reference.total(model) == 124_439_808
    assert model.lm_head.weight is model.transformer.wte.weight
