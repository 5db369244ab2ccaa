"""Falcon: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """The three layouts (multi-query, multi-head, the new decoder architecture with K dividing H), sequential or
    parallel, with one or two norms, biases or none, rotary or ALiBi (even heads, which the rotation needs: an odd
    head above 1 runs with ALiBi alone)."""
    kv, group, head = draw(st.integers(1, 4)), draw(st.integers(1, 3)), 2 * draw(st.integers(1, 12))
    heads = kv * group
    config = {"model_type": "falcon", "vocab_size": draw(st.integers(1, 60000)),
              "num_hidden_layers": draw(st.integers(1, 3)), "num_attention_heads": heads}
    config[draw(st.sampled_from(["hidden_size", "n_embed"]))] = heads * head
    kind = draw(st.sampled_from(["multi_query", "multi_head", "new"]))
    if kind == "new":
        config |= {"new_decoder_architecture": True, "num_kv_heads": kv, "parallel_attn": True,
                   "num_ln_in_parallel_attn": draw(st.sampled_from([None, 1, 2]))}
    else:
        config |= {"multi_query": kind == "multi_query", "parallel_attn": draw(st.sampled_from([True, False, None]))}
    if draw(st.booleans()):
        config["ffn_hidden_size"] = draw(st.integers(1, 512))
    maybe_flags(draw, config, "bias", "alibi", "tie_word_embeddings")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="falcon",
    small={"model_type": "falcon", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "vocab_size": 500},
    every_class_on_checkpoints=True,
    defaults={"num_hidden_layers": 1},
    layouts={"multi-head": {"multi_query": False}, "bias": {"bias": True}, "untied": {"tie_word_embeddings": False},
             "sequential": {"parallel_attn": False}, "null-switches": {"multi_query": None, "parallel_attn": None,
                                                                       "bias": None},
             "new": {"new_decoder_architecture": True, "num_kv_heads": 2},
             "new-one-norm": {"new_decoder_architecture": True, "num_kv_heads": 2, "num_ln_in_parallel_attn": 1},
             "new-kv-default": {"new_decoder_architecture": True},
             "alibi": {"alibi": True, "bias": True, "multi_query": False, "parallel_attn": False},
             "ffn": {"ffn_hidden_size": 100}, "n-embed": {"n_embed": 32}},
    refused=[({"num_attention_heads": 5}, "not a multiple"),
             ({"new_decoder_architecture": True, "num_kv_heads": 3}, "not a multiple of num_kv_heads"),
             ({"new_decoder_architecture": True, "num_ln_in_parallel_attn": 3}, "num_ln_in_parallel_attn"),
             ({"num_ln_in_parallel_attn": 2}, "needs new_decoder_architecture"),
             ({"multi_query": False, "num_kv_heads": 2}, "num_kv_heads"),
             ({"bias": "no"}, "bias"),
             # A head of 3 builds, and the rotation fails on its halves; the new architecture without parallel
             # attention builds the sequential norms, and its layer reads ln_attn.
             ({"hidden_size": 12}, r"head size \(3\) must be even"),
             ({"new_decoder_architecture": True, "num_kv_heads": 2, "parallel_attn": False}, "needs parallel_attn")],
    accepted=[{"num_ln_in_parallel_attn": 1}, {"num_ln_in_parallel_attn": 3}, {"parallel_attn": False,
              "num_ln_in_parallel_attn": 2}, {"hidden_size": 4, "num_attention_heads": 4},
              {"multi_query": False, "num_kv_heads": 4}, {"hidden_size": 12, "alibi": True}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
