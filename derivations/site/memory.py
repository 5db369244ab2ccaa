r"""What the memory page shows: Korthikanti et al.'s activations with tensor and sequence parallelism, what
transformers' own GPT-2 and LLaMA layers save, the published figures it reconciles, the cache a token leaves in
three families, its example and its picture. Page exhibits over the library's :mod:`derivations.memory` and
:mod:`derivations.storage`; a page names them ``memory.NAME``.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .. import configs, registry
from ..components import AttentionLayout, attention, evaluate
from ..families import deepseek_v3, gpt2, llama, t5
from ..memory import cached, per_token
from ..storage import (ADAM_8BIT_BLOCK, ADAM_8BIT_MIN_SIZE, DECIMAL, OPTIMIZERS, ZERO_EXAMPLE_DEVICES, ZERO_EXAMPLE_PARAMETERS,  # noqa: F401
                       activations, activations_full, activations_selective, both_units, in_unit, zero)
from ..symbols import D, F, H, H_r, K, L, b, d_h, d_n, d_r, d_v, s, t, u, w

# The sequence the family pages' memory tables evaluate the cache at (or the position table's length, if shorter).
TABLE_CONTEXT = 4096

# The lengths the memory page opens with (its first table: weights and cache, does it fit).
OPENING_LENGTHS = (8 * 1024, 32 * 1024, 128 * 1024)

# Phi-3-mini-4k: its positions, the window its config gives every layer, and the tokens transformers' cache keeps
# in each (the window less the current token).
_PHI3 = configs.load("phi-3-mini-4k")
PHI3_POSITIONS, PHI3_WINDOW = _PHI3["max_position_embeddings"], _PHI3["sliding_window"]
PHI3_KEPT = PHI3_WINDOW - 1

# 8-bit Adam's blocks before bitsandbytes 0.44.0, as its changelog gives them [cite: bitsandbytes-code].
ADAM_8BIT_FIRST_BLOCK = 2048

# ---------------------------------------------------------------------------------------------
# Activations (Korthikanti et al. 2022, Megatron's GPT layer, 16-bit activations, 1-byte dropout masks)
# ---------------------------------------------------------------------------------------------

h, a = D, H
# Per layer, in bytes (derivations.storage.activations, which the command line evaluates), and with tensor
# parallelism over t devices, sequence parallelism and selective recomputation (their Table 2).
korthikanti = {
    "none": activations(s, b, h, a),
    "tensor_parallel": s * b * h * (10 + 24 / t + 5 * a * s / (h * t)),
    "tensor_sequence_parallel": s * b * h * (34 / t + 5 * a * s / (h * t)),
    "tensor_parallel_selective": s * b * h * (10 + 24 / t),
    "tensor_sequence_parallel_selective": s * b * h * 34 / t,
    "full_recomputation": activations_full(s, b, h),
}
assert sympy.expand(korthikanti["tensor_sequence_parallel_selective"].subs(t, 1) - activations_selective(s, b, h)) == 0
# The attention term's share against the rest: 5as/h (GPT-3: 80; MT-NLG: 64).
attention_ratio = 5 * a * s / h


# ---------------------------------------------------------------------------------------------
# Activations as transformers' own layers save them (eager attention, training mode, fp32 on CPU)
# ---------------------------------------------------------------------------------------------
# Counted as distinct storages that autograd keeps for the backward pass (a view, such as a key split off
# the fused QKV output, shares its tensor's storage), the weights not counted: elements of one sequence,
# per layer. On CPU a dropout keeps its random scale as a float tensor of its input's size (input * noise,
# where CUDA's fused kernel keeps a 1-byte mask). In 16-bit training the norms' inputs are cast to fp32 and
# the count differs.

# GPT2Block: ln_1, attention, dropout, residual; ln_2, MLP (gelu_new), dropout, residual.
gpt2_saved = {
    # LayerNorm keeps its input and, per token, a mean and a reciprocal standard deviation: twice.
    "layer_norms": 2 * (s * D + 2 * s),
    # c_attn's input (ln_1's output), its fused output (Q, K^T and V are views of it: 3 s D), the
    # softmax's output, the head outputs merged (c_proj's input).
    "attention": s * D + 3 * s * D + H * s**2 + s * D,
    # c_fc's input (ln_2's output); gelu_new, written as Python arithmetic, keeps four s-by-F tensors
    # (c_fc's output for pow, tanh's output, 0.5 x and 1 + tanh(...) for their product); c_proj's input.
    "mlp": s * D + 4 * s * F + s * F,
}
# With dropout (attn_pdrop, resid_pdrop > 0): the noise of the attention weights and the dropped weights
# themselves (the weighted sum's operand), and the noise of each residual branch.
gpt2_dropout = 2 * H * s**2 + 2 * s * D

# LlamaDecoderLayer: RMSNorm, attention with rotary positions, residual; RMSNorm, SwiGLU MLP, residual.
# repeat_kv expands the K key/value heads to H and reshapes, and matmul folds the batch into its bmm's batch:
# the operands kept are copies of H heads, except with one key/value head and one sequence, where both
# reshapes are views of that one head (and with K = H there is nothing to repeat).
def repeated_heads(heads: int, kv_heads: int, batch: int) -> int:
    """The heads of the keys and values that the attention's matmuls keep: H_r."""
    return 1 if kv_heads == 1 and batch == 1 else heads


