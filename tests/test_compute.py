"""The published compute figures, reproduced from their forms, and the derived count set against them.

Every expected number here is printed by its source: nanoGPT's notebook, PaLM's Table 22, GPT-3's Table D.1,
the Llama 3 paper. The exact relations between the forms and the derived count are asserted where the module
states them (derivations/compute.py); these tests check what a reader of the page would check.
"""

from __future__ import annotations

import sympy

from derivations.site import compute
from derivations.symbols import D, F, H, L, V, s


def test_nanogpt_prints_these():
    # transformer_sizing.ipynb: forward_total, total (forward and backward), and its PaLM estimate.
    assert compute.nanogpt_forward == 291_648_307_200
    assert compute.nanogpt_step == 874_944_921_600
    assert compute.nanogpt_palm == 875_062_886_400
    # Its ratio, printed as 1.0001.
    assert round(compute.nanogpt_palm / compute.nanogpt_step, 4) == 1.0001


def test_palm_table_22_tflops_per_token():
    # Table 22: 0.0550 (8B), 0.388 (62B), 3.28 (540B) TFLOPs per token, without rematerialization.
    printed = {"8B": ("0.0550", 4), "62B": ("0.388", 3), "540B": ("3.28", 2)}
    for model, (figure, places) in printed.items():
        assert f"{compute.palm_flops[model] / 1e12:.{places}f}" == figure, model


def test_gpt3_table_d1():
    # 3.14E+23 FLOPs: 6 N D with N = 174.6B and 300B tokens, as printed.
    assert f"{compute.gpt3_six_nd:.2e}" == "3.14e+23"
    # The derived step adds attention's products (s = 2048): more than 6ND, by less than 3%.
    assert compute.gpt3_six_nd < compute.gpt3_run_causal < compute.gpt3_run < 1.03 * compute.gpt3_six_nd


def test_llama3_405b():
    # 405,853,388,800 parameters (the 405.85B of Meta's cards) and 3.8e25 FLOPs on 15.6T tokens.
    assert compute.llama3_parameters == 405_853_388_800
    assert f"{compute.llama3_six_nd:.1e}" == "3.8e+25"
    assert compute.llama3_six_nd < compute.llama3_run_causal < compute.llama3_run


# GPT-2 small as nanoGPT's notebook sizes it, and the figures the notebook prints for it at 1,024 tokens.
GPT2_SMALL = {L: 12, D: 768, H: 12, F: 3072, V: 50257, s: 1024}
NANOGPT_FORWARD, NANOGPT_BLOCKS, NANOGPT_DENSE = 291_648_307_200, 212_600_881_152, 79_047_426_048


def test_kaplan_against_nanogpts_forward():
    # Table 1 of Kaplan et al., written here as printed: N = 2 d_model n_layer (2 d_attn + d_ff),
    # C_forward = 2N + 2 n_layer n_ctx d_attn per token.
    n_layer, d_model, d_ff, n_ctx = 12, 768, 3072, 1024
    N = 2 * d_model * n_layer * (2 * d_model + d_ff)
    kaplan = 2 * N + 2 * n_layer * n_ctx * d_model
    assert compute.kaplan_per_token.subs(GPT2_SMALL) == kaplan
    # The gap, against nanoGPT's forward per token: its "dense" (the head Kaplan leaves out) and one of its two
    # attention products per block ("scores" and "reduce", 1,610,612,736 each per sequence).
    assert NANOGPT_FORWARD // 1024 - kaplan == (NANOGPT_DENSE + 12 * 1_610_612_736) // 1024
    assert compute.kaplan_gap.subs(GPT2_SMALL) == NANOGPT_FORWARD // 1024 - kaplan


def test_megatron_and_korthikanti_against_nanogpt():
    # Narayanan et al., Eq. 3 (a step with full recomputation) and Korthikanti et al., Eq. 7 (model FLOPs),
    # written here as printed, on GPT-2 small, batch 1: nanoGPT's step (its forward three times) plus its
    # blocks' forward again, and nanoGPT's step.
    B, s_, l, h, V_ = 1, 1024, 12, 768, 50257
    megatron = sympy.Rational(96 * B * s_ * l * h**2) * (1 + sympy.Rational(s_, 6 * h) + sympy.Rational(V_, 16 * l * h))
    korthikanti = sympy.Rational(72 * B * l * s_ * h**2) * (1 + sympy.Rational(s_, 6 * h) + sympy.Rational(V_, 12 * h * l))
    assert megatron == 3 * NANOGPT_FORWARD + NANOGPT_BLOCKS
    assert korthikanti == 874_944_921_600
    values = {**GPT2_SMALL, compute.b: 1}
    assert compute.megatron.subs(compute.MEGATRON_NOTATION).subs(values) == megatron
    assert compute.korthikanti_model.subs(compute.MEGATRON_NOTATION).subs(values) == korthikanti


def test_chinchilla_on_gpt2_small():
    # Appendix F, term by term as printed, on GPT-2 small at 1,024 tokens: nanoGPT's forward, plus the input
    # embedding counted as a product (2 seq_len vocab d_model) and the softmax (3 num_heads seq_len^2 a layer).
    seq, vocab, d, heads, key, ffw, layers = 1024, 50257, 768, 12, 64, 3072, 12
    appendix_f = (2 * seq * vocab * d + layers * (2 * 3 * seq * d * key * heads + 2 * seq * seq * key * heads
                                                  + 3 * heads * seq * seq + 2 * seq * seq * key * heads
                                                  + 2 * seq * key * heads * d + 2 * seq * (d * ffw + d * ffw))
                  + 2 * seq * d * vocab)
    assert compute.chinchilla_in_our_notation.subs(GPT2_SMALL) == appendix_f
    assert appendix_f - NANOGPT_FORWARD == 2 * seq * vocab * d + layers * 3 * heads * seq * seq
