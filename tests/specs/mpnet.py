"""MPNet: what the reference harness checks (tests/test_reference_families.py)."""

from collections.abc import Mapping

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 16)), draw(st.integers(1, 64))
    config = {
        "model_type": "mpnet",
        # Two rows at least in each table: MPNetEmbeddings pads row 1 of both.
        "vocab_size": draw(st.integers(2, 60000)),
        "hidden_size": heads * head_size,
        "num_attention_heads": heads,
        "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 4096)),
        "max_position_embeddings": draw(st.integers(2, 1026)),
        "relative_attention_num_buckets": draw(st.integers(1, 64)),
    }
    maybe_flags(draw, config, "tie_word_embeddings")
    maybe_labels(draw, config)
    if draw(st.booleans()):
        # Heads that cover less than the width (each the floor of hidden / heads): built, as BERT's.
        config["embedding_size"] = config["hidden_size"]
        config["hidden_size"] += draw(st.integers(0, heads - 1))
    for field in ("vocab_size", "relative_attention_num_buckets"):
        if draw(st.booleans()):
            del config[field]  # MPNetConfig's default
    return config


def runs(config: Mapping) -> bool:
    """Whether transformers builds MPNetModel from the config (on the CPU) and runs it on three tokens."""
    import torch
    import transformers

    try:
        model = transformers.MPNetModel(transformers.AutoConfig.for_model(**config))
        with torch.no_grad():
            model(torch.tensor([[0, 2, 3]]) % model.config.vocab_size)
    except Exception:  # the config class, the constructor or the forward pass refuses it
        return False
    return True


SPEC = Spec(
    family="mpnet",
    small={"model_type": "mpnet", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "intermediate_size": 128, "vocab_size": 100},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be MPNetConfig's.
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False}},
    refused=(
        # MPNetEmbeddings pads row 1 of both tables: nn.Embedding refuses a padding index outside the table.
        ({"vocab_size": 1}, "vocab_size must be at least 2"),
        ({"max_position_embeddings": 1}, "max_position_embeddings must be at least 2"),
        # A bias table of no rows: built, but every forward looks a bucket up in it.
        ({"relative_attention_num_buckets": 0}, "relative_attention_num_buckets must be positive"),
        ({"hidden_size": 66}, "multiple"),
    ),
    accepted=({"max_position_embeddings": 5, "relative_attention_num_buckets": 32},),
    configs=configs(),
    examples=30,
    runs=runs,
)
