r"""The published forms of a transformer's compute, each as its authors wrote it, against the count derived
from the trees (:mod:`derivations.flops`).

Each form is a SymPy expression in its authors' own symbols (shown as they print them) with the map into
this project's notation; the difference from the derived count is a SymPy expression too, so the page
prints what each form drops or adds, and evaluates it on real checkpoints. The derived side is GPT-2's
layout (:data:`gpt2_forward`): the one most forms were written for (a plain feed-forward, heads that
partition the width, learned positions, a tied head).
"""

from __future__ import annotations

import sympy

from .. import flops, registry
from ..families import gpt2, llama
from ..symbols import L, D, F, H, V, b, d_h, s

# The forms were written for GPT's layout: GPT-2's causal LM; LLaMA's for the gated feed-forward and grouped heads.
gpt2_model = gpt2.ARCHITECTURES["GPT2LMHeadModel"]
llama_model = llama.ARCHITECTURES["LlamaForCausalLM"]

# ---------------------------------------------------------------------------------------------
# The derived count, per sequence and per token
# ---------------------------------------------------------------------------------------------

# $$C_\mathrm{fwd} = \sum 2\,n_\mathrm{in} n_\mathrm{out} s + L (2 D s^2 + 2 D s^2) + 2 D V s$$
gpt2_forward = flops.forward(gpt2_model)
gpt2_forward_per_token = sympy.expand(gpt2_forward / s)
gpt2_training = flops.training(gpt2_model)
gpt2_step = sympy.expand(gpt2_training.step)
gpt2_step_per_token = sympy.expand(gpt2_step / s)
# The causal half: each query against the keys up to its own position.
gpt2_forward_causal = flops.forward_needed(gpt2_model)
# A training step is the forward and a backward of BACKWARD_FACTOR times it.
STEP = 1 + flops.BACKWARD_FACTOR
attention_products = sympy.expand(sum(r.expr for r in flops.rows(gpt2_model) if r.product))
attention_products_causal = sympy.expand(sum(r.needed for r in flops.rows(gpt2_model) if r.product))
causal_saving = sympy.factor(attention_products - attention_products_causal)
# The page's rules, read off the trees: the head's FLOPs a token (tied or not), one head's score and weighted value
# for a query-key pair, and the pairs a causal query set needs.
head_per_token = sympy.expand(gpt2_model.child("lm_head").matrix * 2)
assert head_per_token == sympy.expand(llama_model.child("lm_head").matrix * 2)
scores_per_pair = sympy.expand(llama.self_attention().ops[0].per_pair / H)
values_per_pair = sympy.expand(llama.self_attention().ops[1].per_pair / H)
causal_pairs, square_pairs = flops.causal_pairs, s * s
# Attention's two products per layer, per unit of width and per token: forward, a step over the whole square,
# a step over the causal half (the "12" and "6" of the training-FLOPs formulas, times s).
attention_forward_factor = sympy.expand(attention_products / (L * D * s))
attention_step_factor = sympy.expand(STEP * attention_products / (L * D * s))
attention_step_factor_causal = sympy.factor(STEP * attention_products_causal / (L * D * s))

llama_forward = flops.forward(llama_model)
llama_step_per_token = sympy.expand(flops.training(llama_model).step / s)
llama_step_per_token_causal = sympy.expand(STEP * flops.forward_needed(llama_model) / s)

# The weights a token's matrix products read: every matrix element once (the tied head included, the
# embedding lookups not). 2 FLOPs each forward, 6 with the backward: the "6N" where N is this count.
gpt2_matrix_elements = sympy.expand(sum(leaf.matrix * copies for _, leaf, copies in gpt2_model.leaves()))
assert sympy.expand(gpt2_forward_per_token - 2 * gpt2_matrix_elements - 4 * L * D * s) == 0

# ---------------------------------------------------------------------------------------------
# One generated token after T cached ones (flops.decode): each matrix on one row, attention over T + 1 keys
# ---------------------------------------------------------------------------------------------

