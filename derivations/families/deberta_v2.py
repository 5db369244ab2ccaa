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

import functools
from dataclasses import replace

import sympy

from ..components import (AttentionLayout, Op, Part, as_kind, attention, attention_products, classifier, embedding,
                          feed_forward, group, layer_norm, leaf, linear, pooler as _pooler, tied_tensor)
from ..claims import Rounded
from ..contract import Family, Headline
from ..sources import Citation, Source, declare
from ..readers import deberta_v2 as reader
from ..symbols import (C, D, D_g, E, F, H, L, P, P_r, T, V, b, b_2, c_t, d_h, f_a, f_b, k_c, l_2, n_abs, n_c2p, n_p2c,
                       n_sh, s)
from .. import transient as tr

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


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_deberta_v2.py, statement by statement,
# eager, its input the ids and a mask of ones (as a tokenizer gives them: without a mask the model looks for padding
# in the ids); relative attention over log buckets (position_buckets > 0), as DeBERTa-v3 runs it
# ---------------------------------------------------------------------------------------------

# f_a: no token types (type_vocab_size 0); f_b: one head (the relative table's head split is then a view).
NO_TYPES, ONE_HEAD = f_a, f_b


def embeddings_forward(t: tr.Timeline, projected: bool) -> str:
    """DebertaV2Model.forward's ``token_type_ids = torch.zeros(...)`` (64-bit, held until it returns), then
    DebertaV2Embeddings.forward: the word embeddings; the absolute positions (one row) where position_biased_input
    (n_abs), else ``torch.zeros_like(inputs_embeds)``; their sum (n_abs); the token types' embeddings and their sum
    (type_vocab_size > 0); ``embed_proj`` where E differs from D; LayerNorm; the mask cast to the activations' dtype
    and the product; everything but the product dies as it returns."""
    rows = b * s
    stream, types = tr.activation(rows * E), 1 - NO_TYPES
    t.new("token_type_ids", tr.INT64 * rows)
    t.new("inputs_embeds", stream)
    t.new("position_embeddings", tr.activation(n_abs * s * E + (1 - n_abs) * rows * E))
    t.new("sum_positions", n_abs * stream)
    t.new("type_embeddings", types * stream)
    t.new("sum_types", types * stream)
    # embeddings bound again: the positions' sum dies where the types' sum replaces it (each 0 bytes where not made;
    # where neither is, embeddings is inputs_embeds, which stays bound).
    t.split("sum_positions", **{"sum_positions.dead": types, "sum_positions.kept": 1 - types})
    t.drop("sum_positions.dead")
    last = t.join("summed", "sum_types", "sum_positions.kept")
    if projected:
        tr.linear(t, "projected", rows, D)
        t.drop(last)
        last = "projected"
    tr.layer_norm(t, "normed", D)
    t.drop(last)
    t.new("mask_cast", tr.activation(rows))
    t.new("embedding_output", tr.activation(rows * D))
    t.drop("normed", "mask_cast", "inputs_embeds", "position_embeddings", "type_embeddings")
    return "embedding_output"


