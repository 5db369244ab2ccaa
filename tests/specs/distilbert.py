"""DistilBERT: what the reference harness checks (tests/test_reference_families.py). What only DistilBERT has is in
tests/test_reference_distilbert.py."""

from collections.abc import Mapping

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 16)), draw(st.integers(1, 64))
    config = {"model_type": "distilbert", "vocab_size": draw(st.integers(1, 60000)),
              "max_position_embeddings": draw(st.integers(1, 1024)), "hidden_dim": draw(st.integers(1, 4096))}
    # The sizes under their own names or under the names attribute_map gives them.
    names = ("hidden_size", "num_attention_heads", "num_hidden_layers") if draw(st.booleans()) else \
        ("dim", "n_heads", "n_layers")
    config |= dict(zip(names, (heads * head_size, heads, draw(st.integers(1, 3)))))
    maybe_flags(draw, config, "tie_word_embeddings", "sinusoidal_pos_embds")
    maybe_labels(draw, config)
    if draw(st.booleans()):
        vocabulary = config["vocab_size"]
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1)))
    return config


def check(architecture: str, config: Mapping) -> None:
    """reference.check; the question-answering class with two labels, the only number it takes (it refuses any
    other: tests/test_reference_distilbert.py), so that the random configs, drawn before their class, fit it."""
    if architecture == "DistilBertForQuestionAnswering" and "num_labels" in config:
        config = {**config, "num_labels": 2}
    reference.check(architecture, config)


SPEC = Spec(
    family="distilbert",
    small={"model_type": "distilbert", "n_layers": 1},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be DistilBertConfig's.
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False},
             # transformers 5.x fills the table with sinusoids but leaves it a parameter with requires_grad true:
             # the count does not change (tests/test_reference_distilbert.py).
             "sinusoidal": {"sinusoidal_pos_embds": True}},
    # The question-answering class is drawn only with two labels (see check).
    configs=configs(),
    examples=50,
    check=check,
)
