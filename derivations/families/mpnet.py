"""MPNet (Song et al. 2020), composed from the components, laid out as transformers' ``MPNetModel``.

BERT's encoder with three differences in what it holds: no token-type table (MPNet reads no segments); the attention's
maps under other names (``attention.attn.q``, ``k``, ``v``, ``o``, its LayerNorm at ``attention.LayerNorm``); and one
relative-position bias, a table of B buckets by H heads that the encoder holds once (``encoder.relative_attention_bias``)
and adds to every layer's attention scores. The heads are RoBERTa's: the LM head (``lm_head``: dense, layer_norm, a
decoder tied to the word table, a bias) and the classification head (``classifier``: dense, out_proj) in place of the
pooler, which only the multiple-choice class keeps.
"""

from __future__ import annotations

from dataclasses import replace

from ..components import (AttentionLayout, Part, attention, encoder_task_heads, feed_forward, group,
                          layer_norm, leaf, linear, tied_tensor)
from ..contract import Family, Headline
from ..readers import mpnet as reader
from ..sources import Source, declare
from ..symbols import B, D, F, H, L, P, V, d_h
from . import bert, roberta

# BERT-base's shapes: F = 4D, and heads partition the width (MPNetSelfAttention requires it).
STANDARD = bert.STANDARD

# ---------------------------------------------------------------------------------------------
# Embeddings: word + position, then LayerNorm; no token types
# $$N_\mathrm{emb} = (V + P) D + 2D$$
# ---------------------------------------------------------------------------------------------

# MPNetEmbeddings: BERT's module names, without the token-type table. Both tables pad row 1 (padding_idx=1, whatever
# pad_token_id says); positions are counted from 2, as RoBERTa's.
embeddings = replace(bert.embeddings, children=tuple(c for c in bert.embeddings.children if c.name != "token_type"))
# Rows 0 and 1 of the position table hold no position of a token (row 1 is the padding row): 2D parameters.
offset_rows = roberta.offset_rows
usable_positions = P - 2

# ---------------------------------------------------------------------------------------------
# One MPNetLayer (post-LN, BERT's): attention, Add & LayerNorm, feed-forward, Add & LayerNorm
# $$N_\mathrm{layer} = (3 D H d_h + 3 H d_h + D^2 + D) + 2D + (2DF + F + D) + 2D = 12D^2 + 13D$$
# when F = 4D and H d_h = D.
# ---------------------------------------------------------------------------------------------

layer = group(
    "layer", "MPNetLayer",
    # MPNetSelfAttention (attention.attn): q, k, v (D to H d_h) and o, which is D x D (built from hidden_size, as
    # BERT's output dense).
    attention(D, H, d_h, layout=AttentionLayout("q", "k", "v", "o"), path="attention.attn",
              label="self-attention", output_in=D),
    layer_norm("attention_norm", D, "attention.LayerNorm", label="LayerNorm after attention"),
    feed_forward(D, F, up="intermediate.dense", down="output.dense"),
    layer_norm("output_norm", D, "output.LayerNorm", label="LayerNorm after feed-forward"),
    path="layer", symbol=r"N_{\mathrm{layer}}",
)
assert layer.total == bert.layer.total, "BERT's layer, renamed"

# ---------------------------------------------------------------------------------------------
# The relative-position bias: one scalar per bucket and head, held once by the encoder
# $$N_\mathrm{rel} = B H$$
# ---------------------------------------------------------------------------------------------

# MPNetEncoder.relative_attention_bias = nn.Embedding(relative_attention_num_buckets, num_attention_heads): computed
# once per forward (compute_position_bias) and added to the scores of every layer. Unlike T5's, it is the encoder's
# own module, not a layer's.
relative_bias = leaf("relative_bias", "relative position bias (buckets by heads)", B * H, "relative_attention_bias",
                     note="held by the encoder, added to every layer's attention scores", kind="attention")

# L layers, each with weights of its own, and the one bias beside them.
# $$N_\mathrm{enc} = L\,N_\mathrm{layer} + B H$$
encoder = group("encoder", "encoder", replace(layer, repeat=L), relative_bias, path="encoder",
                symbol=r"N_{\mathrm{enc}}")
pooler = bert.pooler

# ---------------------------------------------------------------------------------------------
# Heads: RoBERTa's, under ``mpnet.``
# ---------------------------------------------------------------------------------------------


