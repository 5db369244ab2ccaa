"""The original Transformer (transformers' Marian classes): what the reference harness checks
(tests/test_reference_families.py). What only it has is in tests/test_reference_transformer.py."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags


@st.composite
def configs(draw: st.DrawFn, decoder_alone: bool = False) -> dict:
    """A config every class builds from, or (``decoder_alone``) one MarianForCausalLM builds from: it builds no
    encoder, so its padding index need only fit the decoder's table."""
    head_size = draw(st.integers(1, 32))
    heads, decoder_heads = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    vocabulary = draw(st.integers(2, 20000))
    decoder_vocabulary = draw(st.one_of(st.none(), st.just(0), st.integers(2, 20000)))
    rows = decoder_vocabulary or vocabulary
    if not decoder_alone:
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
    return config


EMBEDDINGS = {"shared-tied": {}, "apart-tied": {"share_encoder_decoder_embeddings": False},
              "shared-untied": {"tie_word_embeddings": False},
              "apart-untied": {"share_encoder_decoder_embeddings": False, "tie_word_embeddings": False}}

SPEC = Spec(
    family="transformer",
    small={"model_type": "marian", "vocab_size": 1000, "pad_token_id": 5, "decoder_start_token_id": 5, "d_model": 64,
           "encoder_layers": 2, "decoder_layers": 1, "encoder_attention_heads": 4, "decoder_attention_heads": 8},
    every_class_on_checkpoints=True,
    # MarianConfig() as it stands: opus-mt-en-de's vocabulary, 12 + 12 layers of 1024.
    defaults={},
    # A decoder vocabulary of its own, smaller and larger than the encoder's, in every layout.
    layouts={f"{name}-{decoder_vocabulary}": flags | {"decoder_vocab_size": decoder_vocabulary}
             for name, flags in EMBEDDINGS.items() for decoder_vocabulary in (700, 3000)},
    # The configs every class builds from; those only the decoder alone builds from are
    # tests/test_reference_transformer.py's.
    configs=configs(),
    examples=50,
)
