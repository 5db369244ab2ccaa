"""ALBERT (Lan et al. 2019), composed from the components, laid out as transformers' ``AlbertModel``.

BERT's encoder with two changes that cut its parameters, not its computation. The word, position and
token-type tables are ``E`` wide instead of ``D`` (a factorized embedding), and one map from ``E`` to
``D`` (``encoder.embedding_hidden_mapping_in``) lifts their sum into the encoder. And the layers share
their weights across depth: ``AlbertTransformer`` stores ``G`` groups (``num_hidden_groups``) of ``L_g``
layers each (``inner_group_num``), and its ``L`` steps cycle through the groups, so the count is
``G L_g`` layers whatever ``L`` is. Every released ALBERT has ``G = L_g = 1``: one layer, applied ``L``
times.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from . import bert
from ..claims import Hypothesis, Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, classifier, embedding, encoder_task_heads,
                          factorized_embedding, feed_forward, group, layer_norm, leaf, linear, pooler as _pooler,
                          tied_tensor)
from ..readers import albert as reader
from ..sources import Citation
from ..symbols import C, D, E, F, G, H, L, L_g, P, T, V, b, d_h, l_2, s
from .. import transient as tr


# The paper's shapes: F = 4D, heads partition the width, one shared layer (every released size).
STANDARD = {F: 4 * D, d_h: D / H, G: 1, L_g: 1}

# ---------------------------------------------------------------------------------------------
# Embeddings: word + position + token type, all E wide, then a LayerNorm of width E
# $$N_\mathrm{emb} = (V + P + T) E + 2E$$
# ---------------------------------------------------------------------------------------------

embeddings = group(
    "embeddings", "embeddings, E wide",
    embedding("word", "word embeddings, V by E", V, E, "word_embeddings"),
    embedding("position", "learned position embeddings, P by E", P, E, "position_embeddings"),
    embedding("token_type", "token-type (segment) embeddings, T by E", T, E, "token_type_embeddings"),
    layer_norm("norm", E, "LayerNorm", label="embedding LayerNorm (width E)"),
    path="embeddings", symbol=r"N_{\mathrm{emb}}",
)

# $$N = E D + D$$  the one map from the embedding width to the hidden width, with bias.
projection = as_kind(linear("projection", "projection from E to D (embedding_hidden_mapping_in)", E, D, True,
                            "embedding_hidden_mapping_in"), "embeddings")

# The factorization on its own, as the paper states it: the word table V D becomes V E + (E D + D).
# (In transformers the table sits in the embeddings and the projection in the encoder; the tree of the
# model below keeps them where transformers does.)
factorized_words = factorized_embedding(V, E, D, table="embeddings.word_embeddings",
                                        projection="encoder.embedding_hidden_mapping_in")
# $$V D - (V E + E D + D) = V (D - E) - E D - D$$  what factorizing the word table saves.
factorization_saving = V * (D - E) - E * D - D
assert sympy.expand(factorization_saving - (V * D - factorized_words.total)) == 0
# What ALBERT's embeddings and projection save against BERT's embeddings (word, position and token
# type D wide, a LayerNorm of D): every table and the LayerNorm narrow from D to E, less the projection.
embedding_saving = (V + P + T) * (D - E) + 2 * (D - E) - (E * D + D)
assert sympy.expand(embedding_saving - (bert.embeddings.total - embeddings.total - projection.total)) == 0

# ---------------------------------------------------------------------------------------------
# One layer (AlbertLayer, post-LN, BERT's): attention, Add & LayerNorm, feed-forward, Add & LayerNorm
# $$N_\mathrm{layer} = (3 D H d_h + 3 H d_h + D^2 + D) + 2D + (2 D F + F + D) + 2D = 12D^2 + 13D$$
# when F = 4D and H d_h = D.
# ---------------------------------------------------------------------------------------------

ATTENTION = AttentionLayout(query="attention.query", key="attention.key", value="attention.value",
                            output="attention.dense")

layer = group(
    "layer", "one AlbertLayer",
    # Q, K, V map D to H d_h (d_h = D // H: the heads may cover less than D); the output map is D by D.
    attention(D, H, d_h, layout=ATTENTION, output_in=D, label="self-attention"),
    layer_norm("attention_norm", D, "attention.LayerNorm", label="LayerNorm after attention"),
    feed_forward(D, F, up="ffn", down="ffn_output"),
    layer_norm("output_norm", D, "full_layer_layer_norm", label="LayerNorm after the feed-forward"),
    path="albert_layers", symbol=r"N_{\mathrm{layer}}",
)

# ---------------------------------------------------------------------------------------------
# Sharing across depth: G groups of L_g layers, stored once, applied L times in all
# $$N_\mathrm{enc} = (E D + D) + G L_g N_\mathrm{layer}$$   (no L: the depth is free)
# ---------------------------------------------------------------------------------------------

# AlbertLayerGroup (albert_layer_groups.<g>): L_g layers, each with weights of its own.
layer_group = group("group", "one AlbertLayerGroup: L_g layers", replace(layer, repeat=L_g),
                    path="albert_layer_groups", symbol=r"N_{\mathrm{group}}")

# The G groups, each stored once. The forward pass runs L steps and step i uses group int(i G / L):
# with G = 1 (every released ALBERT) the one group is applied L times. L counts nothing here.
shared_groups = replace(layer_group, repeat=G, applied=L,
                        note="shared across depth: the L steps of the forward pass cycle through these "
                             "G groups, each stored (and counted) once")

encoder = group("encoder", "AlbertTransformer: the projection and the shared groups", projection, shared_groups,
                path="encoder", symbol=r"N_{\mathrm{enc}}")

# The [CLS] pooler: a D-by-D map with bias (AlbertModel.pooler is the Linear itself, then tanh).
pooler = _pooler(D, "pooler")

# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------


def mlm_head(tied: bool = True) -> Part:
    """AlbertMLMHead (``predictions``): a dense map from D down to E, a LayerNorm of E, and a decoder
    from E to V whose weight *is* the word embedding table and whose bias *is* the output bias (both
    counted where they are first defined). Untied (tie_word_embeddings false) the decoder has a weight
    and a bias of its own, beside the output bias."""
    # $$N_\mathrm{MLM} = (D E + E) + 2E + V$$  tied; untied adds E V + V.
    parts = [linear("dense", "dense map from D to E", D, E, True, "dense"),
             layer_norm("norm", E, "LayerNorm", label="LayerNorm (width E)")]
    if tied:
        parts.append(tied_tensor("decoder", "decoder (the word embeddings, and the output bias)",
                                 "albert.embeddings.word_embeddings", "decoder", matrix=E * V))
    else:
        parts.append(linear("decoder", "decoder from E to V (untied: a weight and a bias of its own)", E, V, True,
                            "decoder"))
    parts.append(leaf("bias", "output bias", V, "bias"))
    return group("mlm", "masked-LM head", *parts, path="predictions", kind="heads")


# AlbertSOPHead: sentence-order prediction, num_labels logits from the pooled output (2 by default).
# On the pooled state: one row a sequence.
sop_head = replace(classifier(D, C, "sop_classifier.classifier", name="sop", label="sentence-order classifier (num_labels)"),
                   tokens=1)


def body(name: str, label: str, with_pooler: bool, path: str | None) -> Part:
    """AlbertModel, with or without its pooler (add_pooling_layer)."""
    parts = [embeddings, encoder] + ([pooler] if with_pooler else [])
    return group(name, label, *parts, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")


def architectures(untied: bool = False) -> dict[str, Part]:
    """Every ALBERT class of transformers, named as transformers names it."""
    head = mlm_head(tied=not untied)

    def model(name: str, label: str, with_pooler: bool, *heads: Part) -> Part:
        inner = body("albert", "AlbertModel" if with_pooler else "AlbertModel without pooler", with_pooler, "albert")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "AlbertModel": body("AlbertModel", "AlbertModel: embeddings, encoder, pooler", True, None),
        "AlbertForPreTraining": model("AlbertForPreTraining", "ALBERT with the masked-LM and sentence-order heads",
                                      True, head, sop_head),
        "AlbertForMaskedLM": model("AlbertForMaskedLM", "ALBERT with the masked-LM head (no pooler)", False, head),
        **{name: model(name, head.label, head.pooled, *head.parts)
           for name, head in encoder_task_heads("Albert", "ALBERT").items()},
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.albert.READER.layout): the masked-LM decoder untied.
VARIANTS = reader.READER.layout.variants(architectures)


# AlbertModel(config, add_pooling_layer=False): the body of the masked-LM, token and span classes.
without_pooler = body("without_pooler", "AlbertModel without pooler", False, None)
# Everything but the three embedding tables (their LayerNorm and the projection stay).
non_embedding = group("non_embedding", "AlbertModel without the embedding tables",
                      embeddings.child("norm"), encoder, pooler, symbol=r"N_{\text{non-emb}}")
# An untied masked-LM decoder, as a checkpoint with its own output matrix would have.
pretraining_untied = replace(VARIANTS["untied"]["AlbertForPreTraining"], name="pretraining_untied",
                             label="AlbertForPreTraining with an untied decoder")

# ---------------------------------------------------------------------------------------------
# Simplified forms: F = 4D, H d_h = D, one shared layer
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
encoder_standard = encoder.subs(STANDARD)
AlbertModel_standard = ARCHITECTURES["AlbertModel"].subs(STANDARD)
# An ordinary stack: G = L groups of one layer each, every layer with weights of its own.
unshared = ARCHITECTURES["AlbertModel"].subs({G: L, L_g: 1})
# What sharing one layer saves against that stack: L - 1 layers.
sharing_saving = (L - 1) * layer.total
assert sympy.expand(sharing_saving - (unshared.total - ARCHITECTURES["AlbertModel"].subs({G: 1, L_g: 1}).total)) == 0

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("lan2020", "Table 1")

# Everything the paper's ALBERT figures could have counted.
CONVENTIONS = (ARCHITECTURES["AlbertModel"], without_pooler, ARCHITECTURES["AlbertForPreTraining"], pretraining_untied,
               non_embedding)

base_12m = Rounded("base_12m", 12_000_000, "ALBERT base: 12 layers, hidden 768, embedding 128, sharing all",
                   _PAPER, "albert-base-v2", CONVENTIONS, printed="12M")
large_18m = Rounded("large_18m", 18_000_000, "ALBERT large: 24 layers, hidden 1024, embedding 128, sharing all",
                    _PAPER, "albert-large-v2", CONVENTIONS, printed="18M")
xlarge_60m = Rounded("xlarge_60m", 60_000_000, "ALBERT xlarge: 24 layers, hidden 2048, embedding 128, sharing all",
                     _PAPER, "albert-xlarge-v2", CONVENTIONS, printed="60M")
xxlarge_235m = Rounded("xxlarge_235m", 235_000_000,
                       "ALBERT xxlarge: 12 layers, hidden 4096, embedding 128, sharing all", _PAPER,
                       "albert-xxlarge-v2", CONVENTIONS, printed="235M")
PAPER = (base_12m, large_18m, xlarge_60m, xxlarge_235m)

# "60M" read as rounded to the nearest ten million (one significant figure and a zero).
xlarge_60m_tens = Rounded("xlarge_60m_tens", 60_000_000,
                          "ALBERT xlarge, 60M read as rounded to the nearest ten million", _PAPER,
                          "albert-xlarge-v2", CONVENTIONS, precision=10**7, printed="60M")

# xxlarge's 235M: which single size, the others as released, would make AlbertModel round to it?
# None of these is a published explanation; each is a candidate tried, and the page shows that none holds.
xxlarge_embedding = Hypothesis("xxlarge_embedding", "one embedding size E, all else as released, gives the figure",
                               (xxlarge_235m,), E, None)
xxlarge_feed_forward = Hypothesis("xxlarge_feed_forward",
                                  "one feed-forward width F, all else as released, gives the figure",
                                  (xxlarge_235m,), F, None)
xxlarge_vocabulary = Hypothesis("xxlarge_vocabulary", "one vocabulary V, all else as released, gives the figure",
                                (xxlarge_235m,), V, None)
xxlarge_groups = Hypothesis("xxlarge_groups", "some number of stored layer groups G gives the figure",
                            (xxlarge_235m,), G, None)
# One embedding size for all four figures at once.
paper_embedding = Hypothesis("paper_embedding", "one embedding size E, the same for the four sizes, gives all four",
                             PAPER, E, None)
HYPOTHESES_XXLARGE = (xxlarge_embedding, xxlarge_feed_forward, xxlarge_vocabulary, xxlarge_groups)

# The BERT rows of the same table, against bert.py's exact counts. The paper trained its BERT models
# with its own 30,000-token SentencePiece vocabulary (section 4.1), not BERT's 30,522 WordPiece one.
ALBERT_VOCABULARY = 30_000
BERT_CONVENTIONS = tuple(bert.ARCHITECTURES[name]
                         for name in ("BertModelWithoutPooler", "BertModel", "BertForPreTraining"))
bert_base_108m = Rounded("bert_base_108m", 108_000_000, "BERT base: 12 layers, hidden 768, embedding 768", _PAPER,
                         "bert-base-uncased", BERT_CONVENTIONS, printed="108M")
bert_large_334m = Rounded("bert_large_334m", 334_000_000, "BERT large: 24 layers, hidden 1024, embedding 1024",
                          _PAPER, "bert-large-uncased", BERT_CONVENTIONS, printed="334M")
# BERT xlarge was never released: bert-large-uncased's config at width 2048 (feed-forward 8192; 16 heads
# of 128, which split the width as any H d_h = D does). Printed to the nearest ten million.
bert_xlarge_1270m = Rounded("bert_xlarge_1270m", 1_270_000_000,
                            "BERT xlarge: 24 layers, hidden 2048, embedding 2048", _PAPER, "bert-large-uncased",
                            BERT_CONVENTIONS, precision=10**7, overrides={D: 2048, F: 8192, d_h: 128},
                            printed="1270M")
BERT_PAPER = (bert_base_108m, bert_large_334m, bert_xlarge_1270m)

# A hypothesis that holds: without the pooler, with the paper's own vocabulary, all three round to the
# printed figures (with BERT's vocabulary, base would be 109M).
bert_vocabulary = Hypothesis("bert_vocabulary",
                             "the paper counted its BERT models without the pooler, with its own 30,000-token "
                             "vocabulary", BERT_PAPER, V, ALBERT_VOCABULARY)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_albert.py, statement by statement
# (one layer a group, as every released ALBERT; the groups' weights change no tensor a forward makes)
# ---------------------------------------------------------------------------------------------

def embeddings_forward(t: tr.Timeline) -> str:
    """AlbertEmbeddings.forward: BERT's, E wide (the factorized embedding)."""
    return bert.embeddings_forward(t, E)