def lm_head(tied: bool = True) -> Part:
    """MPNetLMHead (``lm_head``): RobertaLMHead's tensors, the decoder tied to ``mpnet.embeddings.word_embeddings``
    (its bias is ``lm_head.bias``), or untied with a weight and a bias of its own."""
    # $$N_\mathrm{lm} = (D^2 + D) + 2D + V$$  tied;  + (V D + V) untied.
    parts = [linear("dense", "dense (D x D, then gelu)", D, D, True, "dense"),
             layer_norm("layer_norm", D, "layer_norm", label="layer_norm")]
    if tied:
        parts.append(tied_tensor("decoder", "decoder (weight: the word embeddings; bias: lm_head.bias)",
                                 "mpnet.embeddings.word_embeddings", "decoder", matrix=D * V))
    else:
        parts.append(linear("decoder", "decoder (untied: weight and bias of its own)", D, V, True, "decoder"))
    parts.append(leaf("bias", "output bias", V, "bias", note="shared with decoder.bias" if tied else ""))
    return group("lm_head", "language-model head (MPNetLMHead)", *parts, path="lm_head", kind="heads")


# MPNetClassificationHead: RobertaClassificationHead's modules (classifier.dense, classifier.out_proj).
classification_head = replace(roberta.classification_head,
                              label="classification head (MPNetClassificationHead: dense, tanh, out_proj)")


def body(name: str, label: str, with_pooler: bool, path: str | None, symbol: str = "") -> Part:
    """MPNetModel: embeddings, encoder and, with add_pooling_layer true (its default), the pooler."""
    parts = [embeddings, encoder] + ([pooler] if with_pooler else [])
    return group(name, label, *parts, path=path, symbol=symbol or rf"N_{{\mathrm{{{name}}}}}")


def architectures(untied: bool = False) -> dict[str, Part]:
    """Every MPNet class of transformers that a config builds, named as transformers names it."""

    def model(name: str, label: str, with_pooler: bool, *heads: Part) -> Part:
        inner = body("mpnet", "MPNetModel" if with_pooler else "MPNetModel(add_pooling_layer=False)", with_pooler,
                     "mpnet")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "MPNetModel": body("MPNetModel", "MPNetModel: embeddings, encoder, pooler", True, None),
        "MPNetForMaskedLM": model("MPNetForMaskedLM", "MPNet with the masked-LM head", False, lm_head(not untied)),
        # As RoBERTa's: the multiple-choice class alone keeps the pooler; the sequence classifier is the
        # classification head, on the first token's state.
        **{name: model(name, head.label, head.pooled, *head.parts)
           for name, head in encoder_task_heads("MPNet", "MPNet", pooled=("MultipleChoice",),
                                                sequence=classification_head).items()},
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.mpnet): an untied LM head.
VARIANTS = reader.READER.layout.variants(architectures)

# MPNetModel(config, add_pooling_layer=False): the body under every head class but the multiple-choice one.
without_pooler = body("without_pooler", "MPNetModel(add_pooling_layer=False): embeddings, encoder", False, None,
                      symbol=r"N_{\text{without pooler}}")
lm_head_tied = lm_head()

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
MPNetModel_standard = ARCHITECTURES["MPNetModel"].subs(STANDARD)
# Against BertModel of the same sizes: no token-type table (T D less), one bias table (B H more).
# $$N_\mathrm{MPNetModel} - N_\mathrm{BertModel} = B H - T D$$
versus_bert = ARCHITECTURES["MPNetModel"].total - bert.ARCHITECTURES["BertModel"].total

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("hub-mpnet", "config", "Microsoft; sentence-transformers",
           "config.json of microsoft/mpnet-base and sentence-transformers/all-mpnet-base-v2", "Hugging Face hub",
           None, "https://huggingface.co/microsoft/mpnet-base/blob/main/config.json", read=_READ,
           short="the MPNet configs"),
    Source("hub-all-mpnet", "card", "sentence-transformers", "all-mpnet-base-v2: model card",
           "Hugging Face hub, sentence-transformers/all-mpnet-base-v2", 2021,
           "https://huggingface.co/sentence-transformers/all-mpnet-base-v2", read=_READ,
           short="all-mpnet-base-v2's card"),
)

FAMILY = Family(
    name="mpnet",
    reader=reader.READER,
    variants=VARIANTS,
    base="MPNetModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # [cite: hub-mpnet]: microsoft/mpnet-base and sentence-transformers/all-mpnet-base-v2 (the sentence-embedding
    # model people download; the same sizes), each config.json as an audit of both repositories quoted it, with
    # the commits read (6996ce1e and e8c3b32e), in a public repository found by code search.
    checkpoints=("mpnet-base", "all-mpnet-base-v2"),
    first_published="2020-04",
    kind="encoder",
    maker="Microsoft",
    headlines=(Headline("MPNetModel", "all-mpnet-base-v2"),),
    example="mpnet-base",
    table_symbols=(V, P, D, L, B),
    table_columns={
        "MPNetModel": "MPNetModel",
        "without_pooler": "without pooler",
        "MPNetForMaskedLM": "ForMaskedLM",
        "relative_bias": "relative bias",
    },
    ratios={d_h: (D, H)},
    sources=SOURCES,
)
