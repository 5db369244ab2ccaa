"""LLaMA (Touvron et al. 2023; Llama 2, Llama 3), composed from the components, laid out as transformers'
``LlamaModel``.

A decoder-only stack of pre-norm layers: RMSNorm (a scale only), grouped-query self-attention with
``K`` key/value heads shared by ``H`` query heads of size ``d_h`` (no biases unless
``attention_bias``), RMSNorm, a gated SwiGLU feed-forward of three matrices (no biases unless
``mlp_bias``); a final RMSNorm, and a language-model head of its own (untied) unless
``tie_word_embeddings`` (Llama 3.2 1B and 3B tie it). Rotary position embeddings rotate queries and
keys by fixed angles: no parameters. Mistral (``derivations.mistral``) builds on the same blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import sympy

from ..contract import Family, Headline
from ..claims import Miscount, Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, embedding, feed_forward, group, leaf, linear,
                         rms_norm, score, task_heads, tied_tensor)
from ..readers import llama as reader
from ..sources import Citation
from ..symbols import C, D, F, H, K, L, M, V, b, d_h, g_kv, l_2, m_1, m_2, r, s
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# One decoder layer (pre-norm): RMSNorm, attention, residual; RMSNorm, gated feed-forward, residual
# $$N_\mathrm{layer} = D + (D H d_h + 2 D K d_h + H d_h D) + D + 3 D F$$  without biases.
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")


def self_attention(bias: bool = False) -> Part:
    """LlamaAttention (``self_attn``): Q to H d_h, K and V to K d_h each, O back to D; with
    ``attention_bias`` all four have a bias (o_proj's too)."""
    return attention(D, H, d_h, K, bias=bias, layout=_PROJECTIONS, path="self_attn", causal=True,
                     label="grouped-query self-attention" + (" with biases" if bias else ""))


# $$\mathrm{FFN}(x) = (\mathrm{SiLU}(x W_\mathrm{gate}) \odot x W_\mathrm{up}) W_\mathrm{down}$$
def gated_feed_forward(bias: bool = False) -> Part:
    """LlamaMLP (``mlp``): gate_proj and up_proj D to F, down_proj F to D; biases with ``mlp_bias``."""
    return feed_forward(D, F, bias=bias, gate="gate_proj", up="up_proj", down="down_proj", path="mlp",
                        label="gated (SwiGLU) feed-forward" + (" with biases" if bias else ""))


def decoder_layer(attention_bias: bool = False, mlp_bias: bool = False, *, mlp: Part | None = None,
                  mlp_label: str = "the feed-forward", attention: Part | None = None) -> Part:
    """LlamaDecoderLayer (``layers.<i>``); MistralDecoderLayer holds the same tensors. ``mlp`` replaces
    the gated feed-forward (Mixtral's mixture of experts); its norm is named after it. ``attention``
    replaces the attention (Qwen2's biases on q, k and v alone)."""
    mlp = mlp if mlp is not None else gated_feed_forward(mlp_bias)
    return group("layer", "decoder layer",
                 rms_norm("attention_norm", D, "input_layernorm", label="RMSNorm before attention"),
                 attention if attention is not None else self_attention(attention_bias),
                 rms_norm(f"{mlp.name}_norm", D, "post_attention_layernorm", label=f"RMSNorm before {mlp_label}"),
                 mlp,
                 path="layers", symbol=r"N_{\mathrm{layer}}")


token_embeddings = embedding("embed_tokens", "token embeddings", V, D, "embed_tokens")
final_norm = rms_norm("final_norm", D, "norm", label="final RMSNorm (after the last layer)")


def base_model(layer: Part, name: str, label: str, path: str | None) -> Part:
    """The body (LlamaModel, MistralModel): embeddings, L layers with weights of their own, final norm.
    Rotary embeddings (``rotary_emb``) hold a buffer of inverse frequencies, not a parameter."""
    return group(name, label, token_embeddings, replace(layer, repeat=L), final_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


def lm_head(tied: bool) -> Part:
    """The language-model head: D to V without bias; tied, it *is* the token embedding table."""
    if tied:
        return as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                                   "model.embed_tokens", "lm_head", matrix=D * V), "heads")
    return as_kind(linear("lm_head", "language-model head (a weight of its own, no bias)", D, V, False, "lm_head"),
                   "heads")