llama_saved = {
    # RMSNorm keeps its input (for pow), the per-token reciprocal root (rsqrt's output) and the normalized
    # x (for the weight's gradient); the projections keep its output: twice.
    "rms_norms": 2 * (3 * s * D + s),
    # Q after rotation and K, V as the matmuls take them (H_r heads each, below), the softmax's output, the
    # head outputs merged (o_proj's input).
    "attention": H * s * d_h + 2 * H_r * s * d_h + H * s**2 + H * s * d_h,
    # gate's output (SiLU's input), SiLU's output and up's output (their product's operands), the product
    # (down's input).
    "mlp": 4 * s * F,
}
# The rotary cos and sin (s by d_h each), computed once by the model and kept by every layer's rotation:
# one storage each, counted once for the whole model.
llama_rotary = 2 * s * d_h
# K is not in the count, only H_r: the stored heads matter only in the view case.
assert K not in sympy.Add(*llama_saved.values()).free_symbols


# ---------------------------------------------------------------------------------------------
# Published figures, read exactly: what unit each one is in, and what it counts
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Published:
    """A memory figure as printed (``printed``, by ``source``), the exact number of bytes it stands for
    (``exact``: derived here, or the source's own arithmetic where the model is not one of ours), what unit the
    printed figure is in (``reading``), and the right figure for the model it was meant for (``right``)."""

    key: str
    printed: str
    claim: str
    source: str
    exact: int
    reading: str
    right: str = ""


def _count(architecture: str, checkpoint: str) -> int:
    return registry.checkpoint(checkpoint, architecture).total


# BertEmbeddings registers two int64 buffers of P entries (position_ids, token_type_ids): accelerate counts them.
BERT_BUFFERS = 2 * 512 * 8
# OPT-13B (Zhang et al. 2022), as the vLLM paper sizes it: width 5,120, 40 layers, multi-head attention, fp16.
OPT_13B_WIDTH, OPT_13B_LAYERS, OPT_13B_CONTEXT = 5120, 40, 2048
# llm-analysis's own count of OPT-175B (its tests/test_training.py): no biases, no position embeddings.
LLM_ANALYSIS_OPT_175B = 174_566_289_408


