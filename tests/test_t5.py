"""T5: published totals with their sources, symbolic identities, and the reconciled claims (the paper's
rounded sizes, T5-Large's "770M", Wikipedia's table with the shared table counted twice).

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/t5.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry

from derivations.families import t5
from derivations.claims import rounds_to
from derivations.components import Part
from derivations.symbols import B, D, F, H, L, L_d, V, d_h

GENERATION = "T5ForConditionalGeneration"

# Exact totals published by others, each with its source; every one is the checkpoint as it is
# (T5 1.0: the head tied, counted once; T5 1.1: an lm_head of its own).
PUBLISHED = {
    # KerasNLP's T5 presets ([cite: keras-hub, keras_nlp/models/t5/t5_presets.py], 2023):
    # "params": 60506624 for t5_small, 222903552 for t5_base, 737668096 for t5_large, 2851598336 for
    # t5_3b. 60,506,624 and 737,668,096 and 2,851,598,336 also in the table of
    # [cite: lumi-ml-examples] ("sizes of the variants of
    # the t5 model implemented in huggingface").
    "t5-small": 60_506_624,
    "t5-base": 222_903_552,
    # [cite: text-to-text-transfer-transformer-326]: the Mesh TensorFlow log of the released
    # Large checkpoint, "Trainable Variables count: 388 Total size: 737668096".
    "t5-large": 737_668_096,
    # [cite: lumi-ml-examples].
    "t5-3b": 2_851_598_336,
    # Hand-computed from the released config [cite: hub-google-t5]; also listed in a third-party table of
    # model sizes that the search tool found without naming its repository. transformers recomputes it (tests/specs/t5.py).
    "t5-11b": 11_307_321_344,
    # [cite: t5-tpu], README.md, "Training Time" table of the T5 1.1 sizes: small 76961152,
    # base 247577856, large 783150080, xl 2849757184, xxl 11135332352. 247,577,856 is also KerasHub's
    # t5_1.1_base (keras_hub/src/models/t5/t5_presets.py) and what printouts of flan-t5-base give
    # (e.g. fusion_bench's docs: "trainable_params: 247577856").
    "t5-v1_1-small": 76_961_152,
    "t5-v1_1-base": 247_577_856,
    "t5-v1_1-large": 783_150_080,
    "t5-v1_1-xl": 2_849_757_184,
    "t5-v1_1-xxl": 11_135_332_352,
}


@pytest.mark.parametrize("checkpoint", PUBLISHED)
def test_published_totals(checkpoint):
    # Each in the layout its config asks for (v1.1: gated, its own lm_head).
    assert registry.checkpoint(checkpoint, GENERATION).total == PUBLISHED[checkpoint]


# KerasHub's t5_1.1_small and t5_1.1_large presets (keras_hub/src/models/t5/t5_presets.py, "params"
# 60511616 and 750251008) count the v1.1 backbone with one table: T5Model (no head), which is also what
# transformers 5.x builds for T5ForConditionalGeneration from these configs (tests/specs/t5.py).
KERASHUB_TIED = {"t5-v1_1-small": 60_511_616, "t5-v1_1-large": 750_251_008}


@pytest.mark.parametrize("checkpoint", KERASHUB_TIED)
def test_v1_1_without_its_own_head(checkpoint):
    assert registry.checkpoint(checkpoint, "T5Model").total == KERASHUB_TIED[checkpoint]
    values = registry.checkpoint(checkpoint).values
    assert t5.T5ForConditionalGeneration_v1_1_as_built.count(values) == KERASHUB_TIED[checkpoint]
    assert PUBLISHED[checkpoint] - KERASHUB_TIED[checkpoint] == values[V] * values[D]


# Wikipedia's T5 table gives encoder and decoder columns too (their sum is its total, which counts
# the shared table twice): the encoder column is T5EncoderModel, the decoder column the decoder
# stack with a V-by-D table of its own.
WIKIPEDIA = {"t5-small": (35_330_816, 41_625_344), "t5-base": (109_628_544, 137_949_312),
             "t5-large": (334_939_648, 435_627_520)}


@pytest.mark.parametrize("checkpoint", WIKIPEDIA)
def test_wikipedia_columns(checkpoint):
    values = registry.checkpoint(checkpoint).values
    encoder, decoder = WIKIPEDIA[checkpoint]
    assert t5.ARCHITECTURES["T5EncoderModel"].count(values) == encoder
    assert t5.ARCHITECTURES["T5ForConditionalGeneration"].find("decoder").count(values) + values[V] * values[D] == decoder
    assert t5.head_counted_twice.count(values) == encoder + decoder


def test_t5_small_breakdown():
    # Shared reference A8: embedding 16,449,536; encoder stack 18,881,280; decoder stack 25,175,808.
    values = registry.checkpoint("t5-small").values
    model = t5.ARCHITECTURES["T5ForConditionalGeneration"]
    assert model.child("shared").count(values) == 16_449_536
    assert model.child("encoder").count(values) == 18_881_280
    assert model.child("decoder").count(values) == 25_175_808


# ---------------------------------------------------------------------------------------------
# Identities
# ---------------------------------------------------------------------------------------------

def test_attention_is_4_d_h_d_kv():
    # No bias anywhere; the inner size is H d_kv, not D.
    assert t5.attention_part.total == 4 * D * H * d_h
    assert sympy.expand(t5.attention_over_square.subs(H * d_h, D)) == 0


def test_blocks():
    assert sympy.expand(t5.encoder_layer.total - (2 * D + 4 * D * H * d_h + 2 * D * F)) == 0
    assert sympy.expand(t5.decoder_layer.total - (3 * D + 8 * D * H * d_h + 2 * D * F)) == 0
    assert sympy.expand(t5.encoder_layer_gated.total - (2 * D + 4 * D * H * d_h + 3 * D * F)) == 0
    assert t5.gate_per_block == D * F


def test_the_relative_bias_is_stored_once_per_stack():
    # modeling_t5.T5Stack: T5Block(config, has_relative_attention_bias=bool(i == 0)), and T5Attention
    # makes it nn.Embedding(relative_attention_num_buckets, n_heads): B H in block 0's self-attention,
    # once per stack, beside the blocks (tests/specs/t5.py matches it to that module).
    for name, depth, layer in (("encoder", L, t5.encoder_layer), ("decoder", L_d, t5.decoder_layer)):
        stack = t5.ARCHITECTURES["T5ForConditionalGeneration"].child(name)
        bias = stack.child("relative_bias")
        assert (bias.expr, bias.path, bias.kind) == (B * H, "block.0.layer.0.SelfAttention.relative_attention_bias",
                                                     "attention")
        assert stack.child("block").repeat == depth
        assert B not in layer.total.free_symbols
        assert sympy.expand(stack.total - (depth * layer.total + B * H + D)) == 0


def _parts(part: Part):
    yield part
    for child in part.children:
        yield from _parts(child)


def test_every_count_is_a_polynomial_with_integer_coefficients():
    # No share of a tensor anywhere: every leaf and every node of every class of every layout.
    for architectures in t5.VARIANTS.values():
        for model in architectures.values():
            for part in _parts(model):
                total = sympy.expand(part.total)
                coefficients = sympy.Poly(total, *total.free_symbols).coeffs() if total.free_symbols else [total]
                assert all(c.is_Integer for c in coefficients), (model.name, part.name, total)


def test_closed_form():
    expected = V * D + L * (2 * D + 4 * D * H * d_h + 2 * D * F) + L_d * (3 * D + 8 * D * H * d_h + 2 * D * F) \
        + 2 * B * H + 2 * D
    assert sympy.expand(t5.ARCHITECTURES["T5ForConditionalGeneration"].total - expected) == 0
    assert t5.ARCHITECTURES["T5ForConditionalGeneration"].total == t5.ARCHITECTURES["T5Model"].total  # the tied head adds nothing


def test_untied_head_is_one_table_more():
    assert t5.untied_over_tied == V * D
    for gated in ("", "gated"):
        untied = "+".join(filter(None, (gated, "untied")))
        assert sympy.expand(t5.VARIANTS[untied][GENERATION].total - t5.VARIANTS[gated][GENERATION].total) == V * D


def test_v1_1_base_tied_equals_t5_base():
    # d_ff 2048 gated (3 matrices) against 3072 plain (2 matrices): 6144 D either way, so the v1.1 base
    # built tied has exactly t5-base's count; its own lm_head is the difference to the checkpoint.
    v11 = registry.checkpoint("t5-v1_1-base").values
    assert t5.T5ForConditionalGeneration_v1_1_as_built.count(v11) == PUBLISHED["t5-base"]
    assert PUBLISHED["t5-v1_1-base"] - PUBLISHED["t5-base"] == 32128 * 768


def test_3b_and_11b_attention_is_wider_than_d_model():
    for name, inner in (("t5-3b", 4096), ("t5-11b", 16384)):
        values = registry.checkpoint(name).values
        assert values[H] * values[d_h] == inner != values[D] == 1024


def test_the_alias_is_the_generation_model():
    assert t5.ARCHITECTURES["T5WithLMHeadModel"].total == t5.ARCHITECTURES["T5ForConditionalGeneration"].total
    assert registry.checkpoint("t5-3b").architecture == "T5WithLMHeadModel"


def test_every_released_t5_has_32_buckets():
    # relative_attention_num_buckets in each config.json as published (the page says "in every released T5").
    assert {registry.checkpoint(name).values[B] for name in t5.FAMILY.checkpoints} == {32}


def test_the_bundled_configs_layouts():
    # T5 1.0: feed_forward_proj "relu", the head tied; T5 1.1: "gated-gelu", tie_word_embeddings false.
    layout = configs.READERS["t5"].layout.of
    assert {layout(configs.load(name)) for name in t5.V1_0_CHECKPOINTS} == {""}
    assert {layout(configs.load(name)) for name in t5.V1_1_CHECKPOINTS} == {"gated+untied"}
    assert set(t5.FAMILY.checkpoints) == set(t5.V1_0_CHECKPOINTS) | set(t5.V1_1_CHECKPOINTS)


# ---------------------------------------------------------------------------------------------
# Claims
# ---------------------------------------------------------------------------------------------

def test_paper_sizes():
    # Small, Base, 3B and 11B round to the checkpoint's count; Large only to the double count.
    for claim in t5.PAPER:
        assert claim.rounds(0) == (claim is not t5.paper_large), claim.name
    assert t5.paper_large.rounds(1)
    assert not t5.paper_small.rounds(1) and not t5.paper_base.rounds(1)


def test_large_770m():
    claim = t5.large_770m
    claim.check()
    values = claim.values()
    assert claim.correct.count(values) == 737_668_096
    assert t5.head_counted_twice.count(values) == 770_567_168 == 737_668_096 + 32128 * 1024
    assert claim.difference.count(values) == 737_668_096 - 770_000_000
    assert rounds_to(770_567_168, 770_000_000, 10**7) and not rounds_to(737_668_096, 770_000_000, 10**7)


@pytest.mark.parametrize("claim", [t5.wikipedia_small, t5.wikipedia_large], ids=lambda c: c.name)
def test_wikipedia_counts_the_table_twice(claim):
    claim.check()
    values = claim.values()
    assert claim.correct.count(values) - claim.claim == -values[V] * values[D]
    assert claim.reconstruction.count(values) == claim.claim


def test_wikipedia_small_figures():
    assert t5.wikipedia_small.claim - PUBLISHED["t5-small"] == 16_449_536 == 32128 * 512