def relative_positions(t: tr.Timeline) -> str:
    """DebertaV2Encoder.get_rel_pos: build_relative_position on the tokens, the query and key aranges and their
    difference (64-bit, s by s), then make_log_bucket_position on it: the sign, the conditions (booleans), the
    absolute distances (64-bit), their log buckets in fp32 (``abs_pos / mid``, log, the division by a CPU scalar,
    ``* (mid - 1)``, ceil, ``+ mid``, each dying into the next), ``torch.where`` of the bucket and the distance cast
    to fp32, then ``.to(torch.long)``: s by s 64-bit integers, held by the encoder for every layer."""
    pairs = s * s
    t.new("q_ids", tr.INT64 * s)
    t.new("k_ids", tr.INT64 * s)
    t.new("rel_pos_ids", tr.INT64 * pairs)
    # make_log_bucket_position
    t.new("sign", tr.INT64 * pairs)
    t.new("below", tr.BOOL * pairs)
    t.new("above", tr.BOOL * pairs)
    t.new("inside", tr.BOOL * pairs)
    t.drop("below", "above")
    t.new("abs", tr.INT64 * pairs)
    t.new("abs_pos", tr.INT64 * pairs)
    t.drop("abs", "inside")
    previous = None
    for step in ("ratio", "log", "divided", "scaled", "ceil", "log_pos"):
        t.new(step, tr.FP32 * pairs)
        if previous is not None:
            t.drop(previous)
        previous = step
    t.new("near", tr.BOOL * pairs)
    t.new("relative_fp32", tr.FP32 * pairs)
    t.new("signed", tr.FP32 * pairs)
    t.new("bucket_pos", tr.FP32 * pairs)
    t.drop("near", "relative_fp32", "signed", "sign", "abs_pos", "log_pos")  # make_log_bucket_position returns
    t.drop("rel_pos_ids")  # bound again
    t.new("relative_pos", tr.INT64 * pairs)
    t.drop("bucket_pos", "q_ids", "k_ids")  # build_relative_position returns
    return "relative_pos"


def head_split(t: tr.Timeline, name: str, rows, copied) -> str:
    """transpose_for_scores on a projection of ``rows`` rows: ``permute(0, 2, 1, 3).contiguous()``, a copy where
    ``copied`` (more than one head and row), else the projection itself; a copied projection dies."""
    size = tr.activation(rows * H * d_h)
    t.new(f"{name}.projected", size)
    t.new(f"{name}.copy", copied * size)
    t.split(f"{name}.projected", **{f"{name}.dead": copied, f"{name}.kept": 1 - copied})
    t.drop(f"{name}.dead")
    return t.join(name, f"{name}.copy", f"{name}.kept")


def position_layer(t: tr.Timeline, name: str, exists) -> str:
    """A projection of the relative table's 2 P_r rows (the layer's own query or key map with share_att_key, else its
    position map), split into heads (a copy but with one head), ``.repeat`` for the batch (a copy, always): where
    ``exists`` (0 or 1)."""
    rows = 2 * P_r
    size = tr.activation(exists * rows * H * d_h)
    t.new(f"{name}.projected", size)
    t.new(f"{name}.copy", (1 - ONE_HEAD) * size)
    # transpose_for_scores returns: a copied projection dies.
    t.split(f"{name}.projected", **{f"{name}.dead": 1 - ONE_HEAD, f"{name}.kept": ONE_HEAD})
    t.drop(f"{name}.dead")
    t.new(name, b * size)
    t.drop(f"{name}.kept", f"{name}.copy")
    return name


def disentangled_bias(t: tr.Timeline) -> str:
    """DisentangledSelfAttention.disentangled_attention_bias (the relative positions and the table its caller's): the
    relative table's query and key layers (both with share_att_key, the query's first; else c2p's key layer and p2c's
    query layer, each where its score is asked for); c2p: ``bmm`` of the queries and the table's keys (every query
    against 2 P_r rows), the indices ``clamp(relative_pos + att_span)`` (64-bit), ``gather`` (the product dies),
    ``c2p_att / scale`` and ``score += ...`` (the first term: 0 + x, a tensor); p2c: the indices ``clamp(-r_pos +
    att_span)``, ``bmm`` of the keys and the table's queries, ``gather`` (transposed: a view), ``/ scale`` and
    ``score += ...`` (in place after c2p, a new tensor without it). Everything but the score dies as it returns."""
    heads, pairs = b * H * s, s * s
    scores = tr.activation(heads * s)
    shared = n_sh
    query_alone = position_layer(t, "pos_query_shared", shared)
    key = position_layer(t, "pos_key", shared + (1 - shared) * n_c2p)
    query = position_layer(t, "pos_query_own", (1 - shared) * n_p2c)
    t.join("pos_query", query_alone, query)
    # content -> position
    t.new("c2p_product", n_c2p * tr.activation(heads * 2 * P_r))
    t.new("c2p_sum", n_c2p * tr.INT64 * pairs)
    t.new("c2p_pos", n_c2p * tr.INT64 * pairs)
    t.drop("c2p_sum")
    t.new("c2p_att", n_c2p * scores)
    t.drop("c2p_product")
    t.new("c2p_scaled", n_c2p * scores)
    t.new("score", n_c2p * scores)
    t.drop("c2p_scaled")
    # position -> content
    t.new("p2c_neg", n_p2c * tr.INT64 * pairs)
    t.new("p2c_sum", n_p2c * tr.INT64 * pairs)
    t.drop("p2c_neg")
    t.new("p2c_pos", n_p2c * tr.INT64 * pairs)
    t.drop("p2c_sum")
    t.new("p2c_product", n_p2c * tr.activation(heads * 2 * P_r))
    t.new("p2c_att", n_p2c * scores)
    t.drop("p2c_product")
    t.new("p2c_scaled", n_p2c * scores)
    t.new("score_p2c", (1 - n_c2p) * n_p2c * scores)
    t.drop("p2c_scaled")
    t.drop("pos_query", key, "c2p_pos", "c2p_att", "p2c_pos", "p2c_att")  # the function returns
    return t.join("rel_att", "score", "score_p2c")


