"""DeBERTa-v2 and DeBERTa-v3 (He et al. 2021, 2023), composed from the components, laid out as transformers'
``DebertaV2Model``.

BERT's post-LN encoder with disentangled attention. Besides its content query and key, each layer's attention scores
every query against the relative distance to each key (content-to-position, ``c2p``) and every key against the
distance to each query (position-to-content, ``p2c``). The distances index ONE table shared by every layer,
``encoder.rel_embeddings``: 2 P_r rows of width D (P_r = position_buckets, 256 in DeBERTa-v3), optionally
LayerNorm-ed (``encoder.LayerNorm``, where norm_rel_ebd names layer_norm). With share_att_key (every released v2 and v3
checkpoint), each layer projects that table with its own query and key maps, so the relative attention adds no
parameter to a layer; without it, ``pos_key_proj`` (c2p) and ``pos_query_proj`` (p2c) are maps of their own.

Around that: no pooler in the model (the classifiers' ``pooler`` is theirs), an absolute position table only with
position_biased_input (false in DeBERTa-v3), no token-type table where type_vocab_size is 0 (DeBERTa-v3), an
optional projection ``embed_proj`` (no bias) where a config sets an embedding_size other than the width, and an
optional convolution beside the first layer (``encoder.conv``, conv_kernel_size: deberta-v2-xlarge and -xxlarge).
Which of these a config has, the sizes n_abs, n_c2p, n_p2c, n_sh (1 or 0) and P_r (0 without relative attention) say
in the count; the convolution, the relative table's LayerNorm, the projection and the masked-LM head are layouts.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..components import (AttentionLayout, Op, Part, as_kind, attention, attention_products, classifier, embedding,
                          feed_forward, group, layer_norm, leaf, linear, pooler as _pooler, tied_tensor)
from ..contract import Family, Headline
from ..readers import deberta_v2 as reader
from ..symbols import (C, D, D_g, E, F, H, L, P, P_r, T, V, d_h, k_c, n_abs, n_c2p, n_p2c, n_sh)

# ---------------------------------------------------------------------------------------------
# Embeddings: word (E wide), an absolute position table where position_biased_input, token types where
# type_vocab_size > 0, the projection from E to D where they differ, and a LayerNorm of D
# $$N_\mathrm{emb} = (V + n_\mathrm{abs} P + T) E + 2D$$  (+ E D without bias, projected)
# ---------------------------------------------------------------------------------------------


def embeddings(projected: bool) -> Part:
    parts = [embedding("word", "word embeddings, V by E", V, E, "word_embeddings"),
             # Absent (n_abs = 0) with position_biased_input false: DeBERTa-v3 has relative positions only.
             embedding("position", "absolute position embeddings (position_biased_input)", n_abs * P, E,
                       "position_embeddings"),
             # Absent with type_vocab_size 0 (DeBERTa-v3).
             embedding("token_type", "token-type embeddings", T, E, "token_type_embeddings")]
    if projected:
        parts.append(as_kind(linear("projection", "projection from E to D (embed_proj, no bias)", E, D, False,
                                    "embed_proj"), "embeddings"))
    parts.append(layer_norm("norm", D, "LayerNorm", label="embedding LayerNorm (width D)"))
    return group("embeddings", "embeddings", *parts, path="embeddings", symbol=r"N_{\mathrm{emb}}")


# ---------------------------------------------------------------------------------------------
# One layer: disentangled self-attention, Add & LayerNorm, feed-forward, Add & LayerNorm
# $$N_\mathrm{layer} = (3 D H d_h + 3 H d_h + D^2 + D) + (n_\mathrm{c2p} + n_\mathrm{p2c})(1 - n_\mathrm{sh})
#   (D H d_h + H d_h) + 2D + (2 D F + F + D) + 2D$$
# ---------------------------------------------------------------------------------------------

ATTENTION = AttentionLayout(query="attention.self.query_proj", key="attention.self.key_proj",
                            value="attention.self.value_proj", output="attention.output.dense")
# The relative table's rows, which every layer's position maps project (the table is sliced to 2 P_r rows: all).
RELATIVE_ROWS = 2 * P_r


def position_map(name: str, label: str, present: sympy.Expr, path: str) -> Part:
    """A map of the relative table to H heads of d_h, with bias: a layer's own where ``present`` is 1
    (relative_attention, the score it serves in pos_att_type, no share_att_key), run on the table's 2 P_r rows."""
    weight, bias = present * D * H * d_h, present * H * d_h
    # No shape: a weight that may not exist is no module the quantized formats keep scales for.
    return replace(leaf(name, label, weight + bias, path, kind="attention", matrix=weight, tensors=(weight, bias)),
                   tokens=RELATIVE_ROWS)


