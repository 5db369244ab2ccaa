"""DeepSeek-V2: the paper's totals and activated counts, and the convention that decides V2-Lite's; identities.

Expected values come from outside the project: the paper [cite: deepseek2024v2], the released configs
[cite: hub-deepseek], and transformers (tests/specs/deepseek_v2.py, tests/test_reference_deepseek.py).
"""

import sympy

from derivations import registry
from derivations.families import deepseek_v2
from derivations.symbols import D, F_e, L, L_f, X, X_a


def test_the_papers_totals():
    # "236B total parameters"; V2-Lite "15.7B parameters in total".
    assert round(registry.checkpoint("deepseek-v2").total / 10**9) == 236
    assert round(registry.checkpoint("deepseek-v2-lite").total / 10**8) == 157


def test_the_papers_activated_counts():
    # "21B are activated for each token"; V2-Lite "2.4B are activated": the input embedding decides it.
    v2 = registry.checkpoint("deepseek-v2").values
    assert round(deepseek_v2.ACTIVE["DeepseekV2ForCausalLM"].count(v2) / 10**9) == 21
    lite = registry.checkpoint("deepseek-v2-lite").values
    with_embedding = deepseek_v2.ACTIVE_lite.count(lite)
    without = with_embedding - 102_400 * 2_048
    assert with_embedding // 10**8 == 26 and without // 10**8 == 24


def test_idle_experts():
    gap = deepseek_v2.ARCHITECTURES["DeepseekV2ForCausalLM"].total - deepseek_v2.ACTIVE["DeepseekV2ForCausalLM"].total
    assert sympy.factor(gap - (L - L_f) * (X - X_a) * 3 * D * F_e) == 0


def test_latent_attention_is_smaller_than_multi_head():
    values = registry.checkpoint("deepseek-v2").values
    assert deepseek_v2.attention_block.count(values) < deepseek_v2.multi_head_equivalent.count(values)