DECODE_CACHED = 4096
llama_decode = flops.decode(llama_model, DECODE_CACHED + 1)
llama_two_n = sympy.expand(2 * llama_model.total)
# What the cache adds: the two products over the T + 1 keys (the rest does not depend on T).
llama_decode_attention = sympy.expand(llama_decode - flops.decode(llama_model, 0))
# $$C_\mathrm{decode} - 2N = 4 H d_h L (T + 1) - 2 D V - 2 (2L + 1) D$$  the cache costs the products; the lookup
# and the norms' weights (element-wise, uncounted) cost nothing.
llama_decode_gap = sympy.expand(llama_decode - llama_two_n)
assert sympy.expand(llama_decode_gap - 4 * H * d_h * L * (DECODE_CACHED + 1) + 2 * D * V + 2 * (2 * L + 1) * D) == 0

# ---------------------------------------------------------------------------------------------
# Kaplan et al. 2020, Table 1: per token, forward, non-embedding
# ---------------------------------------------------------------------------------------------

n_layer, d_model, d_attn, d_ff, n_ctx, n_vocab = sympy.symbols(
    r"n_{\mathrm{layer}} d_{\mathrm{model}} d_{\mathrm{attn}} d_{\mathrm{ff}} n_{\mathrm{ctx}} n_{\mathrm{vocab}}",
    positive=True, integer=True)
N_sym, C_forward = sympy.symbols(r"N C_{\mathrm{forward}}")
KAPLAN_NOTATION = {n_layer: L, d_model: D, d_attn: D, d_ff: F, n_ctx: s, n_vocab: V}

kaplan_N = 2 * d_model * n_layer * (2 * d_attn + d_ff)
kaplan_forward = 2 * N_sym + 2 * n_layer * n_ctx * d_attn
kaplan_equations = (sympy.Eq(N_sym, kaplan_N), sympy.Eq(C_forward, kaplan_forward))
kaplan_per_token = sympy.expand(kaplan_forward.subs(N_sym, kaplan_N).subs(KAPLAN_NOTATION))
# What the derived forward has beyond Kaplan's: one of the two attention products (or: both, on the causal
# average of s/2 keys) and the head, which Table 1 lists ("De-embed") and leaves out of C_forward.
kaplan_gap = sympy.expand(gpt2_forward_per_token - kaplan_per_token)
assert kaplan_gap == sympy.expand(2 * L * D * s + 2 * D * V)
# Against the causal half, the attention term differs by one key a query (its own position): 2 L D a token.
kaplan_gap_causal = sympy.expand(gpt2_forward_causal / s - kaplan_per_token)
assert kaplan_gap_causal == sympy.expand(2 * L * D + 2 * D * V)

# ---------------------------------------------------------------------------------------------
# Hoffmann et al. 2022 (Chinchilla), Appendix F: per sequence, forward, everything
# ---------------------------------------------------------------------------------------------

seq_len, vocab_size, key_size, num_heads, ffw_size, num_layers = sympy.symbols(
    r"\mathrm{seq\_len} \mathrm{vocab\_size} \mathrm{key\_size} \mathrm{num\_heads} \mathrm{ffw\_size} "
    r"\mathrm{num\_layers}", positive=True, integer=True)
CHINCHILLA_NOTATION = {seq_len: s, vocab_size: V, d_model: D, key_size: d_h, num_heads: H, ffw_size: F, num_layers: L}

chinchilla_terms = {
    "embeddings": 2 * seq_len * vocab_size * d_model,
    "qkv": 2 * 3 * seq_len * d_model * (key_size * num_heads),
    "logits": 2 * seq_len * seq_len * (key_size * num_heads),
    "softmax": 3 * num_heads * seq_len * seq_len,
    "reductions": 2 * seq_len * seq_len * (key_size * num_heads),
    "final_linear": 2 * seq_len * (key_size * num_heads) * d_model,
    "dense": 2 * seq_len * (d_model * ffw_size + d_model * ffw_size),
    "final_logits": 2 * seq_len * d_model * vocab_size,
}
_per_layer = ("qkv", "logits", "softmax", "reductions", "final_linear", "dense")
chinchilla_forward = (chinchilla_terms["embeddings"] + num_layers * sympy.Add(*(chinchilla_terms[k] for k in _per_layer))
                      + chinchilla_terms["final_logits"])
