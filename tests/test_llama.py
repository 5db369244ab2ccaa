"""LLaMA: published totals, the feed-forward width rule, symbolic identities and reconciled claims.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/llama.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import registry

from derivations.families import llama
from derivations.symbols import D, F, H, K, L, V, d_h

# Exact totals of LlamaForCausalLM, each with where it was printed.
PUBLISHED = {
    # PEFT's print_trainable_parameters() on meta-llama/Llama-2-7b-hf: "all params: 6,738,415,616"
    # (measured by third parties, many copies).
    "llama-2-7b": 6_738_415_616,
    # The same printout for Llama-2-70b-hf, as the output shown in third-party QLoRA tutorials:
    # "all params: 68,976,648,192", and hand-computed from the released config [cite: hub-meta-llama].
    "llama-2-70b": 68_976_648_192,
    # The Hugging Face hub's safetensors metadata for Llama 3 8B (and 3.1 8B, the same shapes):
    # "8,030,261,248 parameters" (quoted by third-party model cards), also PEFT's "all params: 8,030,261,248".
    "llama-3-8b": 8_030_261_248,
    # The hub's safetensors metadata for meta-llama/Llama-3.3-70B (Llama 3 70B's shapes), as queried through
    # the hub API (?expand=safetensors) in third-party notes: 70,553,706,496.
    "llama-3-70b": 70_553_706_496,
}


@pytest.mark.parametrize("checkpoint", PUBLISHED)
def test_published_totals(checkpoint):
    assert registry.checkpoint(checkpoint, "LlamaForCausalLM").total == PUBLISHED[checkpoint]


def test_llama2_7b_per_layer():
    # Shared reference A9, by hand from the config: one layer 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096
    # = 202,383,360; embeddings (and the head) 32000 x 4096 = 131,072,000.
    values = registry.checkpoint("llama-2-7b").values
    assert llama.layer.count(values) == 4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096 == 202_383_360
    assert llama.token_embeddings.count(values) == 32000 * 4096 == 131_072_000


def test_llama1_is_llama2_at_7b():
    # Same shapes (only the context differs, and rotary positions learn nothing).
    assert registry.checkpoint("llama-7b").total == registry.checkpoint("llama-2-7b").total


# The published feed-forward widths (intermediate_size of the HF configs, hidden_dim of the model
# cards) and Meta's (dim, multiple_of, ffn_dim_multiplier): LLaMA-1 MODEL_CARD.md and llama/model.py at
# 1076b9c (multiple_of 256, no multiplier); Llama 2 70B params.json as quoted in llama.cpp's convert.py;
# Llama 3 params.json files in meta-llama/llama3.
WIDTHS = {
    "LLaMA-1 7B": (4096, 256, 1, 11008),
    "LLaMA-1 13B": (5120, 256, 1, 13824),
    "LLaMA-1 33B": (6656, 256, 1, 17920),
    "LLaMA-1 65B": (8192, 256, 1, 22016),
    "Llama-2-70B": (8192, 4096, sympy.Rational(13, 10), 28672),
    "Llama-3-8B": (4096, 1024, sympy.Rational(13, 10), 14336),
    "Llama-3-70B": (8192, 4096, sympy.Rational(13, 10), 28672),
}


@pytest.mark.parametrize("model", WIDTHS)
def test_meta_width_rule(model):
    dim, multiple_of, multiplier, published = WIDTHS[model]
    assert llama.width(dim, multiple_of, multiplier) == published


def meta_code(dim: int, multiple_of: int, multiplier: float | None) -> int:
    """Meta's FeedForward, in plain Python, as written in llama/model.py."""
    hidden_dim = int(2 * (4 * dim) / 3)
    if multiplier is not None:
        hidden_dim = int(multiplier * hidden_dim)
    return multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)


@pytest.mark.parametrize("dim", [256, 288, 512, 768, 1000, 2048, 3072, 4096, 5120, 6656, 8192, 16384])
@pytest.mark.parametrize("multiple_of, multiplier", [(1, None), (32, None), (256, None), (256, 1.3),
                                                     (1024, 1.3), (4096, 1.3), (4096, 1.2)])
def test_meta_width_is_metas_code(dim, multiple_of, multiplier):
    exact = sympy.Rational(str(multiplier)) if multiplier is not None else 1
    assert llama.width(dim, multiple_of, exact) == meta_code(dim, multiple_of, multiplier)


