"""RoBERTa (Liu et al. 2019), laid out as transformers' ``RobertaModel``: BERT's tensors, other heads.

The embeddings and the encoder layers hold exactly BERT's tensors, under the same module names
(``roberta.embeddings.word_embeddings``, ``roberta.encoder.layer.<i>.attention.self.query``, ...), so
they are :mod:`derivations.bert`'s parts, imported, not rebuilt. What differs is in the sizes the
checkpoints set and in the heads:

- ``max_position_embeddings`` is 514 in every released RoBERTa: positions are counted from
  ``pad_token_id + 1`` = 2 (fairseq's convention), so rows 0 and 1 of the table never hold the
  position of a token, and 512 rows are left for a sequence. The table is still P x D.
- ``type_vocab_size`` is 1: a single token-type row, added to every token.
- the heads are RoBERTa's own: ``RobertaLMHead`` (dense, layer_norm, a decoder tied to the word
  embeddings, a bias) and ``RobertaClassificationHead`` (dense, out_proj), which reads the first
  token's state directly: RobertaForSequenceClassification has no pooler.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import bert
from ..claims import Miscount, Rounded
from ..components import Part, embedding, encoder_task_heads, group, layer_norm, leaf, linear, tied_tensor
from ..readers import roberta as reader
from ..sources import Citation
from ..symbols import C, D, H, L, P, V, b, d_h, s
from .. import transient as tr


# The paper's shapes (BERT's): F = 4D, and heads partition the width.
STANDARD = bert.STANDARD

# ---------------------------------------------------------------------------------------------
# Embeddings and encoder: BERT's tensors
# $$N_\mathrm{emb} = (V + P + T) D + 2D$$  with P = 514 and T = 1 on the released checkpoints.
# $$N_\mathrm{layer} = 12D^2 + 13D$$  when F = 4D and H d_h = D.
# ---------------------------------------------------------------------------------------------

embeddings = bert.embeddings
layer = bert.layer
decoder_layer = bert.decoder_layer
encoder = bert.encoder
# The encoder of a RoBERTa decoder (is_decoder and add_cross_attention): BERT's, cross-attention included.
cross_attention_encoder = bert.VARIANTS["cross_attention"]["BertModel"].child("encoder")
assert cross_attention_encoder.children[0] == replace(decoder_layer, repeat=L)
pooler = bert.pooler

# What the 514 rows hold. create_position_ids_from_input_ids numbers a token's position from
# pad_token_id + 1 (2, with pad_token_id 1 in every released config); padding tokens get the padding row.
# Row 0 is never looked up, and row 1 (the padding row) is zero and gets no gradient (nn.Embedding's
# padding_idx): two rows, 2D parameters, that hold no position of a token.
# $$N_\mathrm{offset} = 2D$$
offset_rows = embedding("offset_rows", "position rows below pad_token_id + 1 (row 0, and the padding row 1)", 2, D)
# The positions left for a sequence: P - 2 (512 on roberta-base).
usable_positions = P - 2
# The token-type table: T rows (one on the released checkpoints, against BERT's two).
token_types = embeddings.child("token_type")

# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------


def lm_head(tied: bool = True, body: str = "roberta", head_class: str = "RobertaLMHead") -> Part:
    """RobertaLMHead (``lm_head``): dense D x D, gelu, layer_norm, then a decoder to V logits and a bias.

    Tied (tie_word_embeddings true, the default), ``lm_head.decoder.weight`` *is* the word embedding
    table (``{body}.embeddings.word_embeddings``) and ``lm_head.decoder.bias`` *is* ``lm_head.bias``: both
    counted where they are first defined. Untied, the decoder is a linear map of its own, bias included, beside
    ``lm_head.bias``. A kin's head of the same tensors (MPNet's) names its body and its class.
    """
    # $$N_\mathrm{lm} = (D^2 + D) + 2D + V$$  tied;  + (V D + V) untied.
    parts = [linear("dense", "dense (D x D, then gelu)", D, D, True, "dense"),
             layer_norm("layer_norm", D, "layer_norm", label="layer_norm")]
    if tied:
        parts.append(tied_tensor("decoder", "decoder (weight: the word embeddings; bias: lm_head.bias)",
                                 f"{body}.embeddings.word_embeddings", "decoder", matrix=D * V))
    else:
        parts.append(linear("decoder", "decoder (untied: weight and bias of its own)", D, V, True, "decoder"))
    parts.append(leaf("bias", "output bias", V, "bias", note="shared with decoder.bias" if tied else ""))
    return group("lm_head", f"language-model head ({head_class})", *parts, path="lm_head", kind="heads")


# RobertaClassificationHead (``classifier``): the first token's state through dense D x D and tanh, then
# out_proj to C logits, both with bias. It replaces the pooler: the body is built without one.
# $$N_\mathrm{cls} = (D^2 + D) + (D C + C)$$
classification_head = group(
    "classifier", "classification head (RobertaClassificationHead: dense, tanh, out_proj)",
    linear("dense", "dense (D x D, then tanh)", D, D, True, "dense"),
    linear("out_proj", "out_proj (to the labels)", D, C, True, "out_proj"),
    path="classifier", kind="heads",
)


def body(name: str, label: str, encoder: Part, with_pooler: bool, path: str | None, symbol: str = "") -> Part:
    """RobertaModel: embeddings, encoder and, with add_pooling_layer true (its default), the pooler."""
    parts = [embeddings, encoder] + ([pooler] if with_pooler else [])
    return group(name, label, *parts, path=path, symbol=symbol or rf"N_{{\mathrm{{{name}}}}}")


def architectures(cross_attention: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every RoBERTa class of transformers that a config builds, named as transformers names it."""
    stack = cross_attention_encoder if cross_attention else encoder

    def model(name: str, label: str, with_pooler: bool, *heads: Part) -> Part:
        inner = body("roberta", "RobertaModel" if with_pooler else "RobertaModel(add_pooling_layer=False)", stack,
                     with_pooler, "roberta")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "RobertaModel": body("RobertaModel", "RobertaModel: embeddings, encoder, pooler", stack, True, None),
        "RobertaForMaskedLM": model("RobertaForMaskedLM", "RoBERTa with the masked-LM head", False,
                                    lm_head(not untied)),
        "RobertaForCausalLM": model("RobertaForCausalLM", "RoBERTa with the LM head, as a causal decoder", False,
                                    lm_head(not untied)),
        # The multiple-choice class is the only head class that keeps the pooler; the sequence classifier
        # is RoBERTa's own classification head, on the first token's state.
        **{name: model(name, head.label, head.pooled, *head.parts)
           for name, head in encoder_task_heads("Roberta", "RoBERTa", pooled=("MultipleChoice",),
                                                sequence=classification_head).items()},
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.roberta: BERT's): a decoder with cross-attention
# (is_decoder, add_cross_attention), an untied LM head (tie_word_embeddings false), both.
VARIANTS = reader.READER.layout.variants(architectures)