def architectures(prefix: str = "Llama", *, attention_bias: bool = False, mlp_bias: bool = False,
                  tied: bool = False, no_token_bias: bool = False, qa_prefix: str = "transformer",
                  layer: Part | None = None, suffix: str = "") -> dict[str, Part]:
    """Every class of one family (``Llama``, ``Mistral``, ``Mixtral``), named as transformers names it,
    around its decoder layer (LLaMA's, unless ``layer`` gives another; ``suffix`` qualifies the labels).

    The head classes keep the body under ``model``, except LlamaForQuestionAnswering, which keeps it
    under ``transformer`` (base_model_prefix, "for BC"); Mistral's and Mixtral's use ``model``.
    """
    layer = layer if layer is not None else decoder_layer(attention_bias, mlp_bias)
    body = f"{prefix}Model"
    body_label = f"{body}: embeddings, layers, final RMSNorm{suffix}"

    def model(name: str, label: str, head: Part, prefix: str = "model") -> Part:
        return group(name, label + suffix, base_model(layer, body, body_label, prefix),
                     head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        body: base_model(layer, body, body_label, None),
        f"{prefix}ForCausalLM": model(f"{prefix}ForCausalLM", "with the language-model head", lm_head(tied)),
        # The token classifier has a bias unless token_classification_bias is false (its label says which).
        **{name: model(name, label, head, prefix=qa_prefix if name.endswith("QuestionAnswering") else "model")
           for name, (label, head) in task_heads(prefix, score(D, C, not no_token_bias)).items()},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.llama.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)

LlamaForCausalLM_tied = VARIANTS["tied"]["LlamaForCausalLM"]

layer = decoder_layer()
attention_block = layer.child("attention")
feed_forward_block = layer.child("feed_forward")

# Everything but the token embeddings and the head.
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings, no head)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

# Multi-head attention is the case K = H: grouped-query attention saves 2 D (H - K) d_h per layer.
MULTI_HEAD = {K: H}
# The original shapes: heads partition the width.
STANDARD = {d_h: D / H}
layer_standard = layer.subs(STANDARD)
layer_multi_head = layer.subs(STANDARD | MULTI_HEAD)

# ---------------------------------------------------------------------------------------------
# The feed-forward width (Meta's llama/model.py, FeedForward, called with hidden_dim = 4 dim):
#     hidden_dim = int(2 * hidden_dim / 3)
#     if ffn_dim_multiplier is not None: hidden_dim = int(ffn_dim_multiplier * hidden_dim)
#     hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
# $$F = M \lceil \lfloor r \lfloor 8D/3 \rfloor \rfloor / M \rceil$$
# Two thirds of 4D keeps the three matrices of the gated feed-forward near the 8 D^2 of a plain one
# (Shazeer 2020); r widens it (Llama 2 70B and Llama 3); M rounds it up to a multiple for the hardware.
# transformers' config does not hold multiple_of or ffn_dim_multiplier: intermediate_size is the result.
# ---------------------------------------------------------------------------------------------

# The first step alone: two thirds of 4D, truncated.
two_thirds_width = sympy.floor(8 * D / 3)
meta_width = sympy.Eq(F, M * sympy.ceiling(sympy.floor(r * two_thirds_width) / M), evaluate=False)
# Without the rounding, the gated feed-forward holds as many weights as a plain one of width 4D.
plain_equivalent = sympy.Eq(3 * D * F, 2 * D * (4 * D), evaluate=False)


def width(dim: int, multiple_of: int, multiplier: sympy.Rational | int = 1) -> int:
    """Meta's feed-forward width for one model, evaluated from :data:`meta_width` exactly (the
    multiplier as an exact rational: 1.3 is 13/10)."""
    value = meta_width.rhs.subs({D: dim, M: multiple_of, r: sympy.nsimplify(multiplier)})
    assert value.is_Integer, value
    return int(value)


