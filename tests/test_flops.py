"""The rules of derivations/flops.py on the trees: what runs, on how many rows, how often.

Expected values are written from the models' definitions (what transformers' code multiplies), not from the
code under test; tests/test_reference_flops.py compares whole models with what torch counts.
"""

from __future__ import annotations

import sympy

from derivations import flops, registry
from derivations.components import evaluate
from derivations.families import albert, bert, gpt2, llama, mixtral, t5
from derivations.symbols import C, D, E, F, H, L, L_d, V, X, X_a, d_h, s, s_d


def by_name(part) -> dict:
    return {row.name: row for row in flops.rows(part)}


def test_a_lookup_costs_nothing_and_a_tied_head_costs_2DV_a_token():
    rows = by_name(gpt2.ARCHITECTURES["GPT2LMHeadModel"])
    assert rows["transformer.embeddings.token"].expr == 0
    assert rows["transformer.embeddings.position"].expr == 0
    assert rows["lm_head"].expr == 2 * D * V * s  # the parameters are counted at the table; the product runs here
    assert rows["transformer.final_norm"].expr == 0


def test_attention_products_over_the_square_and_the_causal_half():
    rows = by_name(llama.ARCHITECTURES["LlamaForCausalLM"])
    scores = rows["LlamaModel.layer.attention.scores"]
    assert scores.product and scores.in_layer
    assert sympy.expand(scores.expr - 2 * H * d_h * s**2 * L) == 0
    # A query at position i needs i keys: s (s + 1) / 2 pairs.
    assert sympy.expand(scores.causal - H * d_h * s * (s + 1) * L) == 0
    # An encoder's attention has no causal half.
    assert by_name(bert.ARCHITECTURES["BertModel"])["encoder.layer.attention.scores"].causal is None


def test_the_pooler_and_sequence_classifiers_read_one_row():
    rows = by_name(bert.ARCHITECTURES["BertForSequenceClassification"])
    assert rows["bert.pooler"].expr == 2 * D * D  # on the first token alone
    assert rows["classifier"].expr == 2 * D * C


def test_experts_run_as_many_as_a_token_uses():
    experts = [r for r in flops.rows(mixtral.ARCHITECTURES["MixtralForCausalLM"]) if "experts" in r.name]
    assert sympy.expand(sum(r.expr for r in experts) - 6 * D * F * X_a * L * s) == 0
    assert X not in sympy.Add(*(r.expr for r in experts)).free_symbols


def test_albert_runs_its_one_layer_L_times():
    rows = [r for r in flops.rows(albert.ARCHITECTURES["AlbertModel"]) if ".group.layer." in r.name and r.name.endswith("up")]
    assert sympy.expand(rows[0].expr - 2 * D * F * s * L * albert.L_g) == 0
    assert by_name(albert.ARCHITECTURES["AlbertModel"])["encoder.projection"].expr == 2 * E * D * s


def test_an_encoder_decoder_reads_the_source_and_the_target():
    rows = by_name(t5.ARCHITECTURES["T5ForConditionalGeneration"])
    assert rows["encoder.block.self_attention.query"].expr == 2 * D * H * d_h * s * L
    assert rows["decoder.block.self_attention.query"].expr == 2 * D * H * d_h * s_d * L_d
    assert rows["decoder.block.cross_attention.key"].expr == 2 * D * H * d_h * s * L_d
    assert sympy.expand(rows["decoder.block.cross_attention.scores"].expr - 2 * H * d_h * s_d * s * L_d) == 0
    assert rows["lm_head"].expr == 2 * D * V * s_d


def test_training_is_three_forwards_and_recomputation_adds_the_layers():
    training = flops.training(gpt2.ARCHITECTURES["GPT2LMHeadModel"])
    assert sympy.expand(training.step - 3 * training.forward) == 0
    values = {**registry.checkpoint("gpt2").values, s: 1024}
    # nanoGPT's notebook, GPT-2 small at 1,024 tokens: full recomputation runs its "transformer" (the blocks)
    # again, not its "dense" head; selective recomputation its "scores" and "reduce" in each of the 12 blocks.
    assert evaluate(training.full_recomputation, values) == 212_600_881_152
    assert evaluate(training.forward - training.full_recomputation, values) == 79_047_426_048
    assert evaluate(training.selective_recomputation, values) == 12 * (1_610_612_736 + 1_610_612_736)
