"""RoBERTa: what the reference harness checks (tests/test_reference_families.py). What only RoBERTa has is in
tests/test_reference_roberta.py."""

from hypothesis import strategies as st

from spec import Spec
from strategies import bert_sizes, maybe_labels


@st.composite
def configs(draw: st.DrawFn, model_type: str = "roberta") -> dict:
    # At least two rows in each table: the padding row (1 by default) must fit both.
    config = bert_sizes(draw, model_type, smallest=2, most_layers=3, most_positions=1026)
    maybe_labels(draw, config)
    if draw(st.booleans()):
        # Any row of both tables (the word and the position table share pad_token_id), or none.
        rows = min(config["vocab_size"], config["max_position_embeddings"])
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-rows, rows - 1)))
    return config


SPEC = Spec(
    family="roberta",
    small={"model_type": "roberta", "num_hidden_layers": 2},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be RobertaConfig's (512 positions and
    # two token types there, unlike the released checkpoints).
    defaults={},
    layouts={"cross": {"is_decoder": True, "add_cross_attention": True},
             "untied": {"tie_word_embeddings": False},
             "both": {"is_decoder": True, "add_cross_attention": True, "tie_word_embeddings": False},
             "decoder-only": {"is_decoder": True}},
    configs=configs(),
    # Meta-device builds take ~20 ms each.
    examples=50,
)