# (dim, multiple_of, ffn_dim_multiplier) of Meta's params.json for each bundled checkpoint whose width
# the rule gives, and where each was read:
_LLAMA1_CODE = ("meta-llama/llama, llama/model.py at 1076b9c (LLaMA-1: ModelArgs multiple_of 256, "
                "FeedForward(hidden_dim=4 * dim), no multiplier)")
PARAMS = {
    "llama-7b": (4096, 256, 1, _LLAMA1_CODE),
    "llama-13b": (5120, 256, 1, _LLAMA1_CODE),
    "llama-30b": (6656, 256, 1, _LLAMA1_CODE),
    "llama-65b": (8192, 256, 1, _LLAMA1_CODE),
    "llama-2-7b": (4096, 256, 1, "Llama 2 7B params.json: multiple_of 256, no multiplier (quoted in tinygrad's "
                                 "examples/llama.py and llama.cpp's convert.py)"),
    "llama-2-13b": (5120, 256, 1, "Llama 2 13B params.json: multiple_of 256, no multiplier (same copies)"),
    "llama-2-70b": (8192, 4096, sympy.Rational(13, 10),
                    "Llama 2 70B params.json, quoted in llama.cpp's convert.py: \"multiple_of\": 4096, "
                    "\"ffn_dim_multiplier\": 1.3"),
    "llama-3-8b": (4096, 1024, sympy.Rational(13, 10),
                   "meta-llama/llama3, Meta-Llama-3-8B-Instruct/params.json: multiple_of 1024, ffn_dim_multiplier 1.3"),
    "llama-3-70b": (8192, 4096, sympy.Rational(13, 10),
                    "meta-llama/llama3, Meta-Llama-3-70B/params.json: multiple_of 4096, ffn_dim_multiplier 1.3"),
}

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.llama.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# config.json as published on the Hugging Face hub [cite: hub-meta-llama]:
#   llama-7b, -13b, -30b, -65b   huggyllama/llama-7b ... -65b (LLaMA-1 converted; sizes as in Meta's
#                                MODEL_CARD.md and the width rule above)
#   llama-2-7b, -13b, -70b       meta-llama/Llama-2-7b-hf, -13b-hf, -70b-hf (transformers 4.31/4.32 uploads)
#   llama-3-8b, llama-3-70b      meta-llama/Meta-Llama-3-8B, Meta-Llama-3-70B
#   llama-3.1-405b               meta-llama/Llama-3.1-405B (the count setting fields; 405,853,388,800 in all,
#                                the 405.85B the model cards give; the compute page's training run)
#   llama-3.2-1b, llama-3.2-3b   meta-llama/Llama-3.2-1B, Llama-3.2-3B (head_dim set; tie_word_embeddings true)
# The last two build another layout (VARIANTS["tied"]): the page's table counts each in its own.
TIED_CHECKPOINTS = ("llama-3.2-1b", "llama-3.2-3b")


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_LLAMA1_PAPER = Citation("touvron2023", "Table 2")


def _paper(name: str, tenths: int, checkpoint: str) -> Rounded:
    printed = f"{tenths // 10}.{tenths % 10}B"
    return Rounded(f"paper_{name}", tenths * 10**8, f"LLaMA {name.upper()}", _LLAMA1_PAPER, checkpoint,
                   (ARCHITECTURES["LlamaForCausalLM"],), precision=10**8, printed=printed)


# The paper's four sizes to a tenth of a billion. Three round from the exact counts; 65.2B does not
# (65.29 rounds to 65.3). All four fit truncation: the table may have truncated; the paper does not say.
PAPER = (_paper("7b", 67, "llama-7b"), _paper("13b", 130, "llama-13b"), _paper("33b", 325, "llama-30b"),
         _paper("65b", 652, "llama-65b"))

_LLAMA2_CARD = Citation("llama2-card")
_LLAMA3_CARD = Citation("llama3-card")