# GPT-2's heads partition the width: key_size num_heads = D.
chinchilla_in_our_notation = sympy.expand(chinchilla_forward.subs(CHINCHILLA_NOTATION).subs(d_h, D / H))
# It counts the input embedding as a matrix product (a lookup does none) and the softmax (element-wise).
chinchilla_gap = sympy.expand(chinchilla_in_our_notation - gpt2_forward)
assert chinchilla_gap == sympy.expand(2 * s * V * D + 3 * H * s**2 * L)

# ---------------------------------------------------------------------------------------------
# Chowdhery et al. 2022 (PaLM), Appendix B: per token, forward and backward
# ---------------------------------------------------------------------------------------------

L_p, H_p, Q_p, T_p, N_p = sympy.symbols("L H Q T N", positive=True)
palm_per_token = 6 * N_p + 12 * L_p * H_p * Q_p * T_p
PALM_NOTATION = {L_p: L, H_p: H, Q_p: D / H, T_p: s}
# With N the parameters whose products a token runs (the matrix elements), PaLM's form is the derived step
# exactly; its N is the parameter count, whose vectors (biases, norms) and position table run no product.
palm_exact = sympy.expand(palm_per_token.subs(PALM_NOTATION).subs(N_p, gpt2_matrix_elements))
assert sympy.expand(palm_exact - gpt2_step_per_token) == 0

# nanoGPT's notebook: GPT-2 small without biases (bias=False), N the parameters less the position table.
NANOGPT_TOKENS = 1024
NANOGPT = {L: 12, D: 768, H: 12, F: 3072, V: 50257, s: NANOGPT_TOKENS}
nanogpt_forward = int(gpt2_forward.subs(NANOGPT))
nanogpt_step = int(gpt2_step.subs(NANOGPT))
nanogpt_layer_norms = 12 * 2 * 768 + 768  # ln_1, ln_2 in each block, ln_f: weights only (no biases)
nanogpt_N = nanogpt_layer_norms + int(gpt2_matrix_elements.subs(NANOGPT))
nanogpt_palm = int(palm_per_token.subs(PALM_NOTATION).subs(N_p, nanogpt_N).subs(NANOGPT)) * 1024
nanogpt_palm_gap = nanogpt_palm - nanogpt_step
assert nanogpt_palm_gap == 6 * nanogpt_layer_norms * 1024

# Table 22's TFLOPs per token, from Table 1's shapes and parameter counts (in billions, as printed), at T = 2048.
PALM_MODELS = {"8B": (32, 16, 8.63), "62B": (64, 32, 62.50), "540B": (118, 48, 540.35)}
PALM_HEAD, PALM_SEQUENCE = 256, 2048


def palm_flops_per_token(model: str) -> int:
    """PaLM's form on one of its models, exactly (the parameter count as Table 1 prints it, in billions)."""
    layers, heads, billions = PALM_MODELS[model]
    N = sympy.Rational(str(billions)) * 10**9
    value = palm_per_token.subs({N_p: N, L_p: layers, H_p: heads, Q_p: PALM_HEAD, T_p: PALM_SEQUENCE})
    assert value.is_Integer, value
    return int(value)


palm_flops = {model: palm_flops_per_token(model) for model in PALM_MODELS}


# ---------------------------------------------------------------------------------------------
# Narayanan et al. 2021 (Megatron-LM), Eq. 3, and Korthikanti et al. 2022, Eqs. 7 and 8: per iteration
# ---------------------------------------------------------------------------------------------

B_m, s_m, l_m, h_m, V_m = sympy.symbols("B s l h V", positive=True)
MEGATRON_NOTATION = {B_m: b, s_m: s, l_m: L, h_m: D, V_m: V}
megatron = 96 * B_m * s_m * l_m * h_m**2 * (1 + s_m / (6 * h_m) + V_m / (16 * l_m * h_m))
korthikanti_model = 72 * B_m * l_m * s_m * h_m**2 * (1 + s_m / (6 * h_m) + V_m / (12 * h_m * l_m))
korthikanti_hardware = 72 * B_m * l_m * s_m * h_m**2 * (1 + s_m / (3 * h_m) + V_m / (12 * h_m * l_m))

