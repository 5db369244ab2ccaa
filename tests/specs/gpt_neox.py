"""GPT-NeoX: what the reference harness checks (tests/test_reference_families.py). What only GPT-NeoX has is in
tests/test_reference_gpt_neox.py."""

from collections.abc import Mapping

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    config = {"model_type": "gpt_neox", "vocab_size": draw(st.integers(1, 60000)),
              "num_hidden_layers": draw(st.integers(1, 3)), "hidden_size": heads * head_size,
              "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 1024)),
              "rotary_pct": draw(st.sampled_from([0.25, 0.5, 1.0, 1]))}
    maybe_flags(draw, config, "tie_word_embeddings", "attention_bias", "use_parallel_residual")
    maybe_labels(draw, config)
    return config


def builds(config: Mapping) -> bool:
    """Whether transformers builds GPTNeoXModel from the config (on the meta device): what it refuses, it refuses
    as it builds (GPTNeoXConfig's checks and typed fields, or the constructor), not in a forward pass."""
    try:
        reference.build("GPTNeoXModel", config)
    except Exception:
        return False
    return True


SPEC = Spec(
    family="gpt_neox",
    small={"model_type": "gpt_neox", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "intermediate_size": 96, "vocab_size": 500},
    # The class every bundled config names (GPTNeoXForCausalLM, the main one) on each of them; the meta device holds
    # shapes, not weights (12B and 20B too). And every class on two of them, whole.
    real=[("pythia-70m", {}), ("pythia-1b", {})],
    # GPTNeoXConfig's defaults are GPT-NeoX-20B's sizes: the same count as the bundled gpt-neox-20b.
    defaults={},
    layouts={"tied": {"tie_word_embeddings": True}, "no-attention-bias": {"attention_bias": False},
             "sequential-residual": {"use_parallel_residual": False},
             "all": {"tie_word_embeddings": True, "attention_bias": False, "use_parallel_residual": False,
                     "rotary_pct": 1.0},
             # What transformers accepts is accepted: a boolean is a number to transformers, and -0.01 of a head
             # of 16 rounds to no rotary dimension.
             "rotary-pct-true": {"rotary_pct": True}, "rotary-pct-negative": {"rotary_pct": -0.01},
             "rotary-base-true": {"rotary_emb_base": True}},
    # What transformers refuses as it builds is refused, with the field the reader names.
    refused=[({"num_attention_heads": 5}, "not a multiple"),  # the heads must divide the width
             ({"use_parallel_residual": 1}, "use_parallel_residual"),
             ({"tie_word_embeddings": "no"}, "tie_word_embeddings"),
             ({"attention_bias": None}, "attention_bias"), ({"rotary_pct": "x"}, "rotary_pct"),
             ({"rotary_pct": None}, "rotary_pct"), ({"rotary_pct": -1}, "rotary_pct"),
             ({"rotary_pct": float("nan")}, "rotary_pct"), ({"rotary_pct": float("inf")}, "rotary_pct"),
             ({"rotary_emb_base": None}, "rotary_emb_base"), ({"rope_scaling": "x"}, "rope_scaling")],
    configs=configs(),
    # Meta-device builds take ~20 ms each.
    examples=50,
    runs=builds,
)
