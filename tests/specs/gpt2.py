"""GPT-2: what the reference harness checks (tests/test_reference_families.py). What only GPT-2 has is in
tests/test_reference_gpt2.py; GPT-3's rows, GPT-2 configs, are tests/specs/gpt3.py's."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 12)), draw(st.integers(1, 48))
    config = {"model_type": "gpt2", "vocab_size": draw(st.integers(1, 60000)),
              "n_layer": draw(st.integers(1, 4)), "n_positions": draw(st.integers(1, 2048))}
    # The width and heads under their own names or under the names attribute_map gives them.
    width, count = ("hidden_size", "num_attention_heads") if draw(st.booleans()) else ("n_embd", "n_head")
    config[width], config[count] = heads * head_size, heads
    config["n_inner"] = draw(st.one_of(st.none(), st.integers(1, 4096)))  # null: four times the width
    maybe_flags(draw, config, "add_cross_attention", "tie_word_embeddings", "summary_use_proj", "summary_proj_to_labels")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gpt2",
    small={"model_type": "gpt2", "n_layer": 2},
    every_class_on_checkpoints=True,
    defaults={},
    layouts={"cross": {"add_cross_attention": True}, "untied": {"tie_word_embeddings": False},
             "summary-hidden": {"summary_proj_to_labels": False}, "no-summary": {"summary_use_proj": False},
             "all": {"add_cross_attention": True, "tie_word_embeddings": False, "summary_use_proj": False}},
    configs=configs(),
    # Meta-device builds take ~20 ms each.
    examples=50,
)