FOUR_D = {F: 4 * D}
# Megatron's count is a step with full recomputation (the layers' forward run twice), the head not recomputed.
megatron_gap = sympy.expand(megatron.subs(MEGATRON_NOTATION)
                            - b * (gpt2_training.step + gpt2_training.full_recomputation).subs(FOUR_D))
assert megatron_gap == 0
# Korthikanti's model FLOPs are the step without recomputation.
korthikanti_model_gap = sympy.expand(korthikanti_model.subs(MEGATRON_NOTATION) - b * gpt2_training.step.subs(FOUR_D))
assert korthikanti_model_gap == 0
# Their hardware FLOPs with selective recomputation add 12 B L s^2 h: three times the forward of the attention
# products that selective recomputation runs again (4 B L s^2 h).
korthikanti_hardware_gap = sympy.expand(korthikanti_hardware.subs(MEGATRON_NOTATION)
                                        - b * (gpt2_training.step + gpt2_training.selective_recomputation).subs(FOUR_D))
assert korthikanti_hardware_gap == sympy.expand(8 * b * L * s**2 * D)

# ---------------------------------------------------------------------------------------------
# Training runs: published totals against the derived count
# ---------------------------------------------------------------------------------------------

# Brown et al. 2020, Table D.1: 3.14e23 FLOPs for GPT-3 175B on 300B tokens, as 6 N D with N = 174.6B.
GPT3_TOKENS, GPT3_PARAMETERS, GPT3_PUBLISHED = 300 * 10**9, 174_600_000_000, 3.14e23
gpt3_six_nd = 6 * GPT3_PARAMETERS * GPT3_TOKENS
# Grattafiori et al. 2024 (Llama 3): 3.8e25 FLOPs for the 405B model on 15.6T tokens (sequences of 8,192).
LLAMA3_TOKENS, LLAMA3_PUBLISHED, LLAMA3_SEQUENCE = 15_600 * 10**9, 3.8e25, 8192


def training_run(step_per_token: sympy.Expr, values: dict, tokens: int) -> int:
    """The FLOPs of training on ``tokens`` tokens: the step per token times the tokens (exact: each term of
    the step per token is a whole number at a sequence length)."""
    per_token = sympy.sympify(step_per_token).xreplace(values)
    assert per_token.is_Integer, per_token
    return int(per_token) * tokens


def _run(checkpoint: str, step_per_token: sympy.Expr, sequence: int, tokens: int) -> int:
    return training_run(step_per_token, {**registry.checkpoint(checkpoint).values, s: sequence}, tokens)


gpt3_run = _run("gpt3-175b", gpt2_step_per_token, 2048, GPT3_TOKENS)
gpt3_run_causal = _run("gpt3-175b", sympy.expand(STEP * gpt2_forward_causal / s), 2048, GPT3_TOKENS)
llama3_run = _run("llama-3.1-405b", llama_step_per_token, LLAMA3_SEQUENCE, LLAMA3_TOKENS)
llama3_run_causal = _run("llama-3.1-405b", llama_step_per_token_causal, LLAMA3_SEQUENCE, LLAMA3_TOKENS)


def _parameters(checkpoint: str) -> int:
    return llama_model.count(registry.checkpoint(checkpoint).values)


llama3_parameters = _parameters("llama-3.1-405b")
# 6 N D with N every parameter (405,853,388,800): the published 3.8e25 is this, rounded.
llama3_six_nd = 6 * llama3_parameters * LLAMA3_TOKENS
# What the derived runs add to 6 N D, as fractions of it (the pages show them in percent).
gpt3_excess = sympy.Rational(gpt3_run - gpt3_six_nd, gpt3_six_nd)
gpt3_excess_causal = sympy.Rational(gpt3_run_causal - gpt3_six_nd, gpt3_six_nd)
llama3_excess = sympy.Rational(llama3_run - llama3_six_nd, llama3_six_nd)
llama3_excess_causal = sympy.Rational(llama3_run_causal - llama3_six_nd, llama3_six_nd)

# ---------------------------------------------------------------------------------------------
# The picture: where a forward's FLOPs go as the sequence grows
# ---------------------------------------------------------------------------------------------

