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
from ..claims import Rounded
from ..contract import Family, Headline
from ..sources import Citation, Source, declare
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


# The embeddings of every released checkpoint: no projection (E = D).
token_embeddings = embeddings(False)

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


def architectures(conv: bool = False, no_rel_norm: bool = False, projected: bool = False,
                  head: str = "") -> dict[str, Part]:
    """Every DeBERTa-v2 class of transformers in one layout, named as transformers names it."""
    rel_norm = not no_rel_norm

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


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("he2023", "paper", "He, Gao, Chen", "DeBERTaV3: Improving DeBERTa using ELECTRA-Style Pre-Training with "
           "Gradient-Disentangled Embedding Sharing", "ICLR 2023", 2023, "https://arxiv.org/abs/2111.09543"),
    Source("hub-deberta-v3", "card", "Microsoft", "DeBERTa-v3 model cards (deberta-v3-xsmall, -small, -base, -large, "
           "mdeberta-v3-base): “It has 86M backbone parameters with a vocabulary containing 128K tokens which "
           "introduces 98M parameters in the Embedding layer” and the like", "Hugging Face, microsoft", 2021,
           "https://huggingface.co/microsoft/deberta-v3-base", read="2026-11-26", short="DeBERTa-v3's model cards"),
    Source("hub-deberta-v3-large-2021", "card", "Microsoft", "deberta-v3-large's first model card: “Total parameters "
           "is 418M while Embedding layer takes about 131M”", "Hugging Face, microsoft/deberta-v3-large", 2021,
           "https://huggingface.co/microsoft/deberta-v3-large",
           revision="https://huggingface.co/microsoft/deberta-v3-large/blob/ff3ef10cf56e05d0735684990e75d59c57004955/"
                    "README.md", short="deberta-v3-large's first card"),
    Source("hub-deberta-v3-small-2021", "card", "Microsoft", "deberta-v3-small's first model card: “Total parameters is "
           "143M while Embedding layer take about 98M”", "Hugging Face, microsoft/deberta-v3-small", 2021,
           "https://huggingface.co/microsoft/deberta-v3-small",
           revision="https://huggingface.co/microsoft/deberta-v3-small/blob/bfb08ac2d7ceaf3d3ec6b824c328b753b913fc24/"
                    "README.md", short="deberta-v3-small's first card"),
    Source("hub-deberta-v2", "card", "Microsoft", "deberta-v2-xlarge and deberta-v2-xxlarge model cards: “The total "
           "parameters are 900M”, “Total parameters 1.5B”", "Hugging Face, microsoft", 2021,
           "https://huggingface.co/microsoft/deberta-v2-xlarge", read="2026-11-26", short="DeBERTa-v2's model cards"),
    Source("deberta-experiments", "config", "Microsoft", "DeBERTa: experiments/language_model/*.json, the model "
           "configs of the released checkpoints (rtd_xsmall, rtd_small, rtd_base, rtd_large: DeBERTa-v3's "
           "discriminators; deberta_xlarge, xxlarge: DeBERTa-v2's)", "GitHub, microsoft/DeBERTa", 2021,
           "https://github.com/microsoft/DeBERTa",
           revision="https://github.com/microsoft/DeBERTa/tree/c794b711ed10633251dd049babefb7c2a5435565/experiments/"
                    "language_model", short="DeBERTa's experiment configs"),
)

# What the cards call the backbone: everything but the word table, and the same with one D-by-D map with bias more
# (the classifiers' ContextPooler, or the replaced-token-detection head's dense: the cards do not say which).
word_table = embeddings(False).child("word")
backbone = group("backbone", "DebertaV2Model without its word table",
                 *[c for c in embeddings(False).children if c.name != "word"], encoder(False, True),
                 symbol=r"N_{\mathrm{backbone}}")
backbone_and_pooler = group("backbone_and_pooler", "the backbone and one D-by-D map with bias", backbone,
                            context_pooler, symbol=r"N_{\mathrm{backbone}} + D^2 + D")
BACKBONE = (backbone, backbone_and_pooler)
EMBEDDING = (word_table,)
_CARD = Citation("hub-deberta-v3")


def _card(name: str, claim: int, what: str, checkpoint: str, candidates: tuple, precision: int = 10**6) -> Rounded:
    return Rounded(name, claim, what, _CARD, checkpoint, candidates, precision=precision,
                   printed=f"{claim // 10**6}M")


base_86m = _card("base_86m", 86_000_000, "deberta-v3-base: 86M backbone parameters", "deberta-v3-base", BACKBONE)
base_98m = _card("base_98m", 98_000_000, "deberta-v3-base: 98M parameters in the Embedding layer", "deberta-v3-base",
                 EMBEDDING)
large_304m = _card("large_304m", 304_000_000, "deberta-v3-large: 304M backbone parameters", "deberta-v3-large",
                   BACKBONE)
large_131m = _card("large_131m", 131_000_000, "deberta-v3-large: 131M parameters in the Embedding layer",
                   "deberta-v3-large", EMBEDDING)
