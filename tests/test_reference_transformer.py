"""The original Transformer's derivation against its reference implementations: transformers' Marian
classes from a config.json (total and every node), and PyTorch's nn.Transformer."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags
from derivations import configs, registry
from derivations.families import transformer
from derivations.symbols import D, F, F_d, L, L_d

check = reference.check
torch = reference.torch

LAYOUTS = [{}, {"share_encoder_decoder_embeddings": False}, {"tie_word_embeddings": False},
           {"share_encoder_decoder_embeddings": False, "tie_word_embeddings": False}]
LAYOUT_IDS = ["shared-tied", "apart-tied", "shared-untied", "apart-untied"]


@pytest.mark.parametrize("architecture", transformer.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", transformer.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("architecture", transformer.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # MarianConfig() as it stands: opus-mt-en-de's vocabulary, 12 + 12 layers of 1024.
    check(architecture, {"model_type": "marian"})


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("architecture", transformer.ARCHITECTURES)
def test_embedding_layouts(layout: dict, architecture: str) -> None:
    # A decoder vocabulary of its own, smaller and larger than the encoder's, in every layout.
    for decoder_vocabulary in (700, 3000):
        config = {"model_type": "marian", "vocab_size": 1000, "decoder_vocab_size": decoder_vocabulary,
                  "pad_token_id": 5, "decoder_start_token_id": 5, "d_model": 64, "encoder_layers": 2,
                  "decoder_layers": 1, "encoder_attention_heads": 4, "decoder_attention_heads": 8, **layout}
        check(architecture, config)


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


@st.composite
def marian_configs(draw: st.DrawFn) -> tuple[str, dict]:
    """A class and a config it can be built from: MarianForCausalLM builds no encoder, so its padding
    index need only fit the decoder's table."""
    architecture = draw(st.sampled_from(sorted(transformer.ARCHITECTURES)))
    head_size = draw(st.integers(1, 32))
    heads, decoder_heads = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    vocabulary = draw(st.integers(2, 20000))
    decoder_vocabulary = draw(st.one_of(st.none(), st.just(0), st.integers(2, 20000)))
    rows = decoder_vocabulary or vocabulary
    if architecture != "MarianForCausalLM":
        rows = min(rows, vocabulary)
    pad = draw(st.one_of(st.none(), st.integers(-rows, rows - 1)))
    config = {"model_type": "marian", "vocab_size": vocabulary, "decoder_vocab_size": decoder_vocabulary,
              "pad_token_id": pad, "decoder_start_token_id": 0,
              # Every attention block requires its heads to divide the width.
              "d_model": heads * decoder_heads * head_size,
              "encoder_attention_heads": heads, "decoder_attention_heads": decoder_heads,
              "encoder_layers": draw(st.integers(1, 3)), "decoder_layers": draw(st.integers(1, 3)),
              "encoder_ffn_dim": draw(st.integers(1, 512)), "decoder_ffn_dim": draw(st.integers(1, 512)),
              "max_position_embeddings": draw(st.integers(1, 512))}
    maybe_flags(draw, config, "share_encoder_decoder_embeddings", "tie_word_embeddings")
    return architecture, config


@settings(max_examples=50, deadline=None)
@given(drawn=marian_configs())
def test_random_configs(drawn: tuple[str, dict]) -> None:
    check(*drawn)


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