SHARE_MODELS = (("gpt2", "GPT2LMHeadModel"), ("llama-2-7b", "LlamaForCausalLM"), ("llama-3.1-405b", "LlamaForCausalLM"),
                ("mistral-7b", "MistralForCausalLM"))
SHARE_LENGTHS = tuple(2**k for k in range(7, 18))  # 128 to 131,072 tokens


def shares(checkpoint: str, architecture: str, lengths=SHARE_LENGTHS) -> list[tuple[int, int, dict[str, int]]]:
    """For each sequence length: the forward's FLOPs and its split into attention's two products, the rest of
    attention (its projections), the feed-forward and the head, as the eager implementation computes them."""
    resolved = registry.checkpoint(checkpoint, architecture)
    table = flops.rows(resolved.part)
    out = []
    for length in lengths:
        values = {**resolved.values, s: length}
        split = {"attention products": 0, "attention projections": 0, "feed-forward": 0, "head": 0}
        for row in table:
            value = int(row.expr.xreplace(values))
            key = ("attention products" if row.product else "attention projections" if row.kind == "attention"
                   else "feed-forward" if row.kind == "feed-forward" else "head")
            split[key] += value
        out.append((length, sum(split.values()), split))
    return out

# ---------------------------------------------------------------------------------------------
# The forms as their authors print them (the page shows these; the expressions above compute)
# ---------------------------------------------------------------------------------------------


def _as_printed(name: str, factor: sympy.Expr, *terms: sympy.Expr) -> sympy.Equality:
    """``name = factor (term + term + ...)`` with the terms in the authors' order."""
    return sympy.Eq(sympy.Symbol(name), sympy.Mul(factor, sympy.Add(*terms, evaluate=False), evaluate=False),
                    evaluate=False)


megatron_equation = _as_printed("F", 96 * B_m * s_m * l_m * h_m**2, 1, s_m / (6 * h_m), V_m / (16 * l_m * h_m))
korthikanti_model_equation = _as_printed(r"\mathrm{Model\ FLOPs}", 72 * B_m * l_m * s_m * h_m**2, 1, s_m / (6 * h_m),
                                         V_m / (12 * h_m * l_m))
korthikanti_hardware_equation = _as_printed(r"\mathrm{Hardware\ FLOPs}", 72 * B_m * l_m * s_m * h_m**2, 1,
                                            s_m / (3 * h_m), V_m / (12 * h_m * l_m))
palm_equation = sympy.Eq(sympy.Symbol(r"\mathrm{FLOPs\ per\ token}"),
                         sympy.Add(6 * N_p, 12 * L_p * H_p * Q_p * T_p, evaluate=False), evaluate=False)
for _printed, _computing in ((megatron_equation, megatron), (korthikanti_model_equation, korthikanti_model),
                             (korthikanti_hardware_equation, korthikanti_hardware), (palm_equation, palm_per_token)):
    assert sympy.expand(_printed.rhs.doit() - _computing) == 0

# Chinchilla's Appendix F term by term, in its order (symbols without the integer assumption, so that the
# rendering keeps the order; each name followed by a thin space, so that products of names stay readable).
_sl, _vs, _dm, _ks, _nh, _fs, _nl = (sympy.Symbol(rf"\mathrm{{{name}}}\,", positive=True) for name in (
    r"seq\_len", r"vocab\_size", r"d\_model", r"key\_size", r"num\_heads", r"ffw\_size", r"num\_layers"))


def _product(*factors) -> sympy.Expr:
    return sympy.Mul(*factors, evaluate=False)


chinchilla_equation = sympy.Eq(sympy.Symbol(r"\mathrm{forward}"), sympy.Add(
    _product(2, _sl, _vs, _dm),
    _product(_nl, sympy.Add(_product(2, 3, _sl, _dm, _ks * _nh), _product(2, _sl, _sl, _ks * _nh),
                            _product(3, _nh, _sl, _sl), _product(2, _sl, _sl, _ks * _nh),
                            _product(2, _sl, _ks * _nh, _dm), _product(2, _sl, sympy.Add(_dm * _fs, _dm * _fs,
                                                                                       evaluate=False)),
                            evaluate=False)),
    _product(2, _sl, _dm, _vs), evaluate=False), evaluate=False)
