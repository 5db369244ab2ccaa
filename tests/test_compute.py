"""The published compute figures, reproduced from their forms, and the derived count set against them.

Every expected number here is printed by its source: nanoGPT's notebook, PaLM's Table 22, GPT-3's Table D.1,
the Llama 3 paper. The exact relations between the forms and the derived count are asserted where the module
states them (derivations/compute.py); these tests check what a reader of the page would check.
"""

from __future__ import annotations

import sympy

from derivations import compute
from derivations.symbols import D, H, L, V, s


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


def test_kaplan_drops_one_product_and_the_head():
    # Kaplan et al.'s 2N + 2 n_layer n_ctx d_attn against GPT-2 small at n_ctx = 1024: the gap is one of the two
    # attention products (2 L D s a token) and the de-embedding (2 D V).
    values = {L: 12, D: 768, V: 50257, s: 1024}
    assert compute.kaplan_gap.subs(values) == 2 * 12 * 768 * 1024 + 2 * 768 * 50257


def test_megatron_and_korthikanti_are_exact():
    assert compute.megatron_gap == 0
    assert compute.korthikanti_model_gap == 0
    assert sympy.expand(compute.chinchilla_gap - (2 * s * V * D + 3 * H * s**2 * L)) == 0