def attention_forward(t: tr.Timeline) -> str:
    """DisentangledSelfAttention.forward on its caller's input: q, k and v split into heads; ``key_layer.transpose /
    scale`` (a tensor), ``bmm`` with the queries, the relative bias (held as ``rel_att`` until it returns), the
    scores plus it (a new tensor even where the bias is the integer 0, no score asked for), the mask as booleans and
    its negation, ``masked_fill``, softmax, ``bmm`` with the values, the heads merged (a copy where c_t)."""
    rows, heads = b * s, b * H * s
    scores = tr.activation(heads * s)
    for name in ("query", "key", "value"):
        head_split(t, name, rows, c_t)
    t.new("key_scaled", tr.activation(heads * d_h))
    t.new("scores", scores)
    t.drop("key_scaled")
    rel_att = disentangled_bias(t)
    t.new("biased", scores)
    t.drop("scores")
    t.new("mask_bool", tr.BOOL * b * s * s)
    t.new("mask_not", tr.BOOL * b * s * s)
    t.new("masked", scores)
    t.drop("mask_not", "biased")
    t.new("probabilities", scores)  # attention_scores stays bound to the masked scores until the function returns
    t.new("context", tr.activation(heads * d_h))
    t.new("context_copy", c_t * tr.activation(heads * d_h))
    t.split("context", context_dead=c_t, context_kept=1 - c_t)
    t.drop("context_dead")
    t.drop("query", "key", "value", rel_att, "mask_bool", "masked", "probabilities")  # the function returns
    return t.join("self_output", "context_copy", "context_kept")


def layer_forward(t: tr.Timeline, out: str) -> str:
    """DebertaV2Layer.forward on its caller's input: the attention; DebertaV2SelfOutput (dense, LayerNorm of it plus
    the input); the intermediate dense and its GELU; DebertaV2Output (dense, LayerNorm of it plus the attention's
    output). The attention's output and the intermediate live until the layer returns."""
    rows = b * s
    context = attention_forward(t)
    tr.linear(t, "attention_dense", rows, D)
    t.new("attention_sum", tr.activation(rows * D))
    tr.layer_norm(t, "attention_output", D)
    t.drop("attention_sum", "attention_dense")
    t.drop(context)  # DebertaV2Attention returns
    tr.linear(t, "intermediate_dense", rows, F)
    t.new("intermediate", tr.activation(rows * F))  # GELUActivation: nn.functional.gelu, one tensor
    t.drop("intermediate_dense")
    tr.linear(t, "output_dense", rows, D)
    t.new("output_sum", tr.activation(rows * D))
    tr.layer_norm(t, out, D)
    t.drop("output_sum", "output_dense", "intermediate", "attention_output")  # the layer returns
    return out