assert sympy.expand(chinchilla_equation.rhs.doit().subs(
    {_sl: seq_len, _vs: vocab_size, _dm: d_model, _ks: key_size, _nh: num_heads, _fs: ffw_size, _nl: num_layers})
    - chinchilla_forward) == 0

# The same terms one by one, as Appendix F lists them (the page shows them as a list).
chinchilla_printed = {
    "embeddings": sympy.Eq(sympy.Symbol(r"\mathrm{embeddings}"), _product(2, _sl, _vs, _dm), evaluate=False),
    "qkv": sympy.Eq(sympy.Symbol(r"\mathrm{KQV}"), _product(2, 3, _sl, _dm, _product(_ks, _nh)), evaluate=False),
    "logits": sympy.Eq(sympy.Symbol(r"\mathrm{logits}"), _product(2, _sl, _sl, _product(_ks, _nh)), evaluate=False),
    "softmax": sympy.Eq(sympy.Symbol(r"\mathrm{softmax}"), _product(3, _nh, _sl, _sl), evaluate=False),
    "reductions": sympy.Eq(sympy.Symbol(r"\mathrm{reductions}"), _product(2, _sl, _sl, _product(_ks, _nh)),
                           evaluate=False),
    "final_linear": sympy.Eq(sympy.Symbol(r"\mathrm{final\ linear}"), _product(2, _sl, _product(_ks, _nh), _dm),
                             evaluate=False),
    "dense": sympy.Eq(sympy.Symbol(r"\mathrm{dense}"),
                      _product(2, _sl, sympy.Add(_dm * _fs, _dm * _fs, evaluate=False)), evaluate=False),
    "final_logits": sympy.Eq(sympy.Symbol(r"\mathrm{final\ logits}"), _product(2, _sl, _dm, _vs), evaluate=False),
}
assert set(chinchilla_printed) == set(chinchilla_terms)

# Hoffmann et al. 2022: Chinchilla (Table 4: 80 layers, 64 heads of 128, d_model 8,192; a 4 d_model feed-forward
# as in Gopher; a vocabulary of 32,000; sequences of 2,048) trained on 1.4T tokens, "the same compute budget as
# Gopher", 5.76e23 FLOPs.
CHINCHILLA_WIDTH, CHINCHILLA_VOCABULARY, CHINCHILLA_SEQUENCE = 8192, 32000, 2048
CHINCHILLA_70B = {num_layers: 80, d_model: CHINCHILLA_WIDTH, num_heads: 64, key_size: 128, ffw_size: 4 * CHINCHILLA_WIDTH,
                  vocab_size: CHINCHILLA_VOCABULARY, seq_len: CHINCHILLA_SEQUENCE}
CHINCHILLA_TOKENS, CHINCHILLA_PUBLISHED, CHINCHILLA_NOMINAL = 1_400 * 10**9, 5.76e23, 70 * 10**9
_chinchilla_sequences = CHINCHILLA_TOKENS // 2048
assert _chinchilla_sequences * 2048 == CHINCHILLA_TOKENS
# Appendix F's own count, forward and (as Appendix F says) a backward of twice it, over every sequence.
chinchilla_run_appendix_f = 3 * int(chinchilla_forward.subs(CHINCHILLA_70B)) * _chinchilla_sequences
# The derived step on the same shapes in GPT's layout (Chinchilla's relative positions left out).
chinchilla_run_derived = int(gpt2_step.subs({L: 80, D: CHINCHILLA_WIDTH, F: 4 * CHINCHILLA_WIDTH, V: CHINCHILLA_VOCABULARY,
                                              s: CHINCHILLA_SEQUENCE})) * _chinchilla_sequences
chinchilla_six_nd = 6 * CHINCHILLA_NOMINAL * CHINCHILLA_TOKENS
# How far Appendix F's count falls below the published 5.76e23, as a fraction of it.
chinchilla_shortfall = sympy.Rational(576 * 10**21 - chinchilla_run_appendix_f, 576 * 10**21)
