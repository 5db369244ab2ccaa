"""Qwen2 and Qwen2.5: the model cards' and the release post's figures, symbolic identities.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/qwen2.py, run by the reference harness, recomputes every total on the meta device).
"""

import sympy

from derivations import configs, registry
from derivations.families import llama, qwen2
from derivations.symbols import D, F, H, K, L, V, d_h


def test_the_cards_small_sizes_round_from_the_exact_counts():
    # The Qwen2.5 model cards [cite: hub-qwen, Qwen2.5-0.5B to -3B "Number of Parameters"]: 0.49B, 1.54B, 3.09B,
    # and without embeddings 0.36B, 1.31B, 2.77B.
    for name, total, non_embedding in (("qwen2.5-0.5b", 49, 36), ("qwen2.5-1.5b", 154, 131),
                                       ("qwen2.5-3b", 309, 277)):
        resolved = registry.checkpoint(name)
        assert round(resolved.total / 10**7) == total
        assert round(qwen2.non_embedding.count(resolved.values) / 10**7) == non_embedding


def test_non_embedding_leaves_out_both_tables_of_an_untied_model():
    # 7.61B - 6.53B = 1.08B, two tables of 152,064 x 3,584 (1.09B) to the card's precision [cite: hub-qwen].
    values = registry.checkpoint("qwen2.5-7b").values
    gap = registry.checkpoint("qwen2.5-7b").total - qwen2.non_embedding.count(values)
    assert gap == 2 * 152_064 * 3_584


def test_the_release_post_7b_is_one_table_short():
    # The Qwen2 post [cite: qwen2-blog]: "7.07B" and "5.98B" for Qwen2-7B, whose config.json (tie_word_embeddings
    # false, vocab_size 152,064, hidden_size 3,584) gives it two tables.
    total = registry.checkpoint("qwen2-7b").total
    assert round((total - 152_064 * 3_584) / 10**7) == 707
    assert round((total - 3 * 152_064 * 3_584) / 10**7) == 598
    for miscount in qwen2.FAMILY.miscounts:
        miscount.check()


def test_qwen2_and_qwen25_share_their_sizes():
    # Qwen2.5 kept Qwen2's shapes for 0.5B, 1.5B, 7B and 72B (the two reports' Table 1).
    for size in ("0.5b", "1.5b", "7b", "72b"):
        assert registry.checkpoint(f"qwen2-{size}").values == registry.checkpoint(f"qwen2.5-{size}").values


def test_the_layer_is_llamas_with_qkv_biases():
    assert sympy.expand(qwen2.layer.total - llama.layer.total - (H * d_h + 2 * K * d_h)) == 0


def test_causal_lm_closed_form():
    layer = 2 * D + D * H * d_h + H * d_h + 2 * (D * K * d_h + K * d_h) + H * d_h * D + 3 * D * F
    assert sympy.expand(qwen2.ARCHITECTURES["Qwen2ForCausalLM"].total - (2 * V * D + L * layer + D)) == 0
    assert sympy.expand(qwen2.ARCHITECTURES["Qwen2ForCausalLM"].total - qwen2.Qwen2ForCausalLM_tied.total - V * D) == 0


def test_tied_checkpoints_build_the_tied_layout():
    for name in qwen2.FAMILY.checkpoints:
        tied = configs.load(name)["tie_word_embeddings"]
        assert tied == (name in qwen2.TIED_CHECKPOINTS)