# The names the releases go by, in billions: names, not roundings (Llama 2 70B has 69.0 billion).
NAMES = tuple(Rounded(f"name_{name.replace('-', '_').replace('.', '_')}", billions * 10**9, what, source, name,
                      (ARCHITECTURES["LlamaForCausalLM"],), precision=10**9, printed=f"{billions}B")
              for name, billions, what, source in (
                  ("llama-2-7b", 7, "Llama 2 7B", _LLAMA2_CARD), ("llama-2-13b", 13, "Llama 2 13B", _LLAMA2_CARD),
                  ("llama-2-70b", 70, "Llama 2 70B", _LLAMA2_CARD), ("llama-3-8b", 8, "Llama 3 8B", _LLAMA3_CARD),
                  ("llama-3-70b", 70, "Llama 3 70B", _LLAMA3_CARD)))

# (1) [cite: transformerlens-448]: HookedTransformerConfig counts, per layer, W_Q, W_K, W_V, W_O as
# d_model * d_head * n_heads * 4, and the MLP as d_model * d_mlp * 2 ("2 because W_in and W_out"):
# a gated MLP has three matrices, and embeddings, unembedding and norms are not counted at all.
_TRANSFORMERLENS = Citation("transformerlens-448", "<code>llama.cfg.n_params  # 5033164800</code> for LLaMA-7B")
two_matrix_mlp = Miscount(
    "two_matrix_mlp", 5_033_164_800, "LLaMA-7B, <code>cfg.n_params</code> of TransformerLens",
    _TRANSFORMERLENS, "llama-7b", ARCHITECTURES["LlamaForCausalLM"],
    terms=(leaf("gate", "the third matrix of every gated MLP (gate_proj)", L * D * F),
           leaf("embeddings", "token embeddings", V * D),
           leaf("unembedding", "the language-model head (untied)", V * D),
           leaf("norms", "RMSNorm weights: two per layer and the final one", (2 * L + 1) * D)),
    reconstruction=group("claimed", "TransformerLens's n_params",
                         leaf("attention", "W_Q, W_K, W_V, W_O", L * 4 * D * d_h * H),
                         leaf("mlp", "W_in, W_out", L * 2 * D * F)),
    model="LLaMA-7B (<code>llama-7b</code>)",
    cause="TransformerLens's <code>n_params</code> counts two matrices per gated MLP instead of three, and no "
          "embeddings, head or norms",
)

# (2) [cite: bitsandbytes-834]: Llama-2-7B loaded in 4 bits prints "all params: 3,540,389,888". bitsandbytes'
# Params4bit packs two 4-bit values in one uint8 element, so numel() of each quantized weight is half its
# parameter count. transformers quantizes every nn.Linear except the output embedding (lm_head; see
# quantizers/base.py, get_keys_to_not_convert); the embedding table and the RMSNorm weights are not
# Linear and stay whole. That accounts for 3,500,412,928. The remaining 39,976,960 are exactly LoRA
# adapters of rank 16 on the seven projections of every layer (the usual QLoRA setup). That they were in
# the printed sum is an inference: the snippet in the issue shows no adapters, and nothing else we know of
# fits the difference exactly.
LORA_RANK = 16
quantized_weights = (attention_block.total + feed_forward_block.total) * L
_lora = leaf("lora", f"LoRA adapters of rank {LORA_RANK} on q, k, v, o, gate, up and down, in every layer "
             "(A: in by r, B: r by out; inferred, not shown in the issue)",
             L * LORA_RANK * ((D + H * d_h) + 2 * (D + K * d_h) + (H * d_h + D) + 3 * (D + F)))
_BNB = Citation("bitsandbytes-834")
quantized_4bit = Miscount(
    "quantized_4bit", 3_540_389_888, "Llama-2-7B loaded in 4 bits (nf4), summing <code>numel()</code> over "
    "<code>named_parameters()</code>", _BNB, "llama-2-7b", ARCHITECTURES["LlamaForCausalLM"],
    terms=(leaf("packed", "half of every quantized weight (q, k, v, o, gate, up, down): numel() of a Params4bit "
                "counts bytes, two 4-bit values each", quantized_weights / 2),
           replace(_lora, expr=-_lora.expr, label="minus the LoRA adapters the printed sum is inferred to include")),
    reconstruction=group("claimed", "the printed sum",
                         leaf("quantized", "the seven projections of every layer, as uint8 bytes", quantized_weights / 2),
                         leaf("embeddings", "token embeddings (not Linear: not quantized)", V * D),
                         leaf("norms", "RMSNorm weights (not quantized)", (2 * L + 1) * D),
                         leaf("lm_head", "lm_head (skipped: the output embedding)", V * D),
                         _lora),
    model="Llama 2 7B (<code>llama-2-7b</code>)",
    cause="loaded in 4 bits, <code>numel()</code> counts the bytes of a quantized weight, half its parameters (and "
          "the sum, we infer, includes LoRA adapters)",
)

