"""XLM-RoBERTa: what the reference harness checks (tests/test_reference_families.py). RoBERTa's tree under other class
names: its spec's checks, with the model_type's own defaults (a vocabulary of 30,522, not RoBERTa's 50,265)."""

from hypothesis import strategies as st

from spec import Spec
from strategies import bert_sizes, maybe_labels


@st.composite
def configs(draw: st.DrawFn, model_type: str = "xlm-roberta") -> dict:
    # At least two rows in each table: the padding row (1 by default) must fit both.
    config = bert_sizes(draw, model_type, smallest=2, most_layers=3, most_positions=1026)
    maybe_labels(draw, config)
    if draw(st.booleans()):
        # Any row of both tables (the word and the position table share pad_token_id), or none.
        rows = min(config["vocab_size"], config["max_position_embeddings"])
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-rows, rows - 1)))
    if draw(st.booleans()):
        del config["vocab_size"]  # the config class's default, which is BERT's
    return config


def renamed(family: str, model_type: str) -> Spec:
    """The spec of a model_type that is RoBERTa's tree under other class names (XLM-R's, CamemBERT's)."""
    return Spec(
        family=family,
        small={"model_type": model_type, "num_hidden_layers": 2},
        every_class_on_checkpoints=True,
        # A config.json with no sizes: the derivation's defaults must be the config class's (BERT's vocabulary, 512
        # positions and two token types, unlike the released checkpoints).
        defaults={},
        layouts={"cross": {"is_decoder": True, "add_cross_attention": True},
                 "untied": {"tie_word_embeddings": False},
                 "both": {"is_decoder": True, "add_cross_attention": True, "tie_word_embeddings": False},
                 "decoder-only": {"is_decoder": True}},
        configs=configs(model_type),
        # RoBERTa's random draws cover the tree; these cover the readings of the model_type.
        examples=30,
    )


SPEC = renamed("xlm_roberta", "xlm-roberta")
