"""DistilBERT (Sanh et al. 2019), composed from the components, laid out as transformers' ``DistilBertModel``.

The student of BERT-base: "the token-type embeddings and the pooler are removed while the number of
layers is reduced by a factor of 2" (the paper, section 3). What is left is BERT's layer, with other
module names (``q_lin``, ``k_lin``, ``v_lin``, ``out_lin``, ``sa_layer_norm``, ``ffn.lin1``,
``ffn.lin2``, ``output_layer_norm``), six times, over word and position embeddings and a LayerNorm.
The config names its sizes ``dim``, ``hidden_dim``, ``n_layers`` and ``n_heads``.

``sinusoidal_pos_embds`` changes the values the position table starts with, not the count: in
transformers 5.x the table is filled with sinusoids at initialisation but stays a parameter with
``requires_grad`` true (earlier versions set ``requires_grad`` false on the weight itself, and a
count of trainable parameters then left it out).
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import bert
from ..claims import Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, embedding, encoder_task_heads, feed_forward, group,
                          layer_norm, leaf, linear, tied_tensor)
from ..readers import distilbert as reader
from ..sources import Citation
from ..symbols import D, F, H, L, T, V, b, d_h, s
from .. import transient as tr


# BERT-base's shapes: F = 4D, and heads partition the width (TransformerBlock requires it).
STANDARD = {F: 4 * D, d_h: D / H}

# ---------------------------------------------------------------------------------------------
# Embeddings: word + position, then LayerNorm; no token types
# $$N_\mathrm{emb} = (V + P) D + 2D$$
# ---------------------------------------------------------------------------------------------

# BERT's embeddings (the same module names: word_embeddings, position_embeddings, LayerNorm) without
# the token-type table.
embeddings = replace(bert.embeddings, children=tuple(c for c in bert.embeddings.children if c.name != "token_type"))

# ---------------------------------------------------------------------------------------------
# One TransformerBlock (post-LN, BERT's): attention, Add & LayerNorm, feed-forward, Add & LayerNorm
# $$N_\mathrm{layer} = (4D^2 + 4D) + 2D + (2DF + F + D) + 2D = 12D^2 + 13D$$  when F = 4D.
# ---------------------------------------------------------------------------------------------

layer = group(
    "layer", "TransformerBlock",
    # q_lin, k_lin, v_lin and out_lin are all dim x dim, with bias (the heads split dim exactly, so
    # H d_h = D; out_lin is built from dim alone, as BERT's output dense is).
    attention(D, H, d_h, layout=AttentionLayout("q_lin", "k_lin", "v_lin", "out_lin"), path="attention",
              label="self-attention", output_in=D),
    layer_norm("attention_norm", D, "sa_layer_norm", label="LayerNorm after attention (sa_layer_norm)"),
    feed_forward(D, F, up="lin1", down="lin2", path="ffn"),
    layer_norm("output_norm", D, "output_layer_norm", label="LayerNorm after feed-forward (output_layer_norm)"),
    path="layer", symbol=r"N_{\mathrm{layer}}",
)
assert layer.subs(STANDARD).total == bert.layer.subs(bert.STANDARD).total, "BERT's layer, renamed"

# n_layers blocks, each with weights of its own, in ``transformer.layer``; no pooler after them.
transformer = group("transformer", "transformer (the encoder)", replace(layer, repeat=L), path="transformer",
                    symbol=r"N_{\mathrm{enc}}")

# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------


def mlm_head(tied: bool = True) -> tuple[Part, ...]:
    """DistilBertForMaskedLM's head: vocab_transform (D x D), vocab_layer_norm, vocab_projector to V.

    Tied (the default), the projector's weight *is* the word embedding table; its bias is its own
    (unlike BERT's and RoBERTa's, no second name for it). Untied, the projector has a weight of its own.
    """
    # $$N_\mathrm{mlm} = (D^2 + D) + 2D + V$$  tied;  + V D untied.
    projector = ([tied_tensor("projector", "vocab_projector weight (the word embeddings)",
                              "distilbert.embeddings.word_embeddings", "vocab_projector.weight", matrix=D * V),
                  leaf("projector_bias", "vocab_projector bias", V, "vocab_projector.bias")]
                 if tied else
                 [linear("projector", "vocab_projector (untied: weight and bias of its own)", D, V, True,
                         "vocab_projector")])
    return tuple(as_kind(p, "heads") for p in (
        linear("transform", "vocab_transform (D x D, then gelu)", D, D, True, "vocab_transform"),
        layer_norm("transform_norm", D, "vocab_layer_norm", label="vocab_layer_norm"),
        *projector))


# The classification heads: pre_classifier (D x D, then ReLU) on the first token's state, then the classifier.
pre_classifier = as_kind(linear("pre_classifier", "pre_classifier (D x D, then ReLU)", D, D, True, "pre_classifier"),
                         "heads")


def architectures(untied: bool = False) -> dict[str, Part]:
    """Every DistilBERT class of transformers, named as transformers names it."""

    def model(name: str, label: str, *heads: Part) -> Part:
        inner = group("distilbert", "DistilBertModel", embeddings, transformer, path="distilbert")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "DistilBertModel": group("DistilBertModel", "DistilBertModel: embeddings, transformer", embeddings,
                                 transformer, symbol=r"N_{\mathrm{DistilBertModel}}"),
        "DistilBertForMaskedLM": model("DistilBertForMaskedLM", "DistilBERT with the masked-LM head",
                                       *mlm_head(not untied)),
        # No pooler: the per-sequence classes put pre_classifier on the first token's state. The span head
        # needs num_labels 2 (transformers raises otherwise; readers.distilbert.check says so too).
        **{name: model(name, head.label, *head.parts)
           for name, head in encoder_task_heads("DistilBert", "DistilBERT", pooled=(), pooler=False,
                                                before=(pre_classifier,), span="num_labels, which must be 2").items()},
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.distilbert.READER.layout): an untied vocab_projector.
VARIANTS = reader.READER.layout.variants(architectures)


# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
DistilBertModel_standard = ARCHITECTURES["DistilBertModel"].subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# The student against its teacher
# ---------------------------------------------------------------------------------------------

# BERT-base as the paper's teacher, in the student's sizes: twice the layers, two token types (BERT's
# type_vocab_size), the pooler. The difference is what the paper says it removed, term by term.
# $$N_\mathrm{teacher} - N_\mathrm{student} = L (12D^2 + 13D) + TD + (D^2 + D)$$  (with the teacher's T = 2)
teacher = replace(bert.ARCHITECTURES["BertModel"].subs({L: 2 * L, T: 2}), name="teacher",
                  label="BertModel with twice the layers (the teacher, BERT-base)")
removed = group(
    "removed", "what distillation removed",
    replace(layer, name="layers", label="half the layers", repeat=L),
    embedding("token_types", "the token-type table (BERT's two rows)", 2, D),
    bert.pooler,
)
# The student's share of the teacher, and what it saves: the paper's "40% smaller".
share_of_teacher = ARCHITECTURES["DistilBertModel"].total / teacher.total
smaller_by = 1 - share_of_teacher

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("sanh2019", "Table 3 (# param., millions)")
CONVENTIONS = (ARCHITECTURES["DistilBertModel"], ARCHITECTURES["DistilBertForMaskedLM"])
paper_66m = Rounded("paper_66m", 66_000_000, "DistilBERT: 66 (million parameters), against BERT-base's 110", _PAPER,
                    "distilbert-base-uncased", CONVENTIONS, printed="66M")

# KerasNLP's exact counts of its DistilBERT backbones (66,362,880 and 65,190,912) are DistilBertModel's to
# the parameter: an exact match, checked in tests/test_distilbert.py, not a figure to reconcile.

PUBLISHED = (paper_66m,)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_distilbert.py, BERT's statements but
# for its embeddings (no token types) and its block
# ---------------------------------------------------------------------------------------------

def embeddings_forward(t: tr.Timeline) -> str:
    """Embeddings.forward: the word embeddings, the position embeddings (one row, the positions a view of the
    buffer), their sum, LayerNorm; all but the result die when it returns."""
    stream = tr.activation(b * s * D)
    t.new("inputs_embeds", stream)
    t.new("position_embeddings", tr.activation(s * D))
    t.new("sum", stream)
    tr.layer_norm(t, "embedding_output", D)
    t.drop("sum", "inputs_embeds", "position_embeddings")
    return "embedding_output"


def layer_forward(t: tr.Timeline, out: str) -> str:
    """TransformerBlock.forward on its caller's input: q_lin, k_lin and v_lin, eager attention without a mask (the
    softmax in the activation dtype), out_lin; ``sa_layer_norm(attention + x)``; the FFN (lin1, its activation,
    lin2); ``output_layer_norm(ffn + attention_output)``. The attention weights (``_``) live until it returns."""
    rows, heads = b * s, b * H * s
    for name in ("query", "key", "value"):
        tr.linear(t, name, rows, D)
    context, _ = bert.eager_attention(t, heads)  # BERT's, statement by statement
    attended = tr.linear(t, "out_lin", rows, D)
    t.drop(*context, "query", "key", "value")  # the attention returns
    t.new("sum1", tr.activation(rows * D))
    tr.layer_norm(t, "attention_output", D)
    t.drop("sum1", attended)
    tr.linear(t, "lin1", rows, F)
    t.new("act", tr.activation(rows * F))
    t.drop("lin1")
    ffn = tr.linear(t, "lin2", rows, D)
    t.drop("act")
    t.new("sum2", tr.activation(rows * D))
    tr.layer_norm(t, out, D)
    t.drop("sum2", ffn, "attention_output", "weights")
    return out


# The code paths the program follows: torch's GELU, the feed-forward in one chunk.
_REQUIRES = (("activation", "gelu", ("gelu",)), ("chunk_size_feed_forward", 0, (0,)))
TRANSIENT = {layout: {"DistilBertModel": bert.encoder_transient("none", embeddings_forward, layer_forward, _REQUIRES),
                      "DistilBertForMaskedLM": bert.encoder_transient("mlm", embeddings_forward, layer_forward,
                                                                      _REQUIRES)}
             for layout in VARIANTS}


FAMILY = Family(
    name="distilbert",
    reader=reader.READER,
    variants=VARIANTS,
    base="DistilBertModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # under distilbert/distilbert-base-uncased and distilbert/distilbert-base-cased. The sizing fields (dim
    # 768, hidden_dim 3072, n_layers 6, n_heads 12, max_position_embeddings 512, vocab_size 30522 / 28996,
    # sinusoidal_pos_embds false) were checked against copies whose _name_or_path is the checkpoint
    # [cite: hub-distilbert], and KerasNLP's exact counts of both (below) [cite: keras-hub].
    checkpoints=("distilbert-base-uncased", "distilbert-base-cased"),
    first_published="2019-10",
    kind="encoder",
    maker="Hugging Face",
    headlines=(Headline("DistilBertModel", "distilbert-base-uncased"),),
    example="distilbert-base-uncased",
    table_symbols=(V, D, L),
    table_columns={
        "DistilBertModel": "DistilBertModel",
        "DistilBertForMaskedLM": "ForMaskedLM",
        "DistilBertForSequenceClassification": "ForSequenceClassification",
    },
    rounded=PUBLISHED,
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
)
