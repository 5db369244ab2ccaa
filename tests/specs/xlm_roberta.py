"""XLM-RoBERTa: what the reference harness checks (tests/test_reference_families.py). RoBERTa's tree under other class
names: its spec's checks, with the model_type's own defaults (a vocabulary of 30,522, not RoBERTa's 50,265)."""

from hypothesis import strategies as st

from spec import Spec
from specs import roberta


@st.composite
def configs(draw: st.DrawFn, model_type: str = "xlm-roberta") -> dict:
    config = draw(roberta.configs(model_type))  # RoBERTa's draws, under this model_type
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
        layouts=roberta.SPEC.layouts,  # RoBERTa's, which the same config fields ask for
        configs=configs(model_type),
        # RoBERTa's random draws cover the tree; these cover the readings of the model_type.
        examples=30,
    )


SPEC = renamed("xlm_roberta", "xlm-roberta")
