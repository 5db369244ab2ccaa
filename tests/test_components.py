"""The building blocks, checked against counts published outside the project."""

import pytest
import sympy

from derivations import components as c, registry
from derivations.site import components as page
from derivations.symbols import D, F, H, K, L, V, X, d_h

# The blocks as the components page shows them (derivations/site/components.py) are the ones tested here.

@pytest.mark.parametrize("heads", [1, 8, 64])
def test_head_count_does_not_change_attention(heads):
    # nn.MultiheadAttention(512, num_heads) has 1,050,624 parameters for any num_heads
    # ([cite: pytorch-60853]): the heads partition the width.
    assert page.multi_head_attention.count({D: 512, H: heads, d_h: 512 // heads}) == 1_050_624


def test_attention_is_4d2_plus_4d_when_heads_partition_the_width():
    assert sympy.expand(page.multi_head_attention.total.subs(d_h, D / H)) == 4 * D**2 + 4 * D


def llama_layer(attention):
    return c.group("layer", "decoder layer", attention, page.feed_forward_gated,
                   c.rms_norm("input_norm", D), c.rms_norm("post_norm", D))


def test_llama_layer_from_gated_ffn_rmsnorm_and_no_biases():
    # LLaMA-7B / Llama-2-7B: 202,383,360 parameters per decoder layer (hand-computed from [cite: hub-meta-llama]);
    # dims from the config: D 4096, 32 heads of 128 (K = H), F 11,008, no biases, RMSNorm weights only.
    layer = llama_layer(page.grouped_query_attention)
    assert layer.count({D: 4096, H: 32, K: 32, d_h: 128, F: 11008}) == 202_383_360


def test_grouped_query_attention_shrinks_k_and_v_only():
    # Llama-2-70B: 855,654,400 per layer (hand-computed from [cite: hub-meta-llama]): D 8192, 64 query heads, 8 kv heads
    # of 128, gated F 28,672, no biases, two RMSNorms.
    layer = llama_layer(page.grouped_query_attention)
    assert layer.count({D: 8192, H: 64, K: 8, d_h: 128, F: 28672}) == 855_654_400


def test_mixture_of_experts_replicates_only_the_feed_forward():
    # Mixtral-8x7B: one expert 176,160,768; the routers of its 32 layers 1,048,576 (hand-computed from [cite: hub-mistralai]).
    values = {D: 4096, F: 14336, X: 8}
    assert page.experts.child("expert").per_copy.subs(values) == 176_160_768
    assert 32 * page.experts.child("router").count(values) == 1_048_576
    assert page.experts.count(values) == 1_048_576 // 32 + 8 * 176_160_768


def test_part_is_a_leaf_or_a_sum():
    with pytest.raises(AssertionError):
        c.Part("x", "x", expr=D, children=(c.leaf("y", "y", D),))
    with pytest.raises(AssertionError):
        c.group("x", "x", c.leaf("y", "y", D), c.leaf("y", "y", V))


def test_repeat_walk_and_find():
    inner = c.leaf("w", "w", D * F)
    stack = c.group("stack", "stack", c.Part("block", "block", children=(inner,), repeat=L))
    assert stack.total == L * D * F
    assert [(name, copies) for name, _, copies in stack.leaves()] == [("stack.block.w", L)]
    assert stack.find("block.w") is inner
    with pytest.raises(LookupError):
        stack.find("block.nothing")


def test_subs_rewrites_every_leaf():
    part = c.group("p", "p", c.linear("a", "a", D, F), c.leaf("b", "b", F))
    assert part.subs({F: 4 * D}).total == 4 * D**2 + 8 * D


def test_layer_norm_function_differs_from_the_variant():
    # [cite: bert-pytorch-30]: on [1, 0, 0, 0] nn.LayerNorm gives 1.732 (sqrt 3), the unbiased-std
    # variant 1.5, for the same two parameter vectors.
    assert page.layer_norm_example_torch == sympy.sqrt(3)
    assert page.layer_norm_example_variant == sympy.Rational(3, 2)
    assert c.layer_norm("n", D).total == 2 * D


def test_every_leaf_of_every_model_has_a_kind():
    # The pictures sort every parameter into embeddings, attention, feed-forward, norms or heads.

    unsorted = [(name, layout, architecture, leaf.name)
                for name, module in registry.families().items()
                for layout, architectures in module.variants.items()
                for architecture, part in architectures.items()
                for kind, leaf, _ in part.kinds() if kind not in c.KINDS]
    assert not unsorted


def test_kinds_add_up_to_the_total():
    from derivations.families import bert

    by_kind = {}
    for kind, leaf, copies in bert.ARCHITECTURES["BertForPreTraining"].kinds():
        by_kind[kind] = by_kind.get(kind, 0) + copies * leaf.expr
    assert sympy.expand(sum(by_kind.values()) - bert.ARCHITECTURES["BertForPreTraining"].total) == 0
    # The attention of one layer, and nothing else, is "attention": 4 (D H d_h + ...) per layer.
    assert sympy.expand(by_kind["attention"] - bert.encoder.child("layer").child("attention").total * L) == 0
