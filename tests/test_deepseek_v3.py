"""DeepSeek-V3: 671B and 37B, the router biases, the MTP module and 685B.

Expected values come from outside the project: the paper [cite: deepseek2024v3], the model page and the released
config [cite: hub-deepseek], DeepSeek's code [cite: deepseek-v3-code], and transformers
(tests/specs/deepseek_v3.py, tests/test_reference_deepseek.py).
"""

from derivations import registry
from derivations.families import deepseek_v3


def test_the_papers_total_and_active_count():
    # "671B total parameters with 37B activated for each token": 37B without the input embedding.
    resolved = registry.checkpoint("deepseek-v3")
    assert round(resolved.total / 10**9) == 671
    assert round(deepseek_v3.active_without_embedding.count(resolved.values) / 10**9) == 37
    assert round(deepseek_v3.ACTIVE["DeepseekV3ForCausalLM"].count(resolved.values) / 10**9) == 38


def test_the_router_biases_are_58_layers_of_256():
    # 61 layers, first_k_dense_replace 3, n_routed_experts 256 (config.json).
    values = registry.checkpoint("deepseek-v3").values
    assert deepseek_v3.router_bias.count(values) == (61 - 3) * 256 == 14_848


def test_the_mtp_module_and_the_files():
    values = registry.checkpoint("deepseek-v3").values
    mtp = deepseek_v3.mtp_module.count(values)
    assert round(mtp / 10**9) == 13  # the page's "14B" is 685 - 671
    assert round(deepseek_v3.checkpoint_count.count(values) / 10**9) == 684
    assert round(deepseek_v3.stored_tensors.count(values) / 10**9) == 685