def conv_forward(t: tr.Timeline, embedded: str, residual: str, out: str) -> str:
    """ConvLayer.forward beside the first layer, on the encoder's input (``embedded``) and the layer's output
    (``residual``): ``permute(0, 2, 1).contiguous()`` (a copy over more than one token: c_t, the heads at least two),
    the convolution (D channels by s tokens: an odd kernel keeps the length), permuted back (a copy the same way, the
    convolution's output then dying), ``(1 - input_mask).bool()`` (64-bit, then booleans), ``masked_fill_`` in place,
    the activation (one tensor), the sum with the residual, LayerNorm (``.to`` the same dtype: itself), the mask cast
    and the product; everything but the product dies as it returns."""
    rows = b * s
    stream = tr.activation(rows * D)
    t.new("conv_input", c_t * stream)
    t.new("conv_output", stream)
    t.drop("conv_input")
    t.new("conv_permuted", c_t * stream)
    t.split("conv_output", conv_dead=c_t, conv_kept=1 - c_t)
    t.drop("conv_dead")
    conv = t.join("conv", "conv_permuted", "conv_kept")
    t.new("rmask_int", tr.INT64 * rows)
    t.new("rmask", tr.BOOL * rows)
    t.drop("rmask_int")
    t.new("conv_act", stream)  # ACT2FN[conv_act]: nn.Tanh or nn.functional.gelu, one tensor
    t.drop(conv)
    t.new("conv_sum", stream)
    tr.layer_norm(t, "conv_normed", D)
    t.new("conv_mask", tr.activation(rows))
    t.new(out, stream)
    t.drop("conv_act", "conv_sum", "conv_normed", "rmask", "conv_mask")  # the function returns
    return out


def model_forward(t: tr.Timeline, projected: bool, rel_norm: bool, head: str, conv: bool = False) -> None:
    """DebertaV2Model.forward and a head: the embeddings; DebertaV2Encoder.forward: the mask ``m * m^T`` (b by s by s
    64-bit integers), the relative positions, the relative table's LayerNorm (norm_rel_ebd), then the layers, each
    output kept in ``all_hidden_states`` (DebertaV2Model asks for them all) until the model returns: the last layer
    runs beside the embeddings and L - 1 earlier outputs. Then the head: ``none``; ``tokens`` (a classifier of every
    token); ``span`` (two logits a token, split and each made contiguous: a copy over more than one row);
    ``sequence`` (ContextPooler: the first token's dense and GELU, then the classifier); ``legacy`` (cls.predictions:
    dense to E, GELU, LayerNorm, the decoder's logits of every token); ``lm_predictions`` (dense, GELU, LayerNorm,
    ``matmul`` with the word table, ``+ bias``)."""
    rows = b * s
    stream = tr.activation(rows * D)
    embedded = embeddings_forward(t, projected)
    t.new("extended_mask", tr.INT64 * b * s * s)
    relative = relative_positions(t)
    norm = int(rel_norm)
    t.new("rel_embeddings", norm * tr.activation(2 * P_r * D))
    t.new("rel_embeddings.mean", norm * tr.FP32 * 2 * P_r)
    t.new("rel_embeddings.rstd", norm * tr.FP32 * 2 * P_r)
    t.drop("rel_embeddings.mean", "rel_embeddings.rstd")
    layer_forward(t, "hidden")
    if conv:  # output_states bound to the convolution's: the first layer's output dies
        conv_forward(t, embedded, "hidden", "hidden_conv")
        t.drop("hidden")
        t.join("hidden", "hidden_conv")
    with t.only(l_2):
        t.new("earlier", (L - 2) * stream)  # the outputs of the layers between the first and the last
        layer_forward(t, "last")
        t.drop("earlier", "hidden")
        t.join("hidden", "last")
    t.drop("extended_mask", relative, "rel_embeddings")  # the encoder returns
    t.drop(embedded, "token_type_ids")  # DebertaV2Model returns (the earlier outputs died above)
    if head == "none":
        return
    if head == "tokens":  # DebertaV2ForTokenClassification: dropout (nothing at eval), the classifier
        tr.linear(t, "logits", rows, C)
        return
    if head == "span":  # DebertaV2ForQuestionAnswering: two logits a token, each squeezed and made contiguous
        tr.linear(t, "logits", rows, C)
        copied = 1 - (1 - b_2) * (1 - c_t)  # a copy over more than one row (c_t: more than one token, H >= 2)
        t.new("start_logits", copied * tr.activation(rows))
        t.new("end_logits", copied * tr.activation(rows))
        return
    if head == "sequence":  # ContextPooler on the first token (a view): dense, its activation; the classifier
        tr.linear(t, "pooler_dense", b, D)
        t.new("pooled", tr.activation(b * D))  # ACT2FN[pooler_hidden_act]: nn.functional.gelu, one tensor
        t.drop("pooler_dense")
        tr.linear(t, "logits", b, C)
        return
    width = E if head == "legacy" else D
    tr.dense_act_norm(t, "transform", rows, width)
    tr.linear(t, "logits", rows, V)
    if head == "lm_predictions":
        t.new("logits_biased", tr.activation(rows * V))
        t.drop("logits")


