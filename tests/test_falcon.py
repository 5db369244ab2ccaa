"""Falcon: the published sizes, the three layouts, and the cards' names reconciled.

Expected values come from outside the project: the model cards and module printouts named below, and transformers
(tests/specs/falcon.py, run by the reference harness, recomputes every total and the cache on the meta device).
"""

import pytest
import sympy

from derivations import registry
from derivations.reading import ConfigError
from derivations.families import falcon
from derivations.symbols import D, F, H, K, L, V, d_h


def test_falcon_7b_modules_are_the_printed_ones():
    # FalconForCausalLM printed for falcon-7b (kimborgen/falcon-llm, README): query_key_value 4544 -> 4672 and
    # dense 4544 -> 4544, dense_h_to_4h 4544 -> 18176, no biases; one input_layernorm; Embedding(65024, 4544).
    values = registry.checkpoint("falcon-7b").values
    attention = falcon.layer_7b.child("attention")
    assert attention.child("qkv").count(values) == 4544 * 4672
    assert attention.child("output").count(values) == 4544 * 4544
    assert falcon.layer_7b.child("feed_forward").count(values) == 2 * 4544 * 18176
    assert [c.name for c in falcon.layer_7b.children if c.kind == "norms"] == ["input_layernorm"]
    assert falcon.word_embeddings.count(values) == 65024 * 4544


def test_falcon_40b_widths_are_llama_cpps():
    # llama.cpp's Falcon-40B load prints n_embd 8192, n_head 128, n_head_kv 8, n_layer 60, n_ff 32768 and n_vocab
    # 65024 (its README, "falcon_model_load_internal").
    values = {str(k): v for k, v in registry.checkpoint("falcon-40b").values.items()}
    assert (values["D"], values["H"], values["K"], values["L"], values["F"], values["V"]) == \
        (8192, 128, 8, 60, 32768, 65024)


# Plain Python from the cards' description (not from the package): a V x D table; per layer the norms (2D each),
# the fused map D x (H + 2K) d_h, the output D x D, a 4D feed-forward without biases; a final LayerNorm.
def falcon_count(vocabulary: int, layers: int, width: int, heads: int, kv: int, norms: int) -> int:
    head = width // heads
    layer = 2 * width * norms + width * (heads + 2 * kv) * head + width * width + 2 * width * 4 * width
    return vocabulary * width + layers * layer + 2 * width


@pytest.mark.parametrize("checkpoint, kv, norms", [("falcon-7b", 1, 1), ("falcon-40b", 8, 2), ("falcon-180b", 8, 2)])
def test_plain_python_agrees(checkpoint, kv, norms):
    resolved = registry.checkpoint(checkpoint)
    v = {str(k): n for k, n in resolved.values.items()}
    assert resolved.architecture == "FalconForCausalLM"
    assert resolved.total == falcon_count(v["V"], v["L"], v["D"], v["H"], kv, norms)


@pytest.mark.parametrize("claim", falcon.NAMES, ids=lambda c: c.name)
def test_the_cards_names_round_from_the_totals(claim):
    assert claim.rounds(0)


def test_falcon_180b_is_under_180_billion():
    # "180B" is 178.6 billion: the name rounds to the tens of billions, not to the billion.
    total = registry.checkpoint("falcon-180b").total
    assert 178 * 10**9 < total < 179 * 10**9
    assert round(total, -9) != 180 * 10**9 and round(total, -10) == 180 * 10**9


def test_three_layouts_one_formula():
    # Multi-query (K = 1) and multi-head (K = H) are (H + 2K) d_h with their K: D + 2 d_h and 3D.
    qkv = falcon.layer_7b.child("attention").child("qkv").total
    assert sympy.expand(qkv.subs(K, 1).subs(H, D / d_h) - D * (D + 2 * d_h)) == 0
    assert sympy.expand(qkv.subs(K, H).subs(H, D / d_h) - 3 * D**2) == 0


def test_the_new_architecture_caches_every_head():
    # FalconAttention._split_heads broadcasts the K key/value heads to H before the cache keeps them.
    assert falcon.layer_40b.child("attention").cache == 2 * H * d_h
    assert falcon.layer_7b.child("attention").cache == 2 * K * d_h


def test_bias_adds_every_output():
    plain = falcon.VARIANTS[""]["FalconModel"].total
    biased = falcon.VARIANTS["bias"]["FalconModel"].total
    assert sympy.expand(biased - plain) == sympy.expand(L * ((H + 2 * K) * d_h + D + F + D))


def test_no_position_table():
    assert V * D in sympy.expand(falcon.ARCHITECTURES["FalconForCausalLM"].total).args
    assert not any(s.name == "P" for s in falcon.ARCHITECTURES["FalconForCausalLM"].total.free_symbols)


# The head size's edges and the new architecture's switch, read as transformers 5.23 reads them. Each expected value
# is transformers': FalconForCausalLM built on the meta device from FalconConfig(vocab_size=100, num_hidden_layers=1,
# ...), its parameters counted, one forward run (tests/specs/falcon.py's refused and accepted edges run them live).
def small(**changed) -> dict:
    return {"model_type": "falcon", "vocab_size": 100, "num_hidden_layers": 1} | changed


def test_an_odd_head_counts_with_alibi():
    # Width 6 over 2 heads (a head of 3) with ALiBi: transformers builds 1,020 parameters, and the forward runs.
    assert registry.resolve(small(hidden_size=6, num_attention_heads=2, alibi=True)).total == 1020


def test_an_odd_head_is_refused_with_rotary():
    # The same with rotary positions (alibi false, the default): transformers builds the 1,020 parameters, and the
    # forward fails on the rotation's shapes ("Attempting to broadcast a dimension of length 4").
    with pytest.raises(ConfigError, match=r"head size \(3\) must be even") as refused:
        registry.resolve(small(hidden_size=6, num_attention_heads=2))
    assert "\n" not in str(refused.value)


def test_a_head_of_one_counts_with_rotary():
    # Width 4 over 4 heads: transformers builds 584 parameters, and the forward runs (the rotation broadcasts).
    assert registry.resolve(small(hidden_size=4, num_attention_heads=4)).total == 584


def test_heads_that_do_not_divide_the_width_are_refused():
    # Width 10 over 4 heads: FalconAttention raises "`hidden_size` must be divisible by num_heads", with ALiBi too.
    for alibi in (False, True):
        with pytest.raises(ConfigError, match="not a multiple of num_attention_heads"):
            registry.resolve(small(hidden_size=10, num_attention_heads=4, alibi=alibi))


@pytest.mark.parametrize("changed", [{"parallel_attn": False}, {"parallel_attn": None},
                                     {"parallel_attn": False, "num_ln_in_parallel_attn": 1}],
                         ids=["false", "null", "one-norm"])
def test_the_new_architecture_needs_parallel_attention(changed):
    # new_decoder_architecture without parallel_attn: transformers builds 4,512 parameters (width 16, 4 heads, 2
    # key/value heads: input_layernorm and post_attention_layernorm), and every forward fails: the layer reads
    # ln_attn, which it lacks (AttributeError), or, with one norm, a feed-forward input it never set
    # (UnboundLocalError).
    config = small(hidden_size=16, num_attention_heads=4, new_decoder_architecture=True, num_kv_heads=2) | changed
    with pytest.raises(ConfigError, match="new_decoder_architecture needs parallel_attn true"):
        registry.resolve(config)
    # With parallel attention the same sizes build 4,512 too (ln_attn and ln_mlp in place of the two), and run.
    assert registry.resolve(config | {"parallel_attn": True, "num_ln_in_parallel_attn": None}).total == 4512