def layer_forward(t: tr.Timeline, out: str) -> str:
    """AlbertLayer.forward on its caller's input: q, k, v; eager attention without a mask; dense, and
    ``LayerNorm(x + attention)``; the FFN (ffn, gelu_new in Python, ffn_output) and ``full_layer_layer_norm(ffn +
    attention_output)``. The attention weights (``_``) live until it returns."""
    rows, heads = b * s, b * H * s
    for name in ("query", "key", "value"):
        tr.linear(t, name, rows, D)
    context, _ = bert.eager_attention(t, heads)  # BERT's, statement by statement
    dense = tr.linear(t, "dense", rows, D)
    t.drop(*context)
    t.new("sum1", tr.activation(rows * D))
    tr.layer_norm(t, "attention_output", D)
    t.drop("sum1", dense, "query", "key", "value")  # the attention returns
    tr.linear(t, "ffn", rows, F)
    act = tr.gelu_tanh_python(t, "act", rows * F)
    t.drop("ffn")
    ffn = tr.linear(t, "ffn_output", rows, D)
    t.drop(act)
    t.new("sum2", tr.activation(rows * D))
    tr.layer_norm(t, out, D)
    t.drop("sum2", ffn, "attention_output", "weights")
    return out


def encoder_forward(t: tr.Timeline, head: str) -> None:
    """AlbertModel.forward and its heads: the embeddings (E wide, held until the model's forward returns),
    ``embedding_hidden_mapping_in`` (E to D: the first layer's input, dying when the next is bound), the layers;
    then ``pooler`` (the first token's dense and tanh) or ``mlm`` (AlbertMLMHead: dense to E, gelu_new in Python,
    LayerNorm, the decoder's logits of every token)."""
    rows = b * s
    embeddings_forward(t)
    tr.linear(t, "mapped", rows, D)
    layer_forward(t, "hidden")
    t.drop("mapped")
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", tr.activation(rows * D))  # the same tensor, under the name a later layer reads
        layer_forward(t, "hidden")
        t.drop("previous")
    if head == "pooler":
        t.new("pooler_dense", tr.activation(b * D))
        t.new("pooled", tr.activation(b * D))
        t.drop("pooler_dense")
    t.drop("embedding_output")  # AlbertModel's forward returns
    if head == "mlm":
        tr.linear(t, "transform_dense", rows, E)
        act = tr.gelu_tanh_python(t, "transform_act", rows * E)
        t.drop("transform_dense")
        tr.layer_norm(t, "transform", E, rows)
        t.drop(act)
        t.new("logits", tr.activation(rows * V))


