"""ELECTRA: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels

SMALL = {"model_type": "electra", "vocab_size": 100, "embedding_size": 8, "hidden_size": 16, "num_attention_heads": 4,
         "intermediate_size": 32, "num_hidden_layers": 2, "max_position_embeddings": 16}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 8))
    # The width need not be a multiple of the heads (each head has the floor: ElectraConfig has embedding_size), but
    # mostly is: a forward runs only where the heads cover the width (the inference forward's check draws these too).
    hidden = heads * draw(st.integers(1, 12)) + draw(st.one_of(st.just(0), st.just(0), st.integers(0, heads - 1)))
    config = {"model_type": "electra", "vocab_size": draw(st.integers(1, 5000)),
              # E equal to D half the time: no projection then.
              "embedding_size": draw(st.one_of(st.just(hidden), st.integers(1, 64))), "hidden_size": hidden,
              "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 128)),
              "num_hidden_layers": draw(st.integers(1, 3)), "max_position_embeddings": draw(st.integers(1, 600)),
              "type_vocab_size": draw(st.integers(1, 4))}
    if draw(st.integers(0, 3)) == 0:  # a decoder (whose forward is not derived) a quarter of the time
        config["is_decoder"] = True
        config["add_cross_attention"] = draw(st.booleans())
    maybe_flags(draw, config, "tie_word_embeddings", "summary_use_proj", "summary_proj_to_labels")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="electra",
    small=SMALL,
    every_class_on_checkpoints=True,
    # A config with no sizes is ElectraConfig's defaults: the small discriminator's shape.
    defaults={"num_hidden_layers": 1},
    layouts={"cross": {"is_decoder": True, "add_cross_attention": True},
             "untied": {"tie_word_embeddings": False},
             # E = D: no embeddings_project.
             "unprojected": {"embedding_size": 16},
             "no-summary": {"summary_use_proj": False},
             "summary-labels": {"summary_proj_to_labels": True, "num_labels": 3},
             # Heads that do not divide the width: each head has the floor.
             "heads-5": {"num_attention_heads": 5}},
    configs=configs(),
    examples=30,
)
