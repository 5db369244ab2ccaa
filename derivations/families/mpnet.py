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
                          layer_norm, leaf)
from ..contract import Family, Headline
from ..readers import mpnet as reader
from ..sources import Source, declare
from ..symbols import B, D, F, H, L, P, V, b, b_2, c_bt, c_t, d_h, l_2, s
from .. import transient as tr
from . import bert, roberta, t5

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
    """MPNetLMHead (``lm_head``): RobertaLMHead's tensors (roberta.lm_head: ``N_lm = (D^2 + D) + 2D + V`` tied,
    ``+ (V D + V)`` untied), the decoder tied to ``mpnet.embeddings.word_embeddings`` (its bias is ``lm_head.bias``),
    or untied with a weight and a bias of its own."""
    return roberta.lm_head(tied, body="mpnet", head_class="MPNetLMHead")


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
# The forward at inference (derivations.transient): transformers' modeling_mpnet.py, statement by statement, on the
# ids alone (no mask is built), eager attention (MPNet has no other)
# ---------------------------------------------------------------------------------------------

def embeddings_forward(t: tr.Timeline) -> str:
    """MPNetEmbeddings.forward: create_position_ids_from_input_ids (``ne(1).int()``, a cumulative sum in 64 bits cast
    back to 32, times the mask, ``.long() + 1``: b x T each), the word and position embeddings summed, LayerNorm."""
    stream, rows = tr.activation(b * s * D), b * s
    t.new("not_padding", tr.BOOL * rows)
    t.new("mask", 4 * rows)  # .int()
    t.drop("not_padding")
    t.new("cumsum", tr.INT64 * rows)
    t.new("cumsum32", 4 * rows)  # .type_as(mask)
    t.drop("cumsum")
    t.new("incremental", 4 * rows)  # * mask
    t.drop("cumsum32")
    t.new("long", tr.INT64 * rows)
    t.new("position_ids", tr.INT64 * rows)  # + padding_idx
    t.drop("long", "mask", "incremental")  # the function returns
    t.new("inputs_embeds", stream)
    t.new("position_embeddings", stream)
    t.new("sum", stream)
    tr.layer_norm(t, "embedding_output", D)
    t.drop("sum", "inputs_embeds", "position_embeddings", "position_ids")
    return "embedding_output"


def position_bias_forward(t: tr.Timeline) -> str:
    """MPNetEncoder.compute_position_bias: the positions (64-bit, a view of each arange) and their differences,
    relative_position_bucket (each step a tensor of T x T integers, booleans or fp32), the bias rows looked up
    (T x T x H, the activation dtype), then expanded over the batch and made contiguous: a copy of b x H x T x T
    unless that view is contiguous already (one sequence, and one head or one token), the encoder's for every
    layer."""
    qk = s * s
    t.new("context_position", tr.INT64 * s)
    t.new("memory_position", tr.INT64 * s)
    t.new("relative_position", tr.INT64 * qk)
    t.new("negated", tr.INT64 * qk)  # n = -relative_position
    t.new("negative", tr.BOOL * qk)  # ret += (n < 0).to(long) * num_buckets: ret = 0 + ..., a new tensor
    t.new("negative_long", tr.INT64 * qk)
    t.drop("negative")
    t.new("negative_buckets", tr.INT64 * qk)
    t.drop("negative_long")
    t.new("buckets", tr.INT64 * qk)
    t.drop("negative_buckets")
    t.new("distance", tr.INT64 * qk)  # n = torch.abs(n)
    t.drop("negated")
    t.new("is_small", tr.BOOL * qk)
    t5.large_buckets_forward(t, qk)  # the same statements as T5's _relative_position_bucket
    t.new("chosen", tr.INT64 * qk)  # ret += torch.where(is_small, n, large): in place
    t.drop("chosen")
    t.drop("distance", "is_small", "large.min")  # relative_position_bucket returns
    t.new("bias_rows", tr.activation(H * qk))  # the embedding of the buckets, T x T x H
    # expand(b, ...).contiguous(): a copy unless one sequence and a contiguous permute (one head or one token).
    copied = c_t + b_2 - c_t * b_2
    t.new("position_bias", tr.activation(copied * b * H * qk))
    t.split("bias_rows", bias_dropped=copied, bias_kept=1 - copied)
    t.drop("context_position", "memory_position", "relative_position", "buckets", "bias_dropped")
    return "position_bias"


def layer_forward(t: tr.Timeline, out: str) -> str:
    """MPNetLayer.forward on its caller's input: MPNetSelfAttention (q, k and v; the scores, scaled, the position bias
    added in place, softmaxed while the scaled scores stay named; times the values, the heads merged; o), which
    returns o alone; LayerNorm of o plus the input; then BERT's intermediate and output."""
    rows, heads = b * s, b * H * s
    for name in ("q", "k", "v"):
        tr.linear(t, name, rows, D)
    # torch.matmul folds batch and heads (BERT's); / sqrt(d_h); then += position_bias, in place
    tr.scaled_scores(t, c_bt * heads * d_h, c_bt * heads * d_h, heads * s)
    t.new("probs", tr.activation(heads * s))  # softmax: attention_scores still names the scaled scores
    tr.merge_heads(t, heads, d_h, c_bt)  # c.permute(0, 2, 1, 3).contiguous()
    tr.linear(t, "o", rows, D)
    t.drop("q", "k", "v", "scaled", "probs", "context", "context_contiguous")  # MPNetSelfAttention returns
    t.new("attention_sum", tr.activation(rows * D))
    tr.layer_norm(t, "attention_output", D)
    t.drop("attention_sum", "o")  # MPNetAttention returns
    intermediate = tr.linear(t, "intermediate_dense", rows, F)
    t.new("intermediate", tr.activation(rows * F))  # GELU
    t.drop(intermediate)
    tr.linear(t, "output_dense", rows, D)
    t.new("output_sum", tr.activation(rows * D))
    tr.layer_norm(t, out, D)
    t.drop("output_sum", "output_dense", "intermediate", "attention_output")  # the layer returns
    return out


def encoder_forward(t: tr.Timeline, head: str) -> None:
    """MPNetModel.forward and its heads: the embeddings (held until it returns), the position bias (the encoder's),
    the layers (the first reads the embeddings, a later one its predecessor's output, which dies when it returns);
    then BERT's heads (bert.head_forward): ``pooler`` (the first token's dense and tanh) or ``mlm`` (dense, GELU,
    layer_norm, the decoder's logits)."""
    stream = tr.activation(b * s * D)
    embeddings_forward(t)
    position_bias_forward(t)
    layer_forward(t, "hidden")
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        layer_forward(t, "hidden")
        t.drop("previous")
    t.drop("position_bias", "bias_kept")  # MPNetEncoder returns
    bert.head_forward(t, head)


def classes() -> dict:
    """MPNet's derived classes in every layout, eager (MPNet has no other attention)."""
    def forward(head: str) -> tr.Transient:
        # GELU in torch; heads that cover the width (o maps D); the buckets looked up for 32, whatever the table.
        return tr.transient(lambda t, generate: encoder_forward(t, head), generates=False,
                            requires=(("hidden_act", "gelu", ("gelu",)),), products=(("H", "d_h", "D"),),
                            at_least=(("B", 32),))
    return {layout: {"MPNetModel": forward("pooler"), "MPNetForMaskedLM": forward("mlm")} for layout in VARIANTS}


TRANSIENT = classes()

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
    transient=TRANSIENT,
    no_sdpa="transformers runs MPNet with its own eager attention only (no sdpa)",
)