# RobertaModel(config, add_pooling_layer=False): the body under every head class but the multiple-choice one.
without_pooler = body("without_pooler", "RobertaModel(add_pooling_layer=False): embeddings, encoder", encoder,
                      False, None, symbol=r"N_{\text{without pooler}}")
lm_head_tied = lm_head()

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
RobertaModel_standard = ARCHITECTURES["RobertaModel"].subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_FAIRSEQ = Citation("fairseq-roberta", "table of pre-trained models")
CONVENTIONS = (ARCHITECTURES["RobertaModel"], without_pooler, ARCHITECTURES["RobertaForMaskedLM"])
base_125m = Rounded("base_125m", 125_000_000, "roberta.base: RoBERTa using the BERT-base architecture", _FAIRSEQ,
                    "roberta-base", CONVENTIONS, printed="125M")
large_355m = Rounded("large_355m", 355_000_000, "roberta.large: RoBERTa using the BERT-large architecture",
                     _FAIRSEQ, "roberta-large", CONVENTIONS, printed="355M")

# KerasNLP (keras-team/keras-hub) lists exact counts for its RoBERTa backbones, whose weights are the
# fairseq checkpoints converted: the word table, the encoder and the embedding LayerNorm as here, but a
# position table of the 512 usable rows only, no token-type table and no pooler. Each figure is exact and
# right for that layout, and no transformers class has it: set against RobertaModel, the difference is
# exactly the three things the layout leaves out.
# $$N_\mathrm{keras} = N_\mathrm{RobertaModel} - 2D - TD - (D^2 + D)$$
keras_backbone = group(
    "keras_backbone", "KerasNLP's RobertaBackbone: 512 position rows, no token types, no pooler",
    embedding("word", "word embeddings", V, D),
    embedding("position", "the usable position rows", P - 2, D),
    layer_norm("norm", D, label="embedding LayerNorm"),
    encoder,
)
_KERAS = Citation("keras-hub", "the RoBERTa presets' metadata, <code>\"params\"</code>")


