"""Whisper: what the reference harness checks (tests/test_reference_families.py)."""

from collections.abc import Mapping

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """A config every class builds from: heads that divide the width in both stacks, a padding index inside the token
    table, a window of a few frames (the encoder reads twice max_source_positions), the head tied or not, the audio
    classifier's weighted layer sum or not."""
    head_size = draw(st.integers(1, 8))
    heads, decoder_heads = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    vocabulary = draw(st.integers(3, 2000))
    config = {"model_type": "whisper", "vocab_size": vocabulary,
              "pad_token_id": draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1))),
              "d_model": heads * decoder_heads * head_size,
              "encoder_attention_heads": heads, "decoder_attention_heads": decoder_heads,
              "encoder_layers": draw(st.integers(1, 3)), "decoder_layers": draw(st.integers(1, 3)),
              "encoder_ffn_dim": draw(st.integers(1, 128)), "decoder_ffn_dim": draw(st.integers(1, 128)),
              "num_mel_bins": draw(st.integers(1, 16)), "max_source_positions": draw(st.integers(1, 64)),
              "max_target_positions": draw(st.integers(1, 128)),
              "classifier_proj_size": draw(st.integers(1, 32)), "decoder_start_token_id": 0}
    maybe_labels(draw, config)
    maybe_flags(draw, config, "tie_word_embeddings", "use_weighted_layer_sum", "scale_embedding")
    return config


def runs(config: Mapping) -> bool:
    """Whether transformers builds WhisperModel from the config and runs it on one window and one decoder token."""
    import torch
    import transformers

    try:
        model = transformers.WhisperModel(transformers.AutoConfig.for_model(**config))
        frames = 2 * model.config.max_source_positions
        with torch.no_grad():
            model(input_features=torch.zeros(1, model.config.num_mel_bins, frames),
                  decoder_input_ids=torch.zeros(1, 1, dtype=torch.long))
    except Exception:  # the config class, the constructor or the forward pass refuses it
        return False
    return True


SPEC = Spec(
    family="whisper",
    small={"model_type": "whisper", "vocab_size": 1000, "d_model": 64, "encoder_layers": 2, "decoder_layers": 1,
           "encoder_attention_heads": 4, "decoder_attention_heads": 8, "encoder_ffn_dim": 96, "decoder_ffn_dim": 80,
           "num_mel_bins": 8, "max_source_positions": 30, "max_target_positions": 64, "classifier_proj_size": 16,
           "pad_token_id": 999},
    every_class_on_checkpoints=True,
    # The config class as it stands: whisper-tiny's shape (4 + 4 layers of 384, 80 mel bins).
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False}, "weighted": {"use_weighted_layer_sum": True},
             "labels-5": {"num_labels": 5}},
    refused=(
        # WhisperAttention: "embed_dim must be divisible by num_heads".
        ({"encoder_attention_heads": 5}, "is not a multiple of"),
        ({"decoder_attention_heads": 6}, "is not a multiple of"),
        # nn.Embedding(V, D, padding_idx) asserts the index is inside the table.
        ({"pad_token_id": 1000}, "outside the vocabulary"),
    ),
    accepted=({"max_source_positions": 1}, {"num_mel_bins": 1}, {"pad_token_id": -1000}, {"d_model": 8,
              "encoder_attention_heads": 8, "decoder_attention_heads": 1}),
    configs=configs(),
    examples=30,
    runs=runs,
    # WhisperForCausalLM sets is_encoder_decoder false and not is_decoder: its decoder is given a mask of ones, as a
    # tokenizer gives it (without one it looks for packed sequences in the position ids, which the meta device
    # cannot answer).
    masked=("WhisperForCausalLM",),
)