# With share_att_key, each layer's query and key maps project the relative table too (both, whatever pos_att_type
# says): no parameter, two maps' arithmetic on the table's rows.
shared_position_maps = replace(leaf("shared_position_maps", "the relative table through the layer's own query and "
                                    "key maps (share_att_key)", 0, matrix=n_sh * 2 * D * H * d_h, kind="attention",
                                    note="no parameters of its own: query_proj and key_proj again"),
                               tokens=RELATIVE_ROWS)

# $$\mathrm{FLOPs} = 2 H d_h\, s \cdot 2 P_r$$  each relative score: every query (c2p) or key (p2c) against every row
# of the projected table, before the gather picks one distance per pair.
RELATIVE_PRODUCTS = (Op("c2p", "content-to-position scores (each query against the table's rows, every head)",
                        2 * H * d_h * n_c2p, RELATIVE_ROWS),
                     Op("p2c", "position-to-content scores (each key against the table's rows, every head)",
                        2 * H * d_h * n_p2c, RELATIVE_ROWS))

disentangled_attention = replace(
    attention(D, H, d_h, layout=ATTENTION, output_in=D, label="disentangled self-attention"),
    ops=attention_products(H, d_h, d_h) + RELATIVE_PRODUCTS)
disentangled_attention = replace(disentangled_attention, children=disentangled_attention.children[:3] + (
    position_map("pos_key", "position key map (c2p, without share_att_key)", n_c2p * (1 - n_sh),
                 "attention.self.pos_key_proj"),
    position_map("pos_query", "position query map (p2c, without share_att_key)", n_p2c * (1 - n_sh),
                 "attention.self.pos_query_proj"),
    shared_position_maps) + disentangled_attention.children[3:])

layer = group(
    "layer", "one DebertaV2Layer",
    disentangled_attention,
    layer_norm("attention_norm", D, "attention.output.LayerNorm", label="LayerNorm after attention"),
    feed_forward(D, F, up="intermediate.dense", down="output.dense"),
    layer_norm("output_norm", D, "output.LayerNorm", label="LayerNorm after the feed-forward"),
    path="layer", symbol=r"N_{\mathrm{layer}}",
)

# ---------------------------------------------------------------------------------------------
# The encoder: L layers, the one relative table they share (and its LayerNorm), the convolution
# $$N_\mathrm{enc} = L N_\mathrm{layer} + 2 P_r D\ (+ 2D)\ (+ D D_g k_c + D + 2D)$$
# ---------------------------------------------------------------------------------------------

# Shared by every layer: stored once, in the encoder. 0 rows without relative_attention.
relative_table = embedding("relative_table", "relative position embeddings, 2 P_r by D (shared by every layer)",
                           RELATIVE_ROWS, D, "rel_embeddings")
relative_norm = layer_norm("relative_norm", D, "LayerNorm", label="LayerNorm of the relative table (norm_rel_ebd)")

# ConvLayer: a 1-D convolution over the tokens, D channels out, each reading D_g = D / conv_groups channels over
# k_c positions, with bias; then a LayerNorm of it plus the first layer's output. It runs once, beside layer 0.
conv = group("conv", "convolution beside the first layer (ConvLayer)",
             leaf("conv", "1-D convolution, D out, D_g in, kernel k_c, with bias", D * D_g * k_c + D, "conv",
                  kind="attention", matrix=D * D_g * k_c, tensors=(D * D_g * k_c, D), shape=(1, 1, D_g * k_c, D)),
             layer_norm("norm", D, "LayerNorm", label="LayerNorm after the convolution"),
             path="conv", kind="attention")


def encoder(conv_layer: bool, rel_norm: bool) -> Part:
    parts = [replace(layer, repeat=L), relative_table] + ([relative_norm] if rel_norm else []) + \
        ([conv] if conv_layer else [])
    return group("encoder", "DebertaV2Encoder: the layers and what they share", *parts, path="encoder",
                 symbol=r"N_{\mathrm{enc}}")


