"""Mixtral: what the reference harness checks (tests/test_reference_families.py). What only Mixtral has (its stacked
experts, the active count measured on the model and by running one token, the Mistral 7B of its paper) is in
tests/test_reference_mixtral.py."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels, windows

# The config the layouts change: 32 heads, MixtralConfig's defaults for the rest (8 experts, 8 key/value heads).
SMALL = {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 128, "intermediate_size": 96,
         "num_attention_heads": 32, "vocab_size": 500}
# The refused and accepted edges run on the CPU: a smaller model, every size of SMALL replaced (SMALL | RUNS | edge
# is the config that the edge changes).
RUNS = {"hidden_size": 32, "intermediate_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2,
        "vocab_size": 50, "num_local_experts": 4}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    kv_heads, groups = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    heads = kv_heads * groups  # key/value heads divide the heads
    experts = draw(st.integers(1, 8))
    config = {"model_type": "mixtral", "vocab_size": draw(st.integers(1, 1000)),
              "num_hidden_layers": draw(st.integers(1, 2)), "intermediate_size": draw(st.integers(1, 64)),
              "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "num_experts_per_tok": draw(st.integers(0, experts))}
    config["num_experts" if draw(st.booleans()) else "num_local_experts"] = experts
    if draw(st.booleans()):
        # head_dim set (even, for the rotary embedding): the heads need not cover the hidden size.
        config["head_dim"] = 2 * draw(st.integers(1, 16))
        config["hidden_size"] = draw(st.integers(1, 128))
    else:
        # head_dim null: hidden_size // heads, even; hidden_size need not be a multiple of the heads.
        config["hidden_size"] = heads * 2 * draw(st.integers(1, 8)) + draw(st.integers(0, heads - 1))
        if draw(st.booleans()):
            config["head_dim"] = None
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="mixtral",
    small=SMALL,
    every_class_on_checkpoints=True,
    # MixtralConfig's defaults are Mixtral-8x7B's sizes; two layers keep the build small.
    defaults={"num_hidden_layers": 2},
    layouts={"tied": {"tie_word_embeddings": True}, "token-no-bias": {"token_classification_bias": False},
             "both": {"tie_word_embeddings": True, "token_classification_bias": False},
             "head-dim": {"head_dim": 32},
             "head-dim-0": {"head_dim": 0},  # MixtralAttention reads 0 as "not set": hidden_size // num_attention_heads
             "num-experts": {"num_experts": 3},  # MixtralConfig.attribute_map: num_experts sets num_local_experts
             "alias-wins": {"num_experts": 3, "num_local_experts": 5},  # ... and wins over it
             "one-expert": {"num_local_experts": 1, "num_experts_per_tok": 1},
             # not a multiple of the heads: each head has the floor, 4 (q_proj has 128 rows)
             "floor": {"hidden_size": 130}},
    # transformers 5.23 refuses each or builds a model whose forward pass fails.
    refused=[(RUNS | {"num_attention_heads": 6, "num_key_value_heads": 4}, "not a multiple of num_key_value_heads"),
             (RUNS | {"num_key_value_heads": None}, "num_key_value_heads"),  # a plain int in MixtralConfig
             (RUNS | {"num_experts_per_tok": 9}, "more than num_local_experts"),  # torch.topk: k out of range
             (RUNS | {"num_experts": 2, "num_experts_per_tok": 3}, "more than num_experts"),  # the alias, named
             (RUNS | {"num_local_experts": 0, "num_experts_per_tok": 0}, "num_local_experts"),  # no expert to route to
             (RUNS | {"head_dim": 7}, "even"),  # MixtralConfig's RoPE check
             # builds, cannot run
             (RUNS | {"hidden_size": 28, "num_attention_heads": 4, "num_key_value_heads": 4}, "even"),
             (RUNS | {"hidden_size": 2, "num_attention_heads": 4, "num_key_value_heads": 1}, "head size of 0")],
    # Edges the reader accepts because transformers builds and runs them: head_dim 0 read as unset, a router
    # that picks no expert (the experts add nothing), heads that do not divide the width (each has the floor).
    # (A hidden size whose float32 rows are not a multiple of 16 bytes, such as 34, fails in the default
    # grouped-matmul experts kernel but runs with experts_implementation "eager": not the config's fault.)
    accepted=[RUNS | {"head_dim": 0}, RUNS | {"num_experts_per_tok": 0},
              RUNS | {"num_attention_heads": 3, "num_key_value_heads": 1}],
    configs=configs(),
    # Meta-device builds take ~20 ms each.
    examples=50,
    runs=reference.builds_and_runs,
    windows=windows(),
)