# (3) [cite: llama-1111]: "80 x (4 x 8192 x 8192 + 3 x 8192 x 28672) + 32000 x 8192 ~ 78B" for
# Llama-2-70B: keys and values counted with all 64 heads instead of 8, the head left out.
_ISSUE_1111 = Citation("llama-1111")
gqa_ignored = Miscount(
    "gqa_ignored", 78_108_426_240, "Llama-2-70B as “~78B”: 80 x (4 x 8192 x 8192 + 3 x 8192 x 28672) + 32000 x 8192",
    _ISSUE_1111, "llama-2-70b", ARCHITECTURES["LlamaForCausalLM"],
    terms=(leaf("key_value", "keys and values: K = 8 heads, not H = 64", -2 * L * D * (H - K) * d_h),
           leaf("head", "the language-model head (untied)", V * D),
           leaf("norms", "RMSNorm weights: two per layer and the final one", (2 * L + 1) * D)),
    reconstruction=group("claimed", "the issue's arithmetic",
                         leaf("layers", "80 x (4 x 8192 x 8192 + 3 x 8192 x 28672)", L * (4 * D**2 + 3 * D * F)),
                         leaf("embeddings", "32000 x 8192", V * D)),
    printed="78B",
    model="Llama 2 70B (<code>llama-2-70b</code>)",
    cause="keys and values are counted with as many heads as queries, though the model groups them (grouped-query "
          "attention), and the head and the norms are left out",
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_llama.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, x: str, generate: bool, qk_norm: bool = False, capped=None,
                      norm=tr.rms_norm, folded=None) -> tuple[str, tuple[str, str]]:
    """LlamaAttention.forward on the normed ``x``: q, k and v projected (views of the products), q and k rotated
    (where the layer rotates them, ``t.rotated``: SmolLM3's layers without rotary embeddings use the projections);
    with a cache (generate), k and v go into it and their transient tensors die there; eager attention; o_proj.
    Returns the output and the attention weights, which the layer holds (``hidden_states, _ = ...``). ``qk_norm``:
    Qwen3's RMSNorm of each query and key head (``q_norm(q_proj(x).view(...))``, ``norm`` the kin's), the product
    dying with it; ``capped``: Gemma 2's softcap of the scores; ``folded``: eager matmul's copies of its operands
    (both derivations.transient.eager_attention)."""
    rows = b * s

    def projected(name: str, heads) -> str:
        product = tr.linear(t, name, rows, heads * d_h)
        if not qk_norm:
            return product
        normed = norm(t, f"{name}_normed", d_h, rows=rows * heads)
        t.drop(product)
        return normed

    q, k, v = projected("q", H), projected("k", K), tr.linear(t, "v", rows, K * d_h)
    q_rot, k_rot = rotate_qk(t, q, k, rows)
    return rotated_attention_forward(t, None, None, q_rot, k_rot, v, generate, capped, folded)


def rotated_attention_forward(t: tr.Timeline, q: str | None, k: str | None, q_rot: str, k_rot: str, v: str,
                              generate: bool, capped=None, folded=None) -> tuple[str, tuple[str, str]]:
    """LlamaAttention.forward once q and k are rotated (a kin's rotation too): q and k die as their names are bound
    again (None: dead already); with a cache (generate), k and v go into it and their transient tensors die there;
    eager attention; o_proj. Returns the output and the attention weights."""
    if q is not None:
        t.drop(q, k)  # query_states, key_states = apply_rotary_pos_emb(...)
    if generate:
        t.drop(k_rot, v)  # key_states, value_states = past_key_values.update(...): the cache's tensors now
    context, weights = tr.attend(t, q_rot, k_rot, v, "mask", H, d_h, g_kv, capped, folded=folded)
    out = tr.linear(t, "o", b * s, D)
    t.drop(*context)
    t.drop(q_rot, *(() if generate else (k_rot, v)))  # the function returns
    return out, weights


