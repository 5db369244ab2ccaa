"""GPT-1: what the reference harness checks (tests/test_reference_families.py). What only GPT-1 has is in
tests/test_reference_gpt1.py."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 12)), draw(st.integers(1, 48))
    config = {"model_type": "openai-gpt", "vocab_size": draw(st.integers(1, 60000)),
              "n_layer": draw(st.integers(1, 4)), "n_positions": draw(st.integers(1, 1024))}
    width, count = ("hidden_size", "num_attention_heads") if draw(st.booleans()) else ("n_embd", "n_head")
    config[width], config[count] = heads * head_size, heads
    maybe_flags(draw, config, "tie_word_embeddings", "summary_use_proj", "summary_proj_to_labels")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gpt1",
    small={"model_type": "openai-gpt", "n_layer": 2},
    every_class_on_checkpoints=True,
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False}, "summary-hidden": {"summary_proj_to_labels": False},
             "no-summary": {"summary_use_proj": False}},
    configs=configs(),
    examples=60,
)