def published() -> tuple[Published, ...]:
    """The figures the memory page reconciles."""
    chinese = _count("BertModel", "bert-base-chinese")
    pretraining = _count("BertForPreTraining", "bert-base-uncased")
    cased = _count("BertModel", "bert-base-cased")
    llama = _count("LlamaForCausalLM", "llama-7b")
    # A multi-head self-attention block of a decoder: what one token leaves in one layer's cache (2 H d_h = 2D).
    block = attention(D, H, d_h, causal=True, layout=AttentionLayout("q", "k", "v", "o"))
    opt_token = OPT_13B_LAYERS * evaluate(block.cache, {H: 40, d_h: OPT_13B_WIDTH // 40})  # elements
    zero_figure = ", ".join(in_unit(zero(ZERO_EXAMPLE_PARAMETERS, ZERO_EXAMPLE_DEVICES, stage), DECIMAL, 1)
                            for stage in range(4))
    return (
        Published("note-chinese-blog", "72.1 MB", "75,641,856 parameters, “72.1 MB”", "note-chinese-blog",
                  75_641_856, "a parameter count divided by 1,048,576 (a MiB's bytes): 72.14, a count in binary millions, not a size",
                  f"BertModel on bert-base-chinese has {chinese:,} parameters: {both_units(4 * chinese)} in fp32"),
        Published("note-stemgene", "440M", "the model.safetensors download of bert-base-uncased", "note-stemgene",
                  4 * pretraining, f"BertForPreTraining's {pretraining:,} fp32 parameters (the file holds the "
                  "pre-training heads): decimal megabytes, a million bytes each",
                  f"BertModel, which the note loads, holds {both_units(4 * _count('BertModel', 'bert-base-uncased'))}"),
        Published("accelerate-estimator", "413.18 MB", "bert-base-cased in float32, total size",
                  "accelerate-estimator", 4 * cased + BERT_BUFFERS,
                  f"BertModel's {cased:,} parameters in fp32 and its two int64 buffers of 512 ({BERT_BUFFERS:,} bytes), "
                  "divided by 1,048,576: MiB labelled MB",
                  f"{both_units(4 * cased + BERT_BUFFERS)}; an untied output head is left out (it builds the base model)"),
        Published("lit-llama-67", "26.07 GB", "“7e9 * 4 / 1024**3 = 26.07 GB” for LLaMA 7B in fp32", "lit-llama-67",
                  28_000_000_000, "a rounded count times 4, divided by 1,073,741,824: GiB labelled GB",
                  f"LLaMA 7B has {llama:,} parameters: {both_units(4 * llama)} in fp32"),
        Published("llm-analysis", "162.58 G", "OPT-175B's parameters", "llm-analysis", LLM_ANALYSIS_OPT_175B,
                  "its own count of 174,566,289,408 parameters divided by 1,073,741,824: a binary prefix on a count",
                  "174.57 billion parameters, as that count has it (it leaves out biases and position embeddings)"),
        Published("kwon2023", "800 KB", "OPT-13B's key/value cache for one token (fp16)", "kwon2023",
                  2 * opt_token, "2 × 5,120 × 40 × 2 bytes = 800 × 1,024: KiB",
                  f"{both_units(2 * opt_token)} a token; {OPT_13B_CONTEXT:,} tokens: "
                  f"{both_units(2 * opt_token * OPT_13B_CONTEXT)} (printed “1.6 GB”: GiB, rounded)"),
        Published("rajbhandari2020", "120 GB, 31.4 GB, 16.6 GB, 1.9 GB",
                  "7.5B parameters, 64 devices, mixed-precision Adam: no partition, then ZeRO stages 1, 2 and 3",
                  "rajbhandari2020", zero(ZERO_EXAMPLE_PARAMETERS, ZERO_EXAMPLE_DEVICES, 1),
                  "16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N bytes a device: decimal GB",
                  f"exactly {zero_figure} (stage 1: {zero(ZERO_EXAMPLE_PARAMETERS, ZERO_EXAMPLE_DEVICES, 1):,} bytes)"),
    )


# ---------------------------------------------------------------------------------------------
# What the memory page shows: the cache a token leaves, read off the families' trees
# ---------------------------------------------------------------------------------------------


cache_gpt2 = per_token(gpt2.ARCHITECTURES["GPT2LMHeadModel"])  # 2 L D: multi-head attention keeps every head
cache_llama = per_token(llama.ARCHITECTURES["LlamaForCausalLM"])  # 2 L K d_h: grouped-query attention keeps K heads
cache_deepseek = per_token(deepseek_v3.ARCHITECTURES["DeepseekV3ForCausalLM"])  # L (R_kv + d_rope): the latent
# What multi-head attention with DeepSeek's heads would keep: H keys of d_nope + d_rope, H values of d_v.
cache_deepseek_multi_head = L * H * (d_n + d_r + d_v)
cache_t5_self = per_token(t5.ARCHITECTURES["T5ForConditionalGeneration"])
cache_t5_cross = per_token(t5.ARCHITECTURES["T5ForConditionalGeneration"], cross=True)
# The page's example: Llama 3 8B in bf16, its cache at s tokens.
example_weights = 2 * llama.ARCHITECTURES["LlamaForCausalLM"].total
example_cache = 2 * s * cache_llama
example_training = OPTIMIZERS["adam-mixed"].per_parameter * llama.ARCHITECTURES["LlamaForCausalLM"].total
# The forward at inference (derivations.transient): at a long context LLaMA's peak is at one layer's softmax, where
# the masked scores, their fp32 copy and the fp32 softmax (H heads) sit beside the mask (one for all heads); the
# terms of that moment in s^2, in bf16 (w = 2, u = 1).
def _at_long_context(moment: sympy.Expr) -> sympy.Expr:
    """A moment's terms in s^2 in bf16, 32 heads and every other size and condition 1: what orders the moments at
    a long context."""
    coefficient = sympy.expand(moment).coeff(s, 2).subs({w: 2, u: 1, H: 32})
    return coefficient.subs({symbol: 1 for symbol in coefficient.free_symbols})


_softmax_moment = max(llama.TRANSIENT[""]["LlamaForCausalLM"].generate, key=_at_long_context)
transient_scores_llama = sympy.factor(sympy.expand(_softmax_moment.subs({w: 2, u: 1})).coeff(s, 2)) * s**2
# The lengths of the page's table of inference totals.
INFERENCE_LENGTHS = OPENING_LENGTHS
gpt2_saved_total = sympy.expand(sum(gpt2_saved.values()) + gpt2_dropout)
llama_saved_total = sympy.expand(sum(llama_saved.values()))

# The picture: weights, the cache and activations against the sequence length, for three ways of caching.
PICTURE_MODELS = (("llama-3.2-1b", "LlamaForCausalLM"), ("mistral-7b", "MistralForCausalLM"),
                  ("deepseek-v2-lite", "DeepseekV2ForCausalLM"))
PICTURE_LENGTHS = tuple(2**k for k in range(10, 18))  # 1,024 to 131,072 tokens


def picture(checkpoint: str, architecture: str) -> list[tuple[int, int, int, int]]:
    """(tokens, weights, cache, activations) in bytes, bf16, batch 1, at each length the model reads: the cache
    as transformers keeps it, the activations by Korthikanti et al.'s formula with selective recomputation."""
    config = configs.load(checkpoint)
    resolved = registry.resolve(config, architecture)
    weights = 2 * resolved.total
    longest = config.get("max_position_embeddings", PICTURE_LENGTHS[-1])
    values = resolved.values
    out = []
    for tokens in PICTURE_LENGTHS:
        if tokens > longest:
            break
        kept_for_backward = values[L] * activations_selective(tokens, 1, values[D])
        out.append((tokens, weights, 2 * cached(resolved.part, values, config, tokens), kept_for_backward))
    return out
# ---------------------------------------------------------------------------------------------
# Does it fit: a published measurement beside the derivation
# ---------------------------------------------------------------------------------------------
# Qwen's speed benchmark of Qwen2.5-7B-Instruct (Qwen2.5-7B's shapes) in BF16 with transformers, flash attention,
# on an A100 80GB, batch 1: generate() makes 2,048 tokens after an input of each length, and the script prints
# the peak of torch.cuda.max_memory_allocated() divided by 1024 three times under "GPU Memory(GB)": GiB
# [cite: qwen25-speed-benchmark, "7B (Transformer)"] [cite: qwen25-speed-benchmark-script].
MEASURED_CHECKPOINT = "qwen2.5-7b"
MEASURED = ((1, "14.38"), (6144, "15.38"), (14336, "16.91"), (30720, "19.97"))
MEASURED_GENERATED = 2048


def measured() -> list[tuple[int, int, str, int, int, int, int]]:
    """(input tokens, tokens the last step's cache holds, the figure as printed, its bytes at the printed
    precision, the weights and that cache in bf16, and the inference total of the forward on the prompt under sdpa
    attention and under eager) for each of Qwen's measurements: the last step of generate runs with the input and
    every generated token but the last in its cache; the forward on the prompt holds the weights, the input's cache
    and its transient peak (flash attention, which Qwen ran, holds no scores, as sdpa's kernels)."""
    from fractions import Fraction

    from .. import answers

    config = configs.load(MEASURED_CHECKPOINT)
    out = []
    for tokens, printed in MEASURED:
        cached_tokens = tokens + MEASURED_GENERATED - 1
        held = answers.memory(config, None, cached_tokens)
        prompt = {attention: answers.inference_bytes(config, None, tokens, attention=attention)
                  for attention in ("sdpa", "eager")}
        out.append((tokens, cached_tokens, printed, int(Fraction(printed) * 2**30),
                    held["weights_bytes"] + held["kv_cache_bytes"], prompt["sdpa"], prompt["eager"]))
    return out


# The units, as the page states them.
megabyte, mebibyte = sympy.Pow(10, 6, evaluate=False), sympy.Pow(2, 20, evaluate=False)
gigabyte, gibibyte = sympy.Pow(10, 9, evaluate=False), sympy.Pow(2, 30, evaluate=False)


# ---------------------------------------------------------------------------------------------
# Quantized checkpoints: what one linear map holds under each method (derivations.quantization, which the command
# line evaluates without SymPy; tests/test_quantization.py holds the two equal)
# ---------------------------------------------------------------------------------------------

n_in, n_out = sympy.Symbol(r"n_{\mathrm{in}}", positive=True, integer=True), sympy.Symbol(
    r"n_{\mathrm{out}}", positive=True, integer=True)
_ceil = sympy.ceiling
# A map of n_in inputs and n_out outputs, N = n_in n_out weights, 4 bits (GPTQ also b bits in groups of g).
_N = n_in * n_out
_b, _g = sympy.Symbol("b", positive=True, integer=True), sympy.Symbol("g", positive=True, integer=True)
# (the example's quantization_config, what one linear map holds in bytes, the modules it replaces)
QUANTIZED = (
    ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True},
     4 * _ceil(_b * n_in / 32) * n_out + 4 * _ceil(n_in / _g) * _ceil(_b * n_out / 32) + 2 * _ceil(n_in / _g) * n_out
     + 4 * n_in,
     "the linear maps of the repeated blocks (not the head)"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True},
     4 * n_in * n_out / 8 + 4 * (n_in / _g) * n_out / 8 + 2 * (n_in / _g) * n_out,
     "every nn.Linear but the output head"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
     _ceil(_N / 2) + 4 * _ceil(_N / 64) + 16 * 4,
     "every nn.Linear (GPT-2's Conv1D too) but the output head; not stacked experts"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
      "bnb_4bit_use_double_quant": True},
     _ceil(_N / 2) + _ceil(_N / 64) + 4 * _ceil(_ceil(_N / 64) / 256) + 4 + 256 * 4 + 16 * 4,
     "the same"),
    ({"quant_method": "bitsandbytes", "load_in_8bit": True}, _N + 4 * n_out, "the same"),
    ({"quant_method": "fp8", "weight_block_size": [128, 128], "activation_scheme": "dynamic"},
     _N + 4 * _ceil(n_out / 128) * _ceil(n_in / 128),
     "every nn.Linear and a mixture's stacked experts, but the output head"),
    ({"quant_method": "fbgemm_fp8"}, _N + 4 * n_out + 4, "every nn.Linear but the output head"),
    ({"quant_method": "mxfp4"}, _N / 2 + _N / 32, "a mixture's stacked experts (gpt-oss)"),
)
# The parameters GPTQ's and AWQ's formulas are written with, as the example configs set them.
QUANTIZED_SYMBOLS = {_b: 4, _g: 128}
