"""Qwen3-MoE: the model cards' figures and the active count's convention, identities.

Expected values come from outside the project: the model cards [cite: hub-qwen, Qwen3-30B-A3B and Qwen3-235B-A22B
model cards], and transformers (tests/specs/qwen3_moe.py, tests/test_reference_qwen_moe.py).
"""

import sympy

from derivations import registry
from derivations.families import qwen2_moe, qwen3_moe
from derivations.symbols import d_h


def test_the_cards_totals_and_non_embedding_counts():
    small, large = registry.checkpoint("qwen3-30b-a3b"), registry.checkpoint("qwen3-235b-a22b")
    assert round(small.total / 10**8) == 305 and round(large.total / 10**9) == 235
    tables = 2 * 151_936
    assert round((small.total - tables * 2048) / 10**8) == 299
    assert round((large.total - tables * 4096) / 10**9) == 234


def test_the_cards_activated_counts_keep_the_input_embedding():
    # "3.3B" and "22B" activated: with the input embedding 3.35 (truncated) and 22.19 billion; without it 3.04 and
    # 21.57 would print 3.0B and 22B.
    small, large = registry.checkpoint("qwen3-30b-a3b").values, registry.checkpoint("qwen3-235b-a22b").values
    active = qwen3_moe.ACTIVE["Qwen3MoeForCausalLM"]
    assert active.count(small) // 10**8 == 33 and round(active.count(large) / 10**9) == 22
    assert round(qwen3_moe.active_without_embedding.count(small) / 10**8) == 30


def test_the_layer_has_no_shared_expert():
    assert sympy.expand(qwen2_moe.moe.total - qwen3_moe.moe.total - qwen2_moe.shared_expert.total
                        - qwen2_moe.shared_expert_gate.total) == 0
    assert d_h in qwen3_moe.layer.total.free_symbols
