"""ModernBERT (Warner et al. 2024), composed from the components, laid out as transformers' ``ModernBertModel``.

An encoder of pre-LN layers with BERT's classes but today's parts: rotary positions (no position table, no token
types), one fused query-key-value map, a GeGLU feed-forward whose input map is one D-by-2F matrix (the GELU half and
the gate half), LayerNorms without a bias, and no bias anywhere else either by default (``attention_bias``,
``mlp_bias``, ``norm_bias`` and ``classifier_bias`` false; only the masked-LM decoder keeps one). The embeddings end
in a LayerNorm, so the first layer has no norm before its attention (transformers makes it an ``nn.Identity``), and
a final LayerNorm closes the stack. Every task class puts the same prediction head (a dense map, GELU, LayerNorm)
before its own map. Sliding-window and global layers alternate (two local, one global by default): the same
tensors, another mask.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from ..claims import Rounded
from ..components import (Part, as_kind, column_parallel, embedding, fused_attention, group, layer_norm, leaf, linear,
                          row_parallel, tied_tensor)
from ..readers import modernbert as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, L, V, b, c_b, c_bt, d_h, f_m, l_2, m_1, m_2, m_w, s
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# Embeddings: the token table, then a LayerNorm (no positions: rotary, no token types)
# $$N_\mathrm{emb} = V D + D$$  (2D with norm_bias)
# ---------------------------------------------------------------------------------------------


def embeddings(norm_bias: bool) -> Part:
    return group("embeddings", "embeddings",
                 embedding("token", "token embeddings", V, D, "tok_embeddings"),
                 layer_norm("norm", D, "norm", bias=norm_bias, label="embedding LayerNorm"),
                 path="embeddings", symbol=r"N_{\mathrm{emb}}")


# ---------------------------------------------------------------------------------------------
# One layer (pre-LN): LayerNorm, attention (Wqkv fused, Wo), residual; LayerNorm, GeGLU, residual
# $$N_\mathrm{layer} = D + (3D^2 + D^2) + D + (2DF + FD) = 4D^2 + 3DF + 2D$$  without biases.
# ---------------------------------------------------------------------------------------------

def attention(bias: bool) -> Part:
    """ModernBertAttention: Wqkv (D to 3 H d_h = 3D: the heads divide the width) and Wo, with attention_bias."""
    return fused_attention(D, qkv="Wqkv", output="Wo", bias=bias, path="attn", label="self-attention (Wqkv fused)")


# $$\mathrm{GeGLU}(x) = (\mathrm{GELU}(x W_i^{(1)}) \odot x W_i^{(2)}) W_o$$  Wi is one D-by-2F map, chunked in two.
def feed_forward(bias: bool) -> Part:
    """ModernBertMLP: Wi (D to 2F, the input and the gate halves) and Wo (F to D), with mlp_bias."""
    wi = replace(linear("Wi", "Wi: input and gate halves, fused (D to 2F)", D, 2 * F, bias, "Wi"), shape=(1, 2, D, F))
    return group("feed_forward", "GeGLU feed-forward",
                 column_parallel(wi, "inner", F),
                 row_parallel(linear("Wo", "Wo: down projection (F to D)", F, D, bias, "Wo"), "inner", F),
                 path="mlp", kind="feed-forward")


def layers(attention_bias: bool, mlp_bias: bool, norm_bias: bool) -> tuple[Part, Part]:
    """Layer 0, whose attn_norm is an nn.Identity (the embeddings' LayerNorm precedes it), and the L - 1 others: two
    groups of one ModuleList (``layers.0``, and the copies that have an ``attn_norm``)."""
    body = (attention(attention_bias), layer_norm("mlp_norm", D, "mlp_norm", bias=norm_bias,
                                                  label="LayerNorm before the feed-forward"),
            feed_forward(mlp_bias))
    first = group("first_layer", "layer 0 (no LayerNorm before its attention)", *body, path="layers.0",
                  symbol=r"N_{\mathrm{layer}_0}")
    rest = group("layer", "layers 1 to L − 1",
                 layer_norm("attn_norm", D, "attn_norm", bias=norm_bias, label="LayerNorm before attention"), *body,
                 path="layers", repeat=L - 1, copies="attn_norm", symbol=r"N_{\mathrm{layer}}")
    return first, rest


def final_norm(norm_bias: bool) -> Part:
    return layer_norm("final_norm", D, "final_norm", bias=norm_bias, label="final LayerNorm")


def prediction_head(classifier_bias: bool, norm_bias: bool, tokens: sympy.Expr | None = None) -> Part:
    """ModernBertPredictionHead: dense (D to D, classifier_bias), GELU, LayerNorm. On one row a sequence where the
    class pools first (``tokens``)."""
    return replace(group("head", "prediction head (dense, GELU, LayerNorm)",
                         linear("dense", "dense (D to D)", D, D, classifier_bias, "dense"),
                         layer_norm("norm", D, "norm", bias=norm_bias, label="head LayerNorm"),
                         path="head", kind="heads"), tokens=tokens)


def decoder(untied: bool, bias: bool) -> Part:
    """The masked-LM decoder: the token embeddings transposed (tied), else a D-by-V map of its own; its bias (V,
    decoder_bias) is its own either way."""
    if not untied:
        parts = [tied_tensor("weight", "decoder weight", "model.embeddings.tok_embeddings", "weight", matrix=D * V)]
        if bias:
            parts.append(leaf("bias", "decoder bias (one per token of the vocabulary)", V, "bias"))
        return as_kind(group("decoder", "decoder (tied to the token embeddings)", *parts, path="decoder"), "heads")
    return as_kind(linear("decoder", "decoder (untied: a weight of its own)", D, V, bias, "decoder"), "heads")


def architectures(attention_bias: bool = False, mlp_bias: bool = False, norm_bias: bool = False,
                  classifier_bias: bool = False, no_decoder_bias: bool = False, untied: bool = False
                  ) -> dict[str, Part]:
    """Every ModernBERT class of transformers, in one layout."""
    first, rest = layers(attention_bias, mlp_bias, norm_bias)
    body = (embeddings(norm_bias), first, rest, final_norm(norm_bias))

    def model(name: str, label: str, *heads: Part) -> Part:
        inner = group("model", "ModernBertModel", *body, path="model", symbol=r"N_{\mathrm{model}}")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    def classifier(outputs: sympy.Expr, label: str, tokens: sympy.Expr | None = None) -> Part:
        # nn.Linear(D, outputs): a bias always (classifier_bias is the prediction head's dense map's).
        return replace(as_kind(linear("classifier", label, D, outputs, True, "classifier"), "heads"), tokens=tokens)

    pooled = sympy.Integer(1)  # pooled first ("cls" or "mean"): the head and the classifier run on one row
    return {
        "ModernBertModel": group("ModernBertModel", "ModernBertModel: embeddings, layers, final LayerNorm", *body,
                                 symbol=r"N_{\mathrm{ModernBertModel}}"),
        "ModernBertForMaskedLM": model("ModernBertForMaskedLM", "ModernBERT with the masked-LM head",
                                       prediction_head(classifier_bias, norm_bias), decoder(untied, not no_decoder_bias)),
        "ModernBertForSequenceClassification": model(
            "ModernBertForSequenceClassification", "ModernBERT with a sequence classifier (pooled)",
            prediction_head(classifier_bias, norm_bias, pooled), classifier(C, "classifier (C labels)", pooled)),
        "ModernBertForTokenClassification": model(
            "ModernBertForTokenClassification", "ModernBERT with a token classifier",
            prediction_head(classifier_bias, norm_bias), classifier(C, "classifier (C labels)")),
        "ModernBertForQuestionAnswering": model(
            "ModernBertForQuestionAnswering", "ModernBERT with a span head",
            prediction_head(classifier_bias, norm_bias), classifier(C, "span logits (num_labels: 2 for start and end)")),
        "ModernBertForMultipleChoice": model(
            "ModernBertForMultipleChoice", "ModernBERT with a multiple-choice scorer (pooled)",
            prediction_head(classifier_bias, norm_bias, pooled),
            classifier(1, "choice scorer (one logit per choice)", pooled)),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.modernbert.READER.layout): 64, each bias on or off.
VARIANTS = reader.READER.layout.variants(architectures)

first_layer, layer = layers(False, False, False)
# One layer as the paper's figure draws it (the L - 1 layers after the first).
layer_plain = replace(layer, repeat=1, copies="")
non_embedding = group("non_embedding", "layers and final LayerNorm (no token table, no embedding LayerNorm)",
                      first_layer, layer, final_norm(False), symbol=r"N_{\text{non-emb}}")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("warner2024", "paper", "Warner, Chaffin, Clavié et al.", "Smarter, Better, Faster, Longer: A Modern "
           "Bidirectional Encoder for Fast, Memory Efficient, and Long Context Finetuning and Inference",
           "arXiv:2412.13663", 2024, "https://arxiv.org/abs/2412.13663", short="Warner et al. 2024"),
    Source("hub-answerdotai", "config", "Answer.AI and LightOn", "ModernBERT checkpoints: config.json and model "
           "cards of answerdotai/ModernBERT-base and -large (“149 million parameters”, “395 million parameters”)",
           "Hugging Face, answerdotai", 2024, "https://huggingface.co/answerdotai", read="2026-11-26",
           short="answerdotai on the Hugging Face hub"),
)

_CARD = Citation("hub-answerdotai", "the model cards' Model Summary")
_CONVENTIONS = (ARCHITECTURES["ModernBertModel"], ARCHITECTURES["ModernBertForMaskedLM"])
base_149m = Rounded("base_149m", 149_000_000, "ModernBERT-base: “22 layers, 149 million parameters”", _CARD,
                    "modernbert-base", _CONVENTIONS, printed="149M")
large_395m = Rounded("large_395m", 395_000_000, "ModernBERT-large: “28 layers, 395 million parameters”", _CARD,
                     "modernbert-large", _CONVENTIONS, printed="395M")

# The paper: "a total parameter count of 149 and 395 million, respectively".
_PAPER = Citation("warner2024", "its model design section")
paper_149m = Rounded("paper_149m", 149_000_000, "ModernBERT base: “a total parameter count of 149 … million”", _PAPER,
                     "modernbert-base", _CONVENTIONS, printed="149M")
paper_395m = Rounded("paper_395m", 395_000_000, "ModernBERT large: “… and 395 million”", _PAPER, "modernbert-large",
                     _CONVENTIONS, printed="395M")
ROUNDED = (base_149m, large_395m, paper_149m, paper_395m)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_modernbert.py under eager attention,
# statement by statement, its input the ids alone (an all-ones mask is no mask: the global layers get none)
# ---------------------------------------------------------------------------------------------

def sliding_mask(t: tr.Timeline) -> str:
    """create_bidirectional_sliding_window_mask for eager attention, built where the tokens reach the window
    (``kv_length >= sliding_window``, sliding_window = local_attention // 2: m_w), whatever the layers are: the
    aranges of the batch, the head, the queries and the keys; ``abs(q - kv) <= sliding_window`` (the difference and
    its absolute value, T x T 64-bit integers, then T x T booleans) and ``q >= 0`` (T booleans), each anded into a
    ones scalar; then ``torch.where`` to 0 and the dtype's minimum, b x 1 x T x T, held for every layer."""
    built = m_w
    t.new("mask.batch_arange", built * tr.INT64 * b)
    t.new("mask.head_arange", built * tr.INT64)
    for side in ("q", "kv"):  # torch.arange(length) + offset
        t.new(f"mask.{side}_arange0", built * tr.INT64 * s)
        t.new(f"mask.{side}_arange", built * tr.INT64 * s)
        t.drop(f"mask.{side}_arange0")
    t.new("mask.ones", built * tr.BOOL)
    t.new("mask.difference", built * tr.INT64 * s * s)
    t.new("mask.distance", built * tr.INT64 * s * s)
    t.drop("mask.difference")
    t.new("mask.within", built * tr.BOOL * s * s)
    t.drop("mask.distance")
    t.new("mask.and1", built * tr.BOOL * s * s)
    t.drop("mask.within", "mask.ones")
    t.new("mask.nonnegative", built * tr.BOOL * s)
    t.new("mask.bool_mask", built * tr.BOOL * s * s)
    t.drop("mask.nonnegative", "mask.and1")
    t.drop("mask.batch_arange", "mask.head_arange", "mask.q_arange", "mask.kv_arange")  # sdpa_mask returns
    if t.attention == "sdpa":  # sdpa_mask's booleans, 1 x 1 x T x T expanded over the batch (a view), are the mask
        return t.join("mask", "mask.bool_mask")
    t.new("mask.zero", built * tr.w)
    t.new("mask.minimum", built * tr.w)
    t.new("mask", built * tr.activation(b * s * s))
    t.drop("mask.minimum", "mask.zero", "mask.bool_mask")
    return "mask"


def rotate_fp32(t: tr.Timeline, name: str, x: str, elements) -> tuple[str, str]:
    """ModernBERT's apply_rotary_pos_emb on one of q and k: ``(x.float() * cos) + (rotate_half(x.float()) * sin)``,
    each ``x.float()`` an upcast of its own (the tensor itself in fp32), the rotation in fp32; the result kept in
    fp32 until ``.to(original_dtype)`` (:func:`cast`). Returns the sum's names: dying once cast below fp32, the
    result itself in fp32."""
    n = elements
    t.new(f"{name}.x32", tr.upcast(n))
    t.new(f"{name}.cos", tr.FP32 * n)
    t.drop(f"{name}.x32")
    t.new(f"{name}.x32b", tr.upcast(n))  # rotate_half(q.float()): a second upcast
    t.new(f"{name}.neg", tr.FP32 * n / 2)
    t.new(f"{name}.half", tr.FP32 * n)
    t.drop(f"{name}.neg", f"{name}.x32b")
    t.new(f"{name}.sin", tr.FP32 * n)
    t.drop(f"{name}.half")
    t.new(f"{name}.sum", tr.FP32 * tr.u * n)
    t.new(f"{name}.kept", tr.FP32 * (1 - tr.u) * n)
    t.drop(f"{name}.cos", f"{name}.sin")
    return f"{name}.sum", f"{name}.kept"


def attention_forward(t: tr.Timeline, normed: str, masked) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """ModernBertAttention.forward on ``normed``: one fused product (Wqkv), its q, k and v views; q and k rotated in
    fp32 and cast back; under sdpa, derivations.transient.sdpa_attention (given the mask where ``masked``); else
    eager_attention_forward: the scores (torch.matmul copies the rotated query and keys, laid out
    tokens by heads, to fold batch and heads where more than one sequence, head and token: c_bt), scaled, plus the
    mask where the layer is given one (``masked``), the softmax in fp32, the product with the values (a view of the
    fused product, interleaved with q and k: copied to fold where more than one sequence and head, c_b), the heads
    merged; Wo. Returns the names the layer drops when attention returns, the output, and the weights (``_``)."""
    rows, heads = b * s, b * H * s
    qkv = tr.linear(t, "qkv", rows, 3 * D)
    q32 = rotate_fp32(t, "q_rot", "q", rows * D)
    k32 = rotate_fp32(t, "k_rot", "k", rows * D)
    t.new("q_cast", tr.downcast(rows * D))  # .to(original_dtype): the tensor itself in fp32
    t.new("k_cast", tr.downcast(rows * D))
    t.drop(*q32[:1], *k32[:1])  # apply_rotary_pos_emb returns (fp32: the sums are the cast ones)
    query, key = ("q_cast", q32[1]), ("k_cast", k32[1])
    if t.attention == "sdpa":  # sdpa's kernel takes the views as they are; the sliding layers' mask where given
        t.masked = masked
        context, _ = tr.sdpa_attention(t, query, key, "v", H, d_h)
        out = tr.linear(t, "attention_out", rows, D)
        t.drop(*context)
        return (qkv, *query, *key), out, ()
    tr.scaled_scores(t, c_bt * heads * d_h, c_bt * heads * d_h, heads * s)
    t.split("scaled", **{"scaled.masked": masked, "scaled.kept": 1 - masked})
    t.new("masked_scores", tr.activation(masked * heads * s))
    t.drop("scaled.masked")
    scores = t.join("weights_input", "masked_scores", "scaled.kept")
    weights = tr.softmax_fp32(t, scores, heads * s)
    context = tr.merge_heads(t, heads, d_h, c_b)  # eager_attention_forward returns
    out = tr.linear(t, "attention_out", rows, D)
    t.drop(*context)
    return (qkv, *query, *key), out, weights


def layer_forward(t: tr.Timeline, x: str, out: str, first: bool, masked) -> str:
    """ModernBertEncoderLayer.forward on ``x`` (its caller's): attn_norm (the first layer's an identity: ``x``
    itself), attention, ``hidden_states + attn_output`` (the output and the weights held until the layer returns);
    ``hidden_states + mlp(mlp_norm(hidden_states))``: the norm, Wi (its halves views), GELU of one half, times the
    other, Wo, the sum."""
    rows, stream = b * s, tr.activation(b * s * D)
    normed = x if first else tr.layer_norm(t, "attn_norm", D)
    local, attended, weights = attention_forward(t, normed, masked)
    t.drop(*local, *(() if first else (normed,)))  # attention returns; its argument dies
    t.new("after_attention", stream)
    normed = tr.layer_norm(t, "mlp_norm", D)
    wi = tr.linear(t, "wi", rows, 2 * F)
    t.new("act", tr.activation(rows * F))
    t.new("gated", tr.activation(rows * F))
    t.drop("act")
    tr.linear(t, "wo", rows, D)
    t.drop("gated", wi, normed)  # ModernBertMLP returns; its argument dies
    t.new(out, stream)
    t.drop("wo", "after_attention", attended, *weights)  # the layer returns
    return out


def model_forward(t: tr.Timeline, head: str) -> None:
    """ModernBertModel.forward and the masked-LM head: the positions (one row), the embeddings (the looked-up rows
    dying after their LayerNorm), held by mask_kwargs until the model returns; the global layers' mask (none: no
    padding), the sliding one (:func:`sliding_mask`); the rotary cosine and sine of each kind of layer present (one
    pair, two where both kinds are: f_m); the layers (the first given the sliding mask where m_1, a later one where
    m_2); the final LayerNorm; then ``head``: ``none``, or ``mlm`` (dense, GELU, LayerNorm, the decoder's logits of
    every token)."""
    stream = tr.activation(b * s * D)
    t.new("position_ids", tr.INT64 * s)
    t.new("looked_up", stream)
    tr.layer_norm(t, "embeddings", D)
    t.drop("looked_up")
    mask = sliding_mask(t)
    rotary = tr.rotary(t, d_h) + tr.rotary(t, d_h, "second_", f_m)
    layer_forward(t, "embeddings", "hidden", True, m_1)
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        layer_forward(t, "previous", "hidden", False, m_2)
        t.drop("previous")
    tr.layer_norm(t, "final", D)
    t.drop("hidden", "embeddings", "position_ids", mask, *rotary)  # the model returns
    if head == "mlm":
        tr.dense_act_norm(t, "head", b * s, D)
        t.new("logits", tr.activation(b * s * V))


# The code paths the program follows: activations that are one operation of torch.
_REQUIRES = (("hidden_activation", "gelu", tr.ONE_OP_ACTIVATIONS),
             ("classifier_activation", "gelu", tr.ONE_OP_ACTIVATIONS))


def _transient(head: str, attention: str = "eager") -> tr.Transient:
    # Rotary embeddings rotate the two halves of a head: even (a head of 1, which the reader accepts, broadcasts the
    # rotation's 2, which the program does not follow).
    return tr.transient(lambda t, generate: model_forward(t, head), generates=False, requires=_REQUIRES,
                        even=("d_h",), window=("local_attention", 128, 2), attention=attention)


def _classes(attention: str) -> dict[str, dict[str, tr.Transient]]:
    classes = {"ModernBertModel": _transient("none", attention), "ModernBertForMaskedLM": _transient("mlm", attention)}
    return {layout: classes for layout in VARIANTS}


TRANSIENT = _classes("eager")
# ... under sdpa attention (transformers' default): the global layers' attention unmasked, the sliding layers' given
# the boolean mask where the tokens reach the window.
TRANSIENT_SDPA = _classes("sdpa")


FAMILY = Family(
    name="modernbert",
    reader=reader.READER,
    variants=VARIANTS,
    base="ModernBertModel",
    # config.json of answerdotai/ModernBERT-base and answerdotai/ModernBERT-large on the Hugging Face hub
    # [cite: hub-answerdotai], as published (architectures ModernBertForMaskedLM, transformers 4.47's field names:
    # global_attn_every_n_layers, global_rope_theta, local_rope_theta, which 5.23 still reads). Read in the copies and
    # conversion scripts others committed (the hub format's field set, update_config in a FlexBERT-to-hub converter);
    # the sizes are those the paper states [cite: warner2024]: 22 layers 768 wide with a GLU expansion of 2,304
    # (2F), 28 layers 1,024 wide with 5,248.
    checkpoints=("modernbert-base", "modernbert-large"),
    first_published="2024-12",
    kind="encoder",
    maker="Answer.AI",
    headlines=(Headline("ModernBertForMaskedLM", "modernbert-base", "base"),
               Headline("ModernBertForMaskedLM", "modernbert-large", "large")),
    example="modernbert-base",
    table_symbols=(L, D, H, F),
    table_columns={"ModernBertForMaskedLM": "ModernBertForMaskedLM", "ModernBertModel": "ModernBertModel",
                   "non_embedding": "non-embedding"},
    rounded=ROUNDED,
    sources=SOURCES,
    # The calculator derives the head size as the reader does (hidden_size // num_attention_heads), so that it asks
    # for the heads and refuses what the reader refuses: heads that do not divide the width, an odd rotary head.
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