@pytest.mark.parametrize("checkpoint", llama.PARAMS)
def test_bundled_widths_follow_the_rule(checkpoint):
    dim, multiple_of, multiplier, _source = llama.PARAMS[checkpoint]
    values = registry.checkpoint(checkpoint).values
    assert values[D] == dim
    assert values[F] == llama.width(dim, multiple_of, multiplier)


def test_llama2_70b_needs_the_multiplier():
    # Without ffn_dim_multiplier 1.3, multiple_of 4096 would give 24576, not 28672.
    assert llama.width(8192, 4096) == 24576


def test_gated_ffn_keeps_the_plain_count_before_rounding():
    # 3 D F = 8 D^2 at F = 8D/3: the two-thirds in Meta's rule.
    assert sympy.solve(llama.plain_equivalent, F) == [8 * D / 3]


def test_layer_closed_form():
    expected = 2 * D + D * H * d_h + 2 * D * K * d_h + H * d_h * D + 3 * D * F
    assert sympy.expand(llama.layer.total - expected) == 0


def test_grouped_query_saves_keys_and_values():
    saved = llama.layer_multi_head.total - llama.layer_standard.total
    assert sympy.simplify(saved - 2 * D * (H - K) * D / H) == 0


def test_biases():
    plain = llama.VARIANTS[""]["LlamaModel"].total
    extra = llama.VARIANTS["attention_bias+mlp_bias"]["LlamaModel"].total - plain
    assert sympy.expand(extra - L * (H * d_h + 2 * K * d_h + D + 2 * F + D)) == 0


def test_the_tied_head_adds_nothing():
    assert llama.LlamaForCausalLM_tied.total == llama.ARCHITECTURES["LlamaModel"].total
    assert sympy.expand(llama.ARCHITECTURES["LlamaForCausalLM"].total - llama.ARCHITECTURES["LlamaModel"].total) == V * D


def test_tied_checkpoints_resolve_to_the_tied_layout():
    for name in llama.TIED_CHECKPOINTS:
        assert registry.checkpoint(name).part is llama.LlamaForCausalLM_tied


# ---------------------------------------------------------------------------------------------
# Published figures and miscounts
# ---------------------------------------------------------------------------------------------

def test_paper_table_2():
    # Touvron et al. 2023, Table 2: 6.7B, 13.0B, 32.5B, 65.2B. The last does not round from the exact
    # count; all four agree with truncation.
    assert [c.claim for c in llama.PAPER] == [6_700_000_000, 13_000_000_000, 32_500_000_000, 65_200_000_000]
    assert [c.rounds() for c in llama.PAPER] == [True, True, True, False]
    assert all(c.exact() // 10**8 * 10**8 == c.claim for c in llama.PAPER)


def test_release_names():
    # "70B" names 69.0 and 70.6 billion: a name, not a rounding.
    assert {c.checkpoint: c.rounds() for c in llama.NAMES} == {
        "llama-2-7b": True, "llama-2-13b": True, "llama-2-70b": False, "llama-3-8b": True, "llama-3-70b": False}


@pytest.mark.parametrize("item", llama.FAMILY.miscounts, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(item):
    item.check()


def test_transformerlens_formula():
    # HookedTransformerConfig ([cite: transformerlens-448]): n_layers * d_model * d_head * n_heads * 4
    # + n_layers * d_model * d_mlp * 2, for LLaMA-7B.
    assert 32 * 4096 * 128 * 32 * 4 + 32 * 4096 * 11008 * 2 == llama.two_matrix_mlp.claim


def test_quantized_count_in_plain_numbers():
    # [cite: bitsandbytes-834] prints 3,540,389,888 for Llama-2-7B in 4 bits.
    linear = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
    kept = 2 * 32000 * 4096 + (2 * 32 + 1) * 4096
    lora = 32 * 16 * (4 * (4096 + 4096) + 3 * (4096 + 11008))
    assert linear // 2 + kept == 3_500_412_928
    assert linear // 2 + kept + lora == llama.quantized_4bit.claim


def test_issue_1111_arithmetic():
    # [cite: llama-1111]: 80 x (4 x 8192 x 8192 + 3 x 8192 x 28672) + 32000 x 8192 "~78B".
    assert 80 * (4 * 8192**2 + 3 * 8192 * 28672) + 32000 * 8192 == llama.gqa_ignored.claim
