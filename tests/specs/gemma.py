"""Gemma: what the reference harness checks (tests/test_reference_families.py). Gemma 2 and Gemma 3's language model
(tests/specs/gemma2.py, tests/specs/gemma3_text.py) take their sizes and random configs from here: the three
readers share one function. Nothing is Gemma's alone: it has no tests/test_reference_gemma.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags, maybe_labels

# The small config of the three families, without its model_type.
SIZES = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
         "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 16}
# The layouts of the three families: every class on the small config, and each flag.
LAYOUTS = {"small": {}, "untied": {"tie_word_embeddings": False}, "no-token-bias": {"token_classification_bias": False},
           "bias": {"attention_bias": True}, "head-dim": {"head_dim": 2}}


@st.composite
def configs(draw: st.DrawFn, model_type: str) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": model_type, "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(st.integers(1, 16)),
              "head_dim": draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gemma",
    small=SIZES | {"model_type": "gemma"},
    defaults={"num_hidden_layers": 1},
    layouts=LAYOUTS,
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"head_dim": None}, "head_dim")],
    # GemmaConfig has no validate_architecture: Gemma 7B's 16 x 256 in 3,072 is the released case.
    accepted=[{"hidden_size": 68}],
    configs=configs("gemma"),
    examples=40,
    runs=reference.builds_and_runs,
)
