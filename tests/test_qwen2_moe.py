"""Qwen2-MoE: the release posts' figures, the active count and its convention, the dense layers, identities.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/qwen2_moe.py, tests/test_reference_qwen_moe.py).
"""

import sympy

from derivations import configs, registry
from derivations.families import qwen2_moe
from derivations.symbols import D, F_e, L, L_f, X, X_a


def test_the_posts_figures():
    # [cite: qwen15-moe-blog]: its table's 14.3 (billion) parameters and 2.7 activated, and "only 2.0 billion
    # non-embedding parameters" (activated): the exact count truncated, not rounded;
    # [cite: qwen2-blog]: Qwen2-57B-A14B, "57.41B", "56.32B" without embeddings.
    small, large = registry.checkpoint("qwen1.5-moe-a2.7b"), registry.checkpoint("qwen2-57b-a14b")
    assert round(small.total / 10**8) == 143
    assert round(qwen2_moe.ACTIVE["Qwen2MoeForCausalLM"].count(small.values) / 10**8) == 27
    active_non_embedding = qwen2_moe.ACTIVE["Qwen2MoeForCausalLM"].count(small.values) - 2 * 151_936 * 2_048
    assert active_non_embedding // 10**8 == 20 and round(active_non_embedding / 10**8) == 21
    assert round(large.total / 10**7) == 5741
    assert round((large.total - 2 * 151_936 * 3_584) / 10**7) == 5632


def test_every_released_layer_holds_experts():
    assert all(registry.checkpoint(name).values[L_f] == 0 for name in qwen2_moe.FAMILY.checkpoints)


def test_idle_experts():
    gap = qwen2_moe.ARCHITECTURES["Qwen2MoeForCausalLM"].total - qwen2_moe.ACTIVE["Qwen2MoeForCausalLM"].total
    assert sympy.factor(gap - (L - L_f) * (X - X_a) * 3 * D * F_e) == 0


def test_dense_layers_follow_the_config():
    # Layer i holds experts unless it is in mlp_only_layers or (i + 1) % decoder_sparse_step != 0.
    config = configs.load("qwen1.5-moe-a2.7b")
    for extra, dense in (({"decoder_sparse_step": 2}, 12), ({"mlp_only_layers": [0, 5, 99]}, 2),
                         ({"decoder_sparse_step": 3, "mlp_only_layers": [2]}, 17), ({"num_experts": 0}, 24)):
        assert registry.resolve(config | extra).values[L_f] == dense, extra
