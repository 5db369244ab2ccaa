"""Mixtral: published totals, the active count and its convention, symbolic identities, reconciled claims.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/mixtral.py recomputes every total on the meta device, and tests/test_reference_mixtral.py measures the active count
by running one token through the model).
"""

from dataclasses import replace

import pytest
import sympy

from derivations import components, registry, symbols

from derivations.families import llama, mixtral
from derivations.symbols import D, F, H, K, L, V, X, X_a, d_h

# The total is printed by several third-party repositories; the rest are computed by hand from the released
# config [cite: hub-mistralai]
# (independent of this package, and recomputed by transformers: tests/specs/mixtral.py).
TOTAL_8X7B = 46_702_792_704
ACTIVE_8X7B = 12_879_925_248  # top-2, embedding and head counted
ACTIVE_8X7B_NO_EMBEDDING = 12_748_853_248  # the input embedding left out
ONE_EXPERT, ALL_EXPERTS, ROUTERS = 176_160_768, 45_097_156_608, 1_048_576  # A9's breakdown
MISTRAL_7B = 7_241_732_096  # Mistral-7B-v0.1, MistralForCausalLM (tests/test_mistral.py gives its sources)


def test_published_total():
    assert registry.checkpoint("mixtral-8x7b").total == TOTAL_8X7B


def test_published_active_counts():
    values = registry.checkpoint("mixtral-8x7b").values
    assert mixtral.ACTIVE["MixtralForCausalLM"].count(values) == ACTIVE_8X7B
    assert mixtral.active_without_embedding.count(values) == ACTIVE_8X7B_NO_EMBEDDING


def test_published_breakdown():
    values = registry.checkpoint("mixtral-8x7b").values
    moe = mixtral.ARCHITECTURES["MixtralForCausalLM"].find("MixtralModel.layer.moe")
    assert mixtral.expert.count(values) == ONE_EXPERT
    assert mixtral.all_experts.count(values) == ALL_EXPERTS
    assert values[L] * moe.child("router").count(values) == ROUTERS
    assert values[L] * moe.child("experts").count(values) == ALL_EXPERTS


def test_mistral_7b():
    # Mixtral 8x7B has Mistral 7B's sizes ([cite: jiang2024, Table 1]; [cite: jiang2023, Table 1]).
    assert mixtral.mistral_7b.count(registry.checkpoint("mixtral-8x7b").values) == MISTRAL_7B


def test_checkpoints_read_their_sizes():
    # The sizes of the papers and of Mistral AI's posts: 8 experts, 2 per token; 8x22B 56 layers of 6144.
    small, large = (registry.checkpoint(name).values for name in mixtral.FAMILY.checkpoints)
    assert (small[L], small[D], small[F], small[H], small[K], small[d_h], small[V]) == (
        32, 4096, 14336, 32, 8, 128, 32000)
    assert (large[L], large[D], large[F], large[H], large[K], large[d_h], large[V]) == (
        56, 6144, 16384, 48, 8, 128, 32000)
    assert small[X] == large[X] == 8 and small[X_a] == large[X_a] == 2


# ---------------------------------------------------------------------------------------------
# Symbolic identities
# ---------------------------------------------------------------------------------------------

def test_layer_closed_form():
    attention = D * H * d_h + 2 * D * K * d_h + H * d_h * D
    assert sympy.expand(mixtral.layer.total - (2 * D + attention + D * X + 3 * X * D * F)) == 0


def test_causal_lm_closed_form():
    per_layer = mixtral.layer.total
    assert sympy.expand(mixtral.ARCHITECTURES["MixtralForCausalLM"].total - (2 * V * D + L * per_layer + D)) == 0


def test_active_is_total_minus_idle_experts():
    gap = mixtral.ARCHITECTURES["MixtralForCausalLM"].total - mixtral.ACTIVE["MixtralForCausalLM"].total
    assert sympy.factor(gap) == sympy.factor(3 * L * D * F * (X - X_a))


@pytest.mark.parametrize("layout", mixtral.VARIANTS)
def test_every_expert_active_is_the_total(layout):
    for name, part in mixtral.VARIANTS[layout].items():
        active = mixtral.ACTIVE_VARIANTS[layout][name]
        assert sympy.expand(active.total.subs(X_a, X) - part.total) == 0
        assert X_a not in part.total.free_symbols


def test_active_convention_is_the_components_on_the_per_expert_layout():
    # The stacked layout against the one-module-per-expert layout built with components.mixture_of_experts:
    # the same total, and components.active_per_token on the latter gives this module's active count.
    layer = mixtral.layer
    per_expert_layer = replace(layer, children=tuple(mixtral.moe_per_expert if c.name == "moe" else c
                                                     for c in layer.children))
    per_expert = llama.base_model(per_expert_layer, "MixtralModel", "one module per expert", None)
    assert sympy.expand(per_expert.total - mixtral.ARCHITECTURES["MixtralModel"].total) == 0
    cut = components.active_per_token(per_expert, X, X_a)
    assert sympy.expand(cut.total - mixtral.ACTIVE["MixtralModel"].total) == 0
    # The router stays whole in both.
    assert cut.find("layer.moe.router").total == D * X