def rotate_qk(t: tr.Timeline, q: str, k: str, rows) -> tuple[str, str]:
    """``query_states, key_states = apply_rotary_pos_emb(...)``: q and k rotated, the projections dying as the names
    are bound again; where the layer may not rotate (``t.rotated`` a condition), the rotation's moments exist only
    where it does, and the projections stand for the rotated tensors (the same sizes) where it does not."""
    if t.rotated == 1:
        q_rot, k_rot = tr.rotate(t, "q_rot", q, rows * H * d_h), tr.rotate(t, "k_rot", k, rows * K * d_h)
        t.drop(q, k)
        return q_rot, k_rot
    with t.only(t.rotated):
        q_rot, k_rot = tr.rotate(t, "q_rot", q, rows * H * d_h), tr.rotate(t, "k_rot", k, rows * K * d_h)
        t.drop(q, k)
    return q_rot, k_rot


def gated_mlp_forward(t: tr.Timeline, x: str, width=F) -> str:
    """LlamaMLP.forward: ``down_proj(act_fn(gate_proj(x)) * up_proj(x))``."""
    rows = b * s
    gate = tr.linear(t, "gate", rows, width)
    t.new("act", tr.activation(rows * width))
    t.drop(gate)
    tr.linear(t, "up", rows, width)
    t.new("product", tr.activation(rows * width))
    t.drop("act", "up")
    out = tr.linear(t, "down", rows, D)
    t.drop("product")
    return out


def embed(t: tr.Timeline) -> str:
    """``inputs_embeds = self.embed_tokens(input_ids)``: held by the model's forward until it returns."""
    return t.new("embeddings", tr.activation(b * s * D))


@dataclass(frozen=True)
class Kin:
    """What a family's forward at inference does otherwise than LLaMA's, statement block by block: its masks (by
    whether some layer slides), layer, logits, attention, feed-forward, norm (``norm(t, name, width, rows=None)``),
    embeddings and the part of a head its rotary embedding turns."""

    masks: Callable[[tr.Timeline, bool], tuple[str, ...]] = lambda t, sliding: (tr.causal_mask(t),)
    # A layer of its own (Gemma 2's four norms): layer(t, x, out, generate, kin); None: LLaMA's.
    layer: Callable | None = None
    # The logits of ``rows`` rows (Gemma 2 caps them): logits(t, rows); None: one product.
    logits: Callable | None = None
    attention: Callable = attention_forward
    mlp: Callable = gated_mlp_forward
    norm: Callable = tr.rms_norm
    embed: Callable[[tr.Timeline], str] = embed
    rotary_width: sympy.Expr = d_h
    # The rotary embeddings of its own (Gemma 3's one pair a kind of layer): rotary(t) -> the names held; None: one
    # pair of rotary_width.
    rotary: Callable | None = None
    # Whether the first layer, and some later layer, rotates its queries and keys (conditions: SmolLM3's r_1, r_2).
    rotated: tuple = (1, 1)


