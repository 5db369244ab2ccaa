"""BLOOM: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    config = {"model_type": "bloom", "vocab_size": draw(st.integers(1, 60000))}
    # The width under its own name, or under n_embed (BigScience's files), which wins; the depth and the heads
    # under their own names or under those attribute_map gives them.
    config[draw(st.sampled_from(["hidden_size", "n_embed"]))] = heads * head_size
    config[draw(st.sampled_from(["n_layer", "num_hidden_layers"]))] = draw(st.integers(1, 3))
    config[draw(st.sampled_from(["n_head", "num_attention_heads"]))] = heads
    maybe_flags(draw, config, "tie_word_embeddings", "apply_residual_connection_post_layernorm")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="bloom",
    small={"model_type": "bloom", "n_layer": 2, "hidden_size": 64, "n_head": 4, "vocab_size": 500},
    every_class_on_checkpoints=True,
    # BloomConfig's defaults are a tiny model (2 layers, 64 wide) with BLOOM's vocabulary.
    defaults={},
    layouts={"untied": {"tie_word_embeddings": False},
             "n-embed-wins": {"n_embed": 96, "hidden_size": 64},
             "n-embed-null": {"n_embed": None},
             "post-layernorm-residual": {"apply_residual_connection_post_layernorm": True}},
    refused=[({"n_head": 5}, "not a multiple"), ({"n_embed": 90}, "n_embed \\(90\\) is not a multiple"), ({"n_embed": "x"}, "n_embed"),
             ({"tie_word_embeddings": "no"}, "tie_word_embeddings"), ({"hidden_size": 0}, "hidden_size")],
    accepted=[{"n_embed": None}, {"num_attention_heads": 2}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
