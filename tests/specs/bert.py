"""BERT: what the reference harness checks (tests/test_reference_families.py). What only BERT has is in
tests/test_reference_bert.py."""

from hypothesis import strategies as st

from spec import Spec
from strategies import bert_sizes


@st.composite
def configs(draw: st.DrawFn) -> dict:
    config = bert_sizes(draw, "bert", smallest=1, most_layers=4, most_positions=1024)
    # config.json gives the classes as num_labels, as an id2label map (string keys, as in JSON; "0"
    # and "00" are one label to transformers), or both, where num_labels wins.
    labels = draw(st.lists(st.integers(0, 30), min_size=1, max_size=20))
    how = draw(st.sampled_from(["num_labels", "id2label", "both"]))
    if how in ("id2label", "both"):
        config["id2label"] = {("0" if draw(st.booleans()) else "") + str(i): f"LABEL_{i}" for i in labels}
    if how in ("num_labels", "both"):
        config["num_labels"] = draw(st.integers(1, 20))
    if draw(st.booleans()):
        # Any index into the word embeddings, negative ones included, or no padding at all.
        vocabulary = config["vocab_size"]
        config["pad_token_id"] = draw(st.one_of(st.none(), st.integers(-vocabulary, vocabulary - 1)))
    return config


SPEC = Spec(
    family="bert",
    # BertConfig's defaults (bert-base's sizes): the layouts change them.
    small={"model_type": "bert"},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be BertConfig's.
    defaults={},
    layouts={
        # A BERT decoder with cross-attention (as inside an EncoderDecoderModel): every layer gains a
        # second attention block, which transformers builds and the derivation must count.
        "cross": {"is_decoder": True, "add_cross_attention": True},
        # tie_word_embeddings false: the decoder gets a weight and a bias of its own (in the classes with an LM head).
        "untied": {"tie_word_embeddings": False},
        # hidden 100, 12 heads of 8: transformers allows it when embedding_size is set.
        "narrow-heads": {"hidden_size": 100, "num_attention_heads": 12, "embedding_size": 7},
    },
    configs=configs(),
    # Meta-device builds take ~20 ms each: 100 examples cost ~2 s.
    examples=50,
)
