"""What only the original Transformer has, against its reference implementations (the checks every family shares
are tests/specs/transformer.py's): Marian's frozen sinusoidal tables, its decoder alone, which ignores the encoder's
fields, and PyTorch's nn.Transformer."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import transformer
from derivations.symbols import D, F, F_d, L, L_d
from specs.transformer import configs as marian_configs

check = reference.check
torch = reference.torch


def test_the_sinusoidal_tables_are_frozen_parameters() -> None:
    # parameters() yields the two P x D tables; the learnable count leaves them out.
    config = configs.load("transformer-base")
    model = reference.build("MarianMTModel", config)
    values = registry.resolve(config).values
    every = sum(p.numel() for p in model.parameters())
    assert every == transformer.parameters_with_frozen.subs(values) == 63_606_784
    assert reference.total(model) == transformer.ARCHITECTURES["MarianMTModel"].count(values) == 63_082_496


@pytest.mark.parametrize("encoder", [{"encoder_attention_heads": 3}, {"encoder_ffn_dim": -1},
                                     {"num_hidden_layers": None}, {"decoder_vocab_size": 200, "pad_token_id": 150}],
                         ids=["heads", "ffn", "layers-alias", "padding"])
def test_the_decoder_alone_ignores_the_encoder(encoder: dict) -> None:
    # MarianForCausalLM builds no encoder: transformers builds it from a config whose encoder fields (or
    # whose pad_token_id against vocab_size) the other classes refuse, and so does the command line.
    config = {"model_type": "marian", "vocab_size": 100, "d_model": 64, "encoder_attention_heads": 4,
              "decoder_attention_heads": 4, "encoder_layers": 1, "decoder_layers": 1, "pad_token_id": 5,
              "decoder_start_token_id": 5, **encoder}
    check("MarianForCausalLM", config)
    with pytest.raises(configs.ConfigError):
        registry.resolve(config, "MarianModel")


# The harness draws its random configs before their class (every class builds from them); the decoder alone's,
# whose padding index may be a row of its own table only, are drawn here (all of them in CI, as the harness's).
@settings(max_examples=profiles.draws(20), deadline=None)
@given(config=marian_configs(decoder_alone=True))
def test_random_configs_of_the_decoder_alone(config: dict) -> None:
    check("MarianForCausalLM", config)


# ---------------------------------------------------------------------------------------------
# torch.nn.Transformer
# ---------------------------------------------------------------------------------------------

def torch_transformer(d_model: int, nhead: int, encoder: int, decoder: int, feed_forward: int, bias: bool = True,
                      norm_first: bool = False) -> torch.nn.Module:
    with torch.device("meta"), warnings.catch_warnings():
        # The encoder warns that its nested-tensor fast path is off: a matter of speed, not of parameters.
        warnings.filterwarnings("ignore", message="enable_nested_tensor is True")
        return torch.nn.Transformer(d_model, nhead, encoder, decoder, feed_forward, bias=bias, norm_first=norm_first)


def test_paper_sizes() -> None:
    # nn.Transformer(512, 8, 6, 6, 2048): the paper's base layers and two final LayerNorms.
    model = torch_transformer(512, 8, 6, 6, 2048)
    values = {D: 512, F: 2048, F_d: 2048, L: 6, L_d: 6}
    reference.compare(transformer.TorchTransformer, values, model)
    assert reference.total(model) == 44_138_496 + 2 * 2 * 512  # the paper's layers [cite: vaswani2017]


@settings(max_examples=60, deadline=None)
@given(heads=st.integers(1, 8), head_size=st.integers(1, 32), encoder=st.integers(1, 3), decoder=st.integers(1, 3),
       feed_forward=st.integers(1, 512), bias=st.booleans(), norm_first=st.booleans())
def test_random_torch_transformers(heads, head_size, encoder, decoder, feed_forward, bias, norm_first) -> None:
    model = torch_transformer(heads * head_size, heads, encoder, decoder, feed_forward, bias, norm_first)
    part = transformer.TorchTransformer if bias else transformer.TorchTransformer_without_bias
    values = {D: heads * head_size, F: feed_forward, F_d: feed_forward, L: encoder, L_d: decoder}
    reference.compare(part, values, model)