def body(name: str, label: str, path: str | None, conv_layer: bool, rel_norm: bool, projected: bool) -> Part:
    """DebertaV2Model: embeddings and encoder. No pooler."""
    return group(name, label, embeddings(projected), encoder(conv_layer, rel_norm), path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------

def mlm_head(kind: str) -> Part:
    """The masked-LM head. Legacy (``cls.predictions``, the default): dense D to E, LayerNorm of E, a decoder from E
    to V whose weight is the word table and whose bias is ``cls.predictions.bias`` (tied); untied
    (tie_word_embeddings false), a weight and a bias of its own beside that bias. Not legacy
    (``lm_predictions.lm_head``): dense D x D, LayerNorm of D, a bias, and the product with the word table."""
    if kind == "lm_predictions":
        # $$N = (D^2 + D) + 2D + V$$
        return group("mlm", "masked-LM head (DebertaV2OnlyMLMHead: legacy false)",
                     linear("dense", "dense (D x D)", D, D, True, "dense"),
                     layer_norm("norm", D, "LayerNorm"),
                     # torch.matmul(hidden, word_embeddings.weight.t()): no tensor of its own.
                     leaf("decoder", "the word table, multiplied directly", 0, matrix=E * V,
                          note="the word embeddings: counted there"),
                     leaf("bias", "output bias", V, "bias"),
                     path="lm_predictions.lm_head", kind="heads")
    # $$N = (D E + E) + 2E + V$$  tied;  + E V + V untied.
    decoder = tied_tensor("decoder", "decoder (weight: the word embeddings; bias: cls.predictions.bias)",
                          "deberta.embeddings.word_embeddings", "decoder", matrix=E * V) if kind == "" else \
        linear("decoder", "decoder from E to V (untied: a weight and a bias of its own)", E, V, True, "decoder")
    return group("mlm", "masked-LM head (legacy: cls.predictions)",
                 linear("transform", "transform dense, D to E", D, E, True, "transform.dense"),
                 layer_norm("transform_norm", E, "transform.LayerNorm", label="transform LayerNorm (width E)"),
                 decoder, leaf("bias", "output bias", V, "bias"),
                 path="cls.predictions", kind="heads")


# ContextPooler: the first token's state through a dense map (pooler_hidden_size, which must be D) and gelu.
context_pooler = _pooler(D)


def architectures(conv: bool = False, rel_norm: bool = False, projected: bool = False,
                  head: str = "") -> dict[str, Part]:
    """Every DeBERTa-v2 class of transformers in one layout, named as transformers names it."""

    def model(name: str, label: str, *heads: Part) -> Part:
        inner = body("deberta", "DebertaV2Model", "deberta", conv, rel_norm, projected)
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    def one_row(part: Part) -> Part:
        return replace(part, tokens=sympy.Integer(1))

    return {
        "DebertaV2Model": body("DebertaV2Model", "DebertaV2Model: embeddings, encoder", None, conv, rel_norm,
                               projected),
        "DebertaV2ForMaskedLM": model("DebertaV2ForMaskedLM", "DeBERTa-v2 with the masked-LM head", mlm_head(head)),
        "DebertaV2ForSequenceClassification": model(
            "DebertaV2ForSequenceClassification", "DeBERTa-v2 with the context pooler and a sequence classifier",
            context_pooler, one_row(classifier(D, C, "classifier"))),
        "DebertaV2ForTokenClassification": model("DebertaV2ForTokenClassification",
                                                 "DeBERTa-v2 with a token classifier", classifier(D, C, "classifier")),
        "DebertaV2ForQuestionAnswering": model(
            "DebertaV2ForQuestionAnswering", "DeBERTa-v2 with a span (start/end) head",
            classifier(D, C, "qa_outputs", name="qa_outputs", label="span logits (num_labels, 2 for start and end)")),
        "DebertaV2ForMultipleChoice": model(
            "DebertaV2ForMultipleChoice", "DeBERTa-v2 with the context pooler and a choice scorer", context_pooler,
            one_row(classifier(D, 1, "classifier", label="choice scorer (one logit per choice)"))),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.deberta_v2.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)


FAMILY = Family(
    name="deberta_v2",
    reader=reader.READER,
    variants=VARIANTS,
    base="DebertaV2Model",
    checkpoints=("deberta-v3-base",),
    first_published="2020-06",
    kind="encoder",
    maker="Microsoft",
    headlines=(Headline("DebertaV2Model", "deberta-v3-base"),),
    example="deberta-v3-base",
    table_symbols=(V, D, L),
    table_columns={"DebertaV2Model": "DebertaV2Model", "DebertaV2ForMaskedLM": "ForMaskedLM"},
    minimum={T: 0, P_r: 0, k_c: 0, n_abs: 0, n_c2p: 0, n_p2c: 0, n_sh: 0},
)