# The code paths the program follows: an encoder, gelu_new in Python, the feed-forward in one chunk, one layer a
# group.
_REQUIRES = (("is_decoder", False, (False,)), ("hidden_act", "gelu_new", ("gelu_new",)),
             ("chunk_size_feed_forward", 0, (0,)), ("inner_group_num", 1, (1,)))


def _transient(head: str) -> tr.Transient:
    return tr.transient(lambda t, generate: encoder_forward(t, head), generates=False, requires=_REQUIRES,
                        products=(("H", "d_h", "D"),))


TRANSIENT = {layout: {"AlbertModel": _transient("pooler"), "AlbertForMaskedLM": _transient("mlm")}
             for layout in VARIANTS}


FAMILY = Family(
    name="albert",
    reader=reader.READER,
    variants=VARIANTS,
    base="AlbertModel",
    # The four version-2 sizes as their config.json files on the Hugging Face hub (albert/albert-base-v2
    # and so on). albert-base-v2's file is copied whole as two public copies of it agree (PaddleNLP's
    # modeling.py pretrained_init_configuration, and a training script that pastes it); for large, xlarge
    # and xxlarge the sizes are those of PaddleNLP's copy of the four hub configs
    # (paddlenlp/transformers/albert/configuration.py, ALBERT_PRETRAINED_INIT_CONFIGURATION) and of the
    # hub's files [cite: hub-albert], in the same layout (the fields that do not size a tensor, such as the
    # dropout rates, do not change a count). Version 1 has the same sizes.
    checkpoints=("albert-base-v2", "albert-large-v2", "albert-xlarge-v2", "albert-xxlarge-v2"),
    first_published="2019-09",
    kind="encoder",
    maker="Google",
    headlines=(Headline("AlbertModel", "albert-base-v2"),),
    example="albert-base-v2",
    table_symbols=(E, D, F, L),
    table_columns={
        "AlbertModel": "AlbertModel",
        "without_pooler": "without pooler",
        "AlbertForMaskedLM": "ForMaskedLM",
        "AlbertForPreTraining": "ForPreTraining",
    },
    rounded=PAPER + (xlarge_60m_tens,) + BERT_PAPER,
    hypotheses=HYPOTHESES_XXLARGE + (paper_embedding, bert_vocabulary),
    # Sizes the calculator derives rather than asks for: the head size, the width over the heads.
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
)
