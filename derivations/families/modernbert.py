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
from ..symbols import C, D, F, H, L, V, d_h

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
)
