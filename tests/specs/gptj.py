"""GPT-J: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """Heads that divide the width (GPTJAttention requires it), an even rotary part of each head, the inner width
    drawn or left null (4 n_embd), under GPT-J's own names or attribute_map's."""
    heads, head = draw(st.integers(1, 8)), 2 * draw(st.integers(1, 16))
    width, names = heads * head, draw(st.booleans())
    config = {"model_type": "gptj", "vocab_size": draw(st.integers(1, 5000)),
              ("hidden_size" if names else "n_embd"): width, ("num_attention_heads" if names else "n_head"): heads,
              ("num_hidden_layers" if names else "n_layer"): draw(st.integers(1, 3)),
              "rotary_dim": 2 * draw(st.integers(1, head // 2))}
    if draw(st.booleans()):
        config["n_inner"] = draw(st.one_of(st.none(), st.integers(1, 256)))
    maybe_flags(draw, config, "tie_word_embeddings")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="gptj",
    small={"model_type": "gptj", "vocab_size": 1000, "n_embd": 64, "n_inner": 96, "n_layer": 2, "n_head": 4,
           "rotary_dim": 8, "n_positions": 128},
    real=[("gpt-j-6b", {"n_layer": 1})],
    # GPTJConfig's defaults are GPT-J-6B's sizes.
    defaults={"n_layer": 1},
    layouts={"tied": {"tie_word_embeddings": True}, "inner-null": {"n_inner": None},
             "aliases": {"hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 1},
             "labels": {"num_labels": 5}, "whole-head": {"rotary_dim": 16}},
    refused=[({"n_head": 5}, "not a multiple"),  # GPTJAttention requires the heads to divide the width
             ({"rotary_dim": 7}, "rotary_dim"),  # the rotation turns pairs
             ({"rotary_dim": 32}, "rotary_dim"),  # more than a head of 16
             ({"rotary_dim": None}, "rotary_dim"),  # the whole width's angles on a head
             ({"tie_word_embeddings": 1}, "tie_word_embeddings")],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
