"""Llama 4's language model: what the reference harness checks (tests/test_reference_families.py). The model cards'
figures are in tests/test_llama4_text.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags

CHUNKED, FULL = "chunked_attention", "full_attention"

# Three layers, so that dense and expert layers mix where the layouts ask; the experts' width differs from the dense
# layers' (intermediate_size against intermediate_size_mlp).
SIZES = {"model_type": "llama4_text", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 16,
         "intermediate_size_mlp": 48, "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2,
         "head_dim": 8, "num_local_experts": 4, "num_experts_per_tok": 2}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 3))
    heads = kv_heads * draw(st.integers(1, 3))
    experts = draw(st.integers(1, 5))
    layers = draw(st.integers(1, 4))
    config = {"model_type": "llama4_text", "vocab_size": draw(st.integers(1, 3000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": draw(st.integers(1, 64)), "head_dim": draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 32)), "intermediate_size_mlp": draw(st.integers(1, 64)),
              "num_hidden_layers": layers, "num_local_experts": experts,
              "num_experts_per_tok": draw(st.integers(0, experts))}
    if draw(st.booleans()):
        config["moe_layers"] = draw(st.lists(st.integers(0, layers), max_size=3))
    else:
        config["interleave_moe_layer_step"] = draw(st.integers(1, 3))
    maybe_flags(draw, config, "attention_bias", "tie_word_embeddings")
    return config


def windows(data: st.DataObject, config: dict, layers: int) -> None:
    """A chunk size, and which layers are chunked: by layer_types, by no_rope_layers or by no_rope_layer_interval."""
    config["attention_chunk_size"] = data.draw(st.integers(1, 48), label="attention_chunk_size")
    how = data.draw(st.sampled_from(["types", "rope", "interval"]), label="how")
    if how == "types":
        config["layer_types"] = data.draw(st.lists(st.sampled_from([CHUNKED, FULL]), min_size=layers,
                                                   max_size=layers), label="layer_types")
    elif how == "rope":
        config["no_rope_layers"] = data.draw(st.lists(st.sampled_from([0, 1]), min_size=layers, max_size=layers),
                                             label="no_rope_layers")
    else:
        config["no_rope_layer_interval"] = data.draw(st.integers(1, 4), label="no_rope_layer_interval")


SPEC = Spec(
    family="llama4_text",
    small=SIZES,
    real=[("llama-4-scout-17b-16e-text", {"num_hidden_layers": 2, "moe_layers": [0, 1], "no_rope_layers": [1, 0],
                                          "num_local_experts": 2}),
          ("llama-4-maverick-17b-128e-text", {"num_hidden_layers": 2, "num_local_experts": 2})],
    defaults={"num_hidden_layers": 1},
    layouts={"small": {}, "interleaved": {"interleave_moe_layer_step": 2}, "listed": {"moe_layers": [0, 2, 7, 0]},
             "dense": {"moe_layers": []}, "bias": {"attention_bias": True}, "tied": {"tie_word_embeddings": True},
             "top-0": {"num_experts_per_tok": 0}, "no-qk-norm": {"use_qk_norm": False},
             "odd-width": {"hidden_size": 66}, "nope": {"no_rope_layers": [0, 1, 0]}},
    refused=[({"num_key_value_heads": 3}, "num_key_value_heads"),
             ({"head_dim": 7}, "head size"),
             ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
             ({"head_dim": None}, "head_dim"),
             ({"num_key_value_heads": None}, "num_key_value_heads"),
             ({"interleave_moe_layer_step": 0}, "interleave_moe_layer_step"),
             ({"attention_chunk_size": None}, "attention_chunk_size"),
             ({"no_rope_layers": [1, 0]}, "no_rope_layers")],
    # A step above the layers leaves every layer dense; a negative one too (range() counts down from step - 1).
    accepted=[{"interleave_moe_layer_step": 5}, {"interleave_moe_layer_step": -1}, {"moe_layers": [-1, 9]}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows,
)
