"""gpt-oss: what the reference harness checks (tests/test_reference_families.py). Nothing is gpt-oss's alone: it has
no tests/test_reference_gpt_oss.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags, maybe_labels, windows


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    experts = draw(st.integers(1, 6))
    config = {"model_type": "gpt_oss", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": draw(st.integers(1, 96)), "head_dim": draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 64)), "num_hidden_layers": draw(st.integers(1, 3)),
              "num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts))}
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gpt_oss",
    small={"model_type": "gpt_oss", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 32,
           "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 8,
           "num_local_experts": 4, "num_experts_per_tok": 2},
    defaults={"num_hidden_layers": 1},
    layouts={"small": {}, "no-bias": {"attention_bias": False}, "tied": {"tie_word_embeddings": True},
             "no-token-bias": {"token_classification_bias": False}, "alias": {"num_experts": 3},
             "odd-width": {"hidden_size": 66}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
             ({"head_dim": None}, "head_dim"),
             ({"num_key_value_heads": None}, "num_key_value_heads")],
    # The router may pick no expert: transformers builds and runs it, and the experts add nothing.
    accepted=[{"num_experts_per_tok": 0}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows("layer_types"),
)
