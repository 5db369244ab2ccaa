"""Granite: what the reference harness checks (tests/test_reference_families.py). Nothing is Granite's alone: it has
no tests/test_reference_granite.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import grouped_query, maybe_flags, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    config = draw(grouped_query("granite"))
    maybe_flags(draw, config, "attention_bias", "mlp_bias")
    # The four multipliers are numbers the forward uses: they change no count.
    if draw(st.booleans()):
        config |= {"embedding_multiplier": 12.0, "attention_multiplier": 0.015625, "residual_multiplier": 0.22,
                   "logits_scaling": 8.0}
    return config


SPEC = Spec(
    family="granite",
    small={"model_type": "granite", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2},
    real=[("granite-3.3-2b", {"num_hidden_layers": 1})],
    defaults={"num_hidden_layers": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "attention-bias": {"attention_bias": True},
             "mlp-bias": {"mlp_bias": True},
             "all": {"tie_word_embeddings": True, "attention_bias": True, "mlp_bias": True},
             "head-dim": {"head_dim": 24}, "floor": {"hidden_size": 68}, "null-kv": {"num_key_value_heads": None},
             "multipliers": {"embedding_multiplier": 12.0, "attention_multiplier": 0.015625,
                             "residual_multiplier": 0.22, "logits_scaling": 8.0}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"head_dim": None}, "head_dim"),
             ({"head_dim": 0}, "head_dim"),  # builds (projections of 0), but the forward fails
             ({"hidden_size": 4}, "head size of 0"),
             ({"mlp_bias": 1}, "mlp_bias"),  # GraniteConfig is strict about bools
             ({"pad_token_id": 1000}, "pad_token_id")],
    accepted=[{"num_labels": 0}, {"embedding_multiplier": 12}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows(),  # as OLMo 2's: a sliding_window in config.json makes the cache keep a window
)