def test_without_the_embedding_leaves_out_one_table():
    gap = mixtral.ACTIVE["MixtralForCausalLM"].total - mixtral.active_without_embedding.total
    assert sympy.expand(gap) == V * D


def test_tied_head_counts_once():
    untied, tied = mixtral.VARIANTS[""], mixtral.VARIANTS["tied"]
    assert sympy.expand(untied["MixtralForCausalLM"].total - tied["MixtralForCausalLM"].total) == V * D


def test_one_expert_is_mistral_7b_with_a_router():
    assert sympy.expand(mixtral.ARCHITECTURES["MixtralForCausalLM"].total.subs(X, 1) - mixtral.mistral_7b.total) == L * D


def test_heads_cancel_when_they_cover_the_width():
    # d_h = D / H and K = H: the attention is the 4 D^2 of the original Transformer, without biases.
    attention = mixtral.self_attention.total.subs({d_h: D / H, K: H})
    assert sympy.simplify(attention - 4 * D**2) == 0


# ---------------------------------------------------------------------------------------------
# Reconciled claims
# ---------------------------------------------------------------------------------------------

def test_eight_times_seven():
    claim = mixtral.eight_times_seven
    claim.check()
    values = claim.values()
    assert claim.reconstruction.count(values) == 56_000_000_000
    terms = {t.name: t.count(values) for t in claim.terms}
    # Mistral 7B without its feed-forward, 1,604,587,520, would be stored seven more times by eight models.
    assert terms["shared_once"] == -7 * (MISTRAL_7B - 32 * ONE_EXPERT) == -11_232_112_640
    assert terms["routers"] == ROUTERS
    assert terms["seven"] == 8 * (MISTRAL_7B - 7_000_000_000)
    assert sum(terms.values()) == TOTAL_8X7B - 56_000_000_000
    # Eight whole Mistral 7Bs (the page's 57.9B): still not the total, and not 56B.
    assert mixtral.whole_mistral_7bs.count(values) == 8 * MISTRAL_7B


def test_the_7b_of_the_name_is_no_expert():
    # One expert through all 32 layers holds 5.6B parameters, not 7B; the experts together 45.1B.
    values = registry.checkpoint("mixtral-8x7b").values
    assert mixtral.expert_across_layers.count(values) == 32 * ONE_EXPERT == 5_637_144_576
    assert mixtral.shared.count(values) + mixtral.all_experts.count(values) == TOTAL_8X7B


def test_published_totals_round():
    # Mistral AI "46.7B" and the paper's "47B"; Mixtral 8x22B "141B".
    assert mixtral.total_blog.rounds() and mixtral.total_paper.rounds() and mixtral.total_22b.rounds()
    # The platform docs' "45B" is not the total rounded; the experts alone hold 45.1B.
    assert not mixtral.total_docs.rounds()
    assert round(mixtral.all_experts.count(registry.checkpoint("mixtral-8x7b").values) / 10**9) == 45


def test_published_active_counts_round():
    # "12.9B per token" (Mistral AI) holds only if the input embedding is counted; "13B" (paper) and
    # "39B" (8x22B) hold either way; the platform docs' "about 12B" with neither.
    assert mixtral.active_blog.rounds(0) and not mixtral.active_blog.rounds(1)
    assert mixtral.active_paper.rounds(0) and mixtral.active_paper.rounds(1)
    assert mixtral.active_22b.rounds(0) and mixtral.active_22b.rounds(1)
    assert not mixtral.active_docs.rounds(0) and not mixtral.active_docs.rounds(1)


def test_8x22b_exact():
    # The arithmetic of the 8x22B config done by hand (not through the package): a layer holds
    # attention 2*6144*6144 + 2*6144*1024, a router 6144*8, 8 experts of 3*6144*16384, two norms.
    layer = 2 * 6144 * 6144 + 2 * 6144 * 1024 + 6144 * 8 + 8 * 3 * 6144 * 16384 + 2 * 6144
    total = 2 * 32000 * 6144 + 56 * layer + 6144
    values = registry.checkpoint("mixtral-8x22b").values
    assert mixtral.ARCHITECTURES["MixtralForCausalLM"].count(values) == total == 140_620_634_112
    assert mixtral.ACTIVE["MixtralForCausalLM"].count(values) == total - 56 * 6 * 3 * 6144 * 16384


def test_8x22b_with_the_instruct_configs_vocabulary():
    # mistralai/Mixtral-8x22B-Instruct-v0.1's config.json has vocab_size 32768 ([cite: litgpt-1845]);
    # the content audit gives 140,630,071,296 for that vocabulary. Both round to the release post's 141B.
    values = dict(registry.checkpoint("mixtral-8x22b").values)
    assert values[symbols.V] == 32000
    values[symbols.V] = 32768
    assert mixtral.ARCHITECTURES["MixtralForCausalLM"].count(values) == 140_630_071_296
    assert round(mixtral.ARCHITECTURES["MixtralForCausalLM"].count(values) / 10**9) == 141