# The code paths the program follows: relative attention over log buckets (position_buckets a positive count), no
# convolution, GELU in torch; the heads cover the width (DebertaV2SelfOutput's dense reads H d_h as D). One bucket
# fails in transformers (make_log_bucket_position divides by position_buckets // 2).
_ASSUMES = dict(requires=(("relative_attention", False, (True,)), ("conv_kernel_size", 0, (0,)),
                          ("hidden_act", "gelu", ("gelu",)), ("pooler_hidden_act", "gelu", ("gelu",))),
                products=(("H", "d_h", "D"),), counts=(("P_r", "position_buckets", -1),), at_least=(("P_r", 2),),
                flags=(("f_a", "type_vocab_size", 0, 0), ("f_b", "num_attention_heads", 24, 1)))


# With the convolution: an odd kernel (an even one shortens the tokens, which transformers then fails to add, or
# broadcasts), its activation one tensor of torch, and at least two heads (so that c_t says that the permuted tokens
# are copied: more than one token, and more than one channel).
_CONV = dict(_ASSUMES, requires=tuple((field, default, (3, 1, 5, 7, 9)) if field == "conv_kernel_size" else
                                      (field, default, accepted) for field, default, accepted in _ASSUMES["requires"])
             + (("conv_act", "tanh", ("tanh", "gelu")),), at_least=_ASSUMES["at_least"] + (("H", 2),))


def _span(assumes: dict) -> dict:
    """The span head's assumptions besides: two labels (``start, end = logits.split(1, dim=-1)`` fails on more), and
    at least two heads (so that c_t says more than one token)."""
    return dict(assumes, requires=assumes["requires"] + (("num_labels", 2, (2,)),),
                matches=(("num_labels", 2, "C"),), at_least=tuple(dict.fromkeys(assumes["at_least"] + (("H", 2),))))


@functools.cache
def _program(projected: bool, rel_norm: bool, head: str, conv: bool) -> tr.Transient:
    assumes = _CONV if conv else _ASSUMES
    return tr.transient(lambda t, generate: model_forward(t, projected, rel_norm, head, conv), generates=False,
                        **(_span(assumes) if head == "span" else assumes))


def _transient(layout: str, head: str) -> tr.Transient:
    """The forward of a layout's class: the same program for the layouts that differ only by the head's tying."""
    parts = layout.split("+")
    return _program("projected" in parts, "no_rel_norm" not in parts, head, "conv" in parts)


# The body, the masked-LM head (legacy or lm_predictions), the token and sequence classifiers and the span head, in
# every layout. Not derived: the multiple-choice head (the choices folded into the batch).
TRANSIENT = {layout: {"DebertaV2Model": _transient(layout, "none"),
                      "DebertaV2ForMaskedLM": _transient(layout, "lm_predictions" if "lm_predictions" in layout
                                                         else "legacy"),
                      "DebertaV2ForTokenClassification": _transient(layout, "tokens"),
                      "DebertaV2ForQuestionAnswering": _transient(layout, "span"),
                      "DebertaV2ForSequenceClassification": _transient(layout, "sequence")}
             for layout in VARIANTS}


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
    transient=TRANSIENT,
)