def _keras(name: str, claim: int, preset: str, checkpoint: str) -> Miscount:
    # Not a mistake (so not in the record's miscounts): an exact count of another layout, decomposed against RobertaModel.
    return Miscount(name, claim, f"{preset}: KerasNLP's RobertaBackbone", _KERAS, checkpoint,
                    ARCHITECTURES["RobertaModel"], terms=(offset_rows, token_types, pooler),
                    reconstruction=keras_backbone)


keras_base = _keras("keras_base", 124_052_736, "roberta_base_en", "roberta-base")
keras_large = _keras("keras_large", 354_307_072, "roberta_large_en", "roberta-large")

PUBLISHED = (base_125m, large_355m)
KERAS = (keras_base, keras_large)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): BERT's, but for the positions, which RoBERTa counts from the
# ids (each sequence its own row)
# ---------------------------------------------------------------------------------------------

def embeddings_forward(t: tr.Timeline) -> str:
    """RobertaEmbeddings.forward: ``create_position_ids_from_input_ids`` (``ne(padding_idx).int()``, a cumulative
    sum in 64 bits cast back to 32, plus the past length, times the mask, ``.long() + padding_idx``: b x T each),
    the token type ids gathered at those positions (b x T), then as BERT: word and token type embeddings summed,
    the position embeddings (b x T rows here) added, LayerNorm."""
    stream, rows = tr.activation(b * s * D), b * s
    t.new("not_padding", tr.BOOL * rows)
    t.new("mask", 4 * rows)  # .int()
    t.drop("not_padding")
    t.new("cumsum", tr.INT64 * rows)
    t.new("cumsum32", 4 * rows)
    t.drop("cumsum")
    t.new("shifted", 4 * rows)  # + past_key_values_length
    t.drop("cumsum32")
    t.new("incremental", 4 * rows)  # * mask
    t.drop("shifted")
    t.new("long", tr.INT64 * rows)
    t.new("position_ids", tr.INT64 * rows)  # + padding_idx
    t.drop("long", "mask", "incremental")  # the function returns
    t.new("token_type_ids", tr.INT64 * rows)
    t.new("inputs_embeds", stream)
    t.new("token_type_embeddings", stream)
    t.new("sum1", stream)
    t.new("position_embeddings", stream)
    t.new("sum2", stream)
    t.drop("sum1")
    tr.layer_norm(t, "embedding_output", D)
    t.drop("sum2", "inputs_embeds", "token_type_ids", "token_type_embeddings", "position_embeddings", "position_ids")
    return "embedding_output"


def classes(attention: str = "eager") -> dict:
    """RoBERTa's derived classes in every layout (none with cross-attention), under ``attention``: BERT's layers."""
    return {layout: {"RobertaModel": bert.encoder_transient("pooler", embeddings_forward, attention=attention),
                     "RobertaForMaskedLM": bert.encoder_transient("mlm", embeddings_forward, attention=attention)}
            for layout in ("", "untied")} | {layout: {} for layout in VARIANTS if "cross_attention" in layout}


TRANSIENT = classes()
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = classes("sdpa")


FAMILY = Family(
    name="roberta",
    reader=reader.READER,
    variants=VARIANTS,
    base="RobertaModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # under FacebookAI/roberta-base and FacebookAI/roberta-large. The fields that size the model (vocab_size
    # 50265, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, max_position_embeddings
    # 514, type_vocab_size 1, pad_token_id 1) were checked against RobertaConfig.from_pretrained printouts
    # of both checkpoints [cite: hub-roberta].
    checkpoints=("roberta-base", "roberta-large"),
    first_published="2019-07",
    kind="encoder",
    maker="Meta",
    headlines=(Headline("RobertaModel", "roberta-base"),),
    example="roberta-base",
    table_symbols=(V, D, L),
    table_columns={
        "RobertaModel": "RobertaModel",
        "without_pooler": "without pooler",
        "RobertaForMaskedLM": "ForMaskedLM",
    },
    rounded=PUBLISHED,
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
