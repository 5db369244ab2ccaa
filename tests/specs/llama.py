"""LLaMA: what the reference harness checks (tests/test_reference_families.py). What only LLaMA has is in
tests/test_reference_llama.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import head_sizes, maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))  # K divides H
    config = {"model_type": "llama", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "hidden_size": heads * draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()) or kv_heads != heads:
        config["num_key_value_heads"] = kv_heads
    if draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "attention_bias", "mlp_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="llama",
    small={"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 8},
    # Every class on Llama-3.2-1B's config (GQA, head_dim set, tied), with two layers to keep it quick.
    real=[("llama-3.2-1b", {"num_hidden_layers": 2})],
    defaults={"num_hidden_layers": 1},
    layouts={"attention-bias": {"attention_bias": True}, "mlp-bias": {"mlp_bias": True},
             "tied": {"tie_word_embeddings": True}, "no-token-bias": {"token_classification_bias": False},
             "all": {"attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True,
                     "token_classification_bias": False},
             "head-dim": {"head_dim": 24, "num_key_value_heads": 2}},  # a head size that is not hidden / heads
    # transformers 5.23 refuses each (config class or constructor) or builds a model whose forward pass fails.
    refused=[({"hidden_size": 66}, "not a multiple of num_attention_heads"),  # LlamaConfig.validate_architecture
             ({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
             ({"head_dim": 0}, "head_dim"),  # LlamaAttention takes 0 as it is: the rotary embedding divides by it
             ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates (the config's RoPE check)
             ({"hidden_size": 56}, "head size"),  # 56 / 8 = 7, the same
             ({"hidden_size": 24}, "head size"),  # 24 / 8 = 3: the RoPE check lets it through, the forward fails
             ({"attention_bias": 1}, "attention_bias"),  # LlamaConfig is strict about bools
             ({"pad_token_id": 1000}, "pad_token_id")],  # nn.Embedding's padding_idx assertion
    accepted=[{"num_key_value_heads": None}, {"hidden_size": 8}, {"num_labels": 0},
              {"head_dim": 1}],  # a head of 1: the rotary embedding's width 2 broadcasts over it
    configs=configs(),
    examples=50,
    runs=reference.builds_and_runs,
)
