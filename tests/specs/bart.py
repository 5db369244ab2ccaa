"""BART: what the reference harness checks (tests/test_reference_families.py). mBART's spec (tests/specs/mbart.py) is
this one with its model_type."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags


def strategy(model_type: str):
    @st.composite
    def configs(draw: st.DrawFn) -> dict:
        """A config every class builds from: heads that divide the width in both stacks, a padding index inside the
        table, labels given by num_labels, by id2label or by neither (BART's 3, mBART's 2), the head tied or not."""
        head_size = draw(st.integers(1, 16))
        heads, decoder_heads = draw(st.integers(1, 6)), draw(st.integers(1, 6))
        vocabulary = draw(st.integers(3, 5000))
        config = {"model_type": model_type, "vocab_size": vocabulary,
                  "pad_token_id": draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1))),
                  "d_model": heads * decoder_heads * head_size,
                  "encoder_attention_heads": heads, "decoder_attention_heads": decoder_heads,
                  "encoder_layers": draw(st.integers(1, 3)), "decoder_layers": draw(st.integers(1, 3)),
                  "encoder_ffn_dim": draw(st.integers(1, 256)), "decoder_ffn_dim": draw(st.integers(1, 256)),
                  "max_position_embeddings": draw(st.integers(1, 512)), "decoder_start_token_id": 2}
        labels = draw(st.sampled_from(["none", "num_labels", "id2label"]))
        if labels == "num_labels":
            config["num_labels"] = draw(st.integers(1, 7))
        elif labels == "id2label":
            config["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 7)))}
        maybe_flags(draw, config, "tie_word_embeddings", "scale_embedding")
        return config

    return configs()


def spec(model_type: str, prefix: str) -> Spec:
    return Spec(
        family=model_type,
        small={"model_type": model_type, "vocab_size": 1000, "d_model": 64, "encoder_layers": 2, "decoder_layers": 1,
               "encoder_attention_heads": 4, "decoder_attention_heads": 8, "encoder_ffn_dim": 96,
               "decoder_ffn_dim": 80, "max_position_embeddings": 128},
        every_class_on_checkpoints=True,
        # The config class as it stands: bart-large's shape, 12 + 12 layers of 1024.
        defaults={},
        layouts={"untied": {"tie_word_embeddings": False}, "labels-5": {"num_labels": 5},
                 "id2label-1": {"id2label": {"0": "only"}}},
        configs=strategy(model_type),
        examples=30,
        # The sequence classifier classifies the state at the last end-of-sequence token: its forward reads the ids,
        # and its decoder reads them shifted right (decoder_input_ids are not its to take: the lengths must agree).
        data_dependent=(f"{prefix}ForSequenceClassification",),
        shifted=(f"{prefix}ForSequenceClassification",),
    )


SPEC = spec("bart", "Bart")