small_44m = _card("small_44m", 44_000_000, "deberta-v3-small: 44M backbone parameters", "deberta-v3-small", BACKBONE)
small_98m = _card("small_98m", 98_000_000, "deberta-v3-small: 98M parameters in the Embedding layer",
                  "deberta-v3-small", EMBEDDING)
xsmall_22m = _card("xsmall_22m", 22_000_000, "deberta-v3-xsmall: 22M backbone parameters", "deberta-v3-xsmall",
                   BACKBONE)
# 49,190,400 is 49M: no convention gives 48M.
xsmall_48m = _card("xsmall_48m", 48_000_000, "deberta-v3-xsmall: 48M parameters in the Embedding layer",
                   "deberta-v3-xsmall", EMBEDDING)
multilingual_86m = _card("multilingual_86m", 86_000_000, "mdeberta-v3-base: 86M backbone parameters",
                         "mdeberta-v3-base", BACKBONE)
# 251,000 rows of 768: 192,768,000, which rounds to 190M only to the nearest ten million.
multilingual_190m = _card("multilingual_190m", 190_000_000, "mdeberta-v3-base: a vocabulary of 250K tokens which "
                          "introduces 190M parameters in the Embedding layer", "mdeberta-v3-base", EMBEDDING,
                          precision=10**7)
# The backbone figures (each against two candidates), then the embedding figures (against the word table).
CARDS_BACKBONE = (xsmall_22m, small_44m, base_86m, large_304m, multilingual_86m)
CARDS_EMBEDDING = (xsmall_48m, small_98m, base_98m, large_131m, multilingual_190m)

# The first cards' totals, and DeBERTa-v2's.
TOTALS = (ARCHITECTURES["DebertaV2Model"], ARCHITECTURES["DebertaV2ForMaskedLM"])
CONV_TOTALS = (VARIANTS["conv"]["DebertaV2Model"], VARIANTS["conv"]["DebertaV2ForMaskedLM"])
large_418m = Rounded("large_418m", 418_000_000, "deberta-v3-large: total parameters is 418M",
                     Citation("hub-deberta-v3-large-2021"), "deberta-v3-large", TOTALS, printed="418M")
small_143m = Rounded("small_143m", 143_000_000, "deberta-v3-small: total parameters is 143M",
                     Citation("hub-deberta-v3-small-2021"), "deberta-v3-small", TOTALS, printed="143M")
xlarge_900m = Rounded("xlarge_900m", 900_000_000, "deberta-v2-xlarge: the total parameters are 900M",
                      Citation("hub-deberta-v2"), "deberta-v2-xlarge", CONV_TOTALS, precision=10**8, printed="900M")
xxlarge_1_5b = Rounded("xxlarge_1_5b", 1_500_000_000, "deberta-v2-xxlarge: total parameters 1.5B",
                       Citation("hub-deberta-v2"), "deberta-v2-xxlarge", CONV_TOTALS, precision=10**8, printed="1.5B")
FIRST_CARDS = (large_418m, small_143m, xlarge_900m, xxlarge_1_5b)


FAMILY = Family(
    name="deberta_v2",
    reader=reader.READER,
    variants=VARIANTS,
    base="DebertaV2Model",
    # The released configs as their config.json files on the Hugging Face hub (microsoft/deberta-v3-base and so on).
    # deberta-v3-base's is copied whole as a public copy of it prints it (candle-transformers' test of DeBERTa-v2's
    # config parsing); the other sizes are those of Microsoft's own experiment configs for the same models
    # [cite: deberta-experiments] (rtd_xsmall/small/large's discriminators, deberta_xlarge, xxlarge), written in the
    # base's layout; mdeberta-v3-base is the base with its 251,000-token vocabulary (as a public loader of its
    # config.json requires it). Each total is KerasHub's exact figure for the same checkpoint [cite: keras-hub]
    # (tests/test_deberta_v2.py).
    checkpoints=("deberta-v3-xsmall", "deberta-v3-small", "deberta-v3-base", "deberta-v3-large", "mdeberta-v3-base",
                 "deberta-v2-xlarge", "deberta-v2-xxlarge"),
    first_published="2020-06",
    kind="encoder",
    maker="Microsoft",
    headlines=(Headline("DebertaV2Model", "deberta-v3-base"),),
    example="deberta-v3-base",
    table_symbols=(V, D, L),
    table_columns={"DebertaV2Model": "DebertaV2Model", "DebertaV2ForMaskedLM": "ForMaskedLM"},
    rounded=CARDS_BACKBONE + CARDS_EMBEDDING + FIRST_CARDS,
    # The names the page evaluates on DeBERTa-v2's checkpoints (the layout conv): the same in every layout
    # (token_embeddings: in every layout but the projected one, which no released checkpoint has), or built from the
    # layout of DeBERTa-v3's checkpoints, the plain one (backbone, backbone_and_pooler).
    layout_free=("token_embeddings", "layer", "relative_table", "relative_norm", "conv", "word_table", "backbone",
                 "backbone_and_pooler", "context_pooler"),
    sources=SOURCES,
    minimum={T: 0, P_r: 0, k_c: 0, n_abs: 0, n_c2p: 0, n_p2c: 0, n_sh: 0},
)