LLAMA = Kin()


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: Kin = LLAMA) -> str:
    """LlamaDecoderLayer.forward on ``x``, which its caller holds throughout: norm, attention, residual add, norm,
    feed-forward, residual add. The attention weights stay bound to ``_`` until the layer returns."""
    normed = kin.norm(t, "input_norm", D)
    attended, weights = kin.attention(t, normed, generate)
    t.drop(normed)
    t.new("residual", tr.activation(b * s * D))
    t.drop(attended)
    normed = kin.norm(t, "post_norm", D)
    mlp = kin.mlp(t, normed)
    t.drop(normed)
    t.new(out, tr.activation(b * s * D))
    t.drop(mlp, "residual", *weights)
    return out


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True, kin: Kin = LLAMA,
                      sliding: bool = False) -> None:
    """LlamaForCausalLM.forward (LlamaModel.forward without the head): the embeddings, the positions, the masks,
    the rotary cosine and sine (held by the model through every layer), the layers, the final norm; then the
    logits of every token, or of the last one (logits_to_keep=1). ``kin``: a family's differences (Mistral's
    sliding-window mask, Qwen2's two masks, Qwen3's normed heads, Phi-3's fused products, Gemma's norm)."""
    stream = tr.activation(b * s * D)
    embeddings = kin.embed(t)
    position_ids = tr.positions(t)
    masks = kin.masks(t, sliding)
    rotary = kin.rotary(t) if kin.rotary else tr.rotary(t, kin.rotary_width)
    # The first layer reads the embeddings; a later one, the previous layer's output, which dies when it returns.
    layer = kin.layer or layer_forward
    # Under sdpa, whether a layer is given a mask: the first (m_1), some later one (m_2, whose moments, where one is,
    # hold every other later layer's).
    t.masked, t.rotated = m_1, kin.rotated[0]
    layer(t, embeddings, "hidden", generate, kin)
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        t.masked, t.rotated = m_2, kin.rotated[1]
        layer(t, "previous", "hidden", generate, kin)
        t.drop("previous")
    kin.norm(t, "final", D)
    t.drop("hidden", embeddings, position_ids, *masks, *rotary)
    if lm_head:
        rows = b * (1 if generate else s)
        kin.logits(t, rows) if kin.logits else t.new("logits", tr.activation(rows * V))


def transient(prefix: str = "Llama", kin: Kin = LLAMA, layouts=None, windowed: bool = False, attention: str = "eager",
              **assumes) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward at inference is derived, in every layout (biases and a tied head change no
    tensor a forward makes): the causal LM, and the body alone (no logits; it does not generate). ``windowed``:
    the kin's masks depend on whether some layer slides; ``attention``: transformers' implementation the forward
    runs (derivations.transient.ATTENTIONS); ``assumes``: what the program assumes and reads
    (derivations.transient.transient's ``requires``, ``derived``, ``flags``)."""
    # Rotary embeddings rotate the two halves of the part of a head they turn: even (a head of 1 broadcasts the
    # rotation's 2, which the program does not follow).
    even = (str(kin.rotary_width),)

    def run(t, generate, lm_head=True, sliding=False):
        causal_lm_forward(t, generate, lm_head, kin, sliding)

    return {layout: {f"{prefix}Model": tr.transient(lambda t, generate, **k: run(t, False, False, **k), generates=False,
                                                     even=even, windowed=windowed, attention=attention, **assumes),
                     f"{prefix}ForCausalLM": tr.transient(run, even=even, windowed=windowed, attention=attention,
                                                          **assumes)}
            for layout in (VARIANTS if layouts is None else layouts)}


TRANSIENT = transient()
# The same forward under sdpa attention (transformers' default for LLaMA).
TRANSIENT_SDPA = transient(attention="sdpa")


FAMILY = Family(
    name="llama",
    reader=reader.READER,
    variants=VARIANTS,
    base="LlamaModel",
    checkpoints=(
        "llama-7b",
        "llama-13b",
        "llama-30b",
        "llama-65b",
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "llama-3.1-405b",
        *TIED_CHECKPOINTS,
    ),
    first_published="2023-02",
    kind="decoder",
    maker="Meta",
    headlines=(
        Headline("LlamaForCausalLM", "llama-2-7b", "Llama 2, 7B"),
        Headline("LlamaForCausalLM", "llama-3-8b", "Llama 3, 8B"),
        Headline("LlamaForCausalLM", "llama-3-70b", "Llama 3, 70B"),
    ),
    example="llama-2-7b",
    table_symbols=(L, D, H, K, d_h, F, V),
    # The layers as each checkpoint builds them (all L of them: a column reached through the class follows the
    # checkpoint's layout; a bare `layer` would be the plain one).
    table_columns={"LlamaForCausalLM": "LlamaForCausalLM", "LlamaForCausalLM.LlamaModel.layer": "all layers"},
    miscounts=(two_matrix_mlp, quantized_4bit, gqa_ignored),
    rounded=PAPER + NAMES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
