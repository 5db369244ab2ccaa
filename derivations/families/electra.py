"""ELECTRA (Clark et al. 2020), composed from the components, laid out as transformers' ``ElectraModel``.

BERT's encoder under another name (``electra.encoder.layer.<i>.attention.self.query``: BERT's parts, imported), with
ALBERT's factorized embedding: the word, position and token-type tables and their LayerNorm are ``E`` wide
(``embedding_size``), and ``electra.embeddings_project`` (E to D, with bias) lifts their sum into the encoder, built
only when ``E`` differs from ``D``. Unlike ALBERT, the layers do not share weights, and there is no pooler.

ELECTRA trains two such encoders: a small generator (a masked LM: ``ElectraForMaskedLM``, whose output map from E
to V is the word table) and the discriminator (``ElectraForPreTraining``: one logit a token, original or replaced).
The released discriminators have ``E = D`` for base and large (no projection), ``E = 128 < D = 256`` for small.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from . import albert, bert
from ..components import Part, as_kind, classifier, group, layer_norm, leaf, linear, tied_tensor
from ..readers import electra as reader
from ..claims import Rounded
from ..sources import Citation, Source, declare
from ..symbols import C, D, E, F, H, L, V, b, d_h, l_2, s
from .. import transient as tr

# The paper's shapes: F = 4D, heads partition the width.
STANDARD = bert.STANDARD

# ---------------------------------------------------------------------------------------------
# Embeddings: ALBERT's (word + position + token type, all E wide, a LayerNorm of width E)
# $$N_\mathrm{emb} = (V + P + T) E + 2E$$
# then, when E differs from D, the projection into the encoder:
# $$N_\mathrm{proj} = E D + D$$
# ---------------------------------------------------------------------------------------------

embeddings = albert.embeddings
projection = as_kind(linear("projection", "projection from E to D (embeddings_project)", E, D, True,
                            "embeddings_project"), "embeddings")

# ---------------------------------------------------------------------------------------------
# The encoder: BERT's (L layers of 12D^2 + 13D when F = 4D and H d_h = D), with or without cross-attention
# ---------------------------------------------------------------------------------------------

layer = bert.layer
encoder = bert.encoder
cross_attention_encoder = bert.VARIANTS["cross_attention"]["BertModel"].child("encoder")


def body(name: str, label: str, path: str | None, cross_attention: bool, projected: bool) -> Part:
    """ElectraModel: the embeddings, the projection where E differs from D, the encoder. No pooler."""
    parts = [embeddings] + ([projection] if projected else []) + [cross_attention_encoder if cross_attention else encoder]
    return group(name, label, *parts, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")


# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------

# ElectraDiscriminatorPredictions: dense D x D (then the activation), and one logit a token (replaced or not).
# $$N_\mathrm{disc} = (D^2 + D) + (D + 1)$$
discriminator_head = group(
    "discriminator_predictions", "discriminator head (replaced-token detection)",
    linear("dense", "dense (D x D)", D, D, True, "dense"),
    linear("dense_prediction", "one logit a token", D, 1, True, "dense_prediction"),
    path="discriminator_predictions", kind="heads")


def generator_heads(tied: bool = True) -> tuple[Part, Part]:
    """ElectraGeneratorPredictions (dense D to E, gelu, LayerNorm of E) and generator_lm_head (E to V). Tied
    (tie_word_embeddings true, the default), the head's weight *is* the word table; its bias is its own (V).
    Untied, a weight of its own too."""
    # $$N_\mathrm{gen} = (D E + E) + 2E + V$$  tied;  + E V untied.
    predictions = group("generator_predictions", "generator transform (dense D to E, gelu, LayerNorm)",
                        linear("dense", "dense from D to E", D, E, True, "dense"),
                        layer_norm("norm", E, "LayerNorm", label="LayerNorm (width E)"),
                        path="generator_predictions", kind="heads")
    if tied:
        lm_head = group("generator_lm_head", "output map from E to V (weight: the word embeddings)",
                        tied_tensor("weight", "weight (the word embeddings)", "electra.embeddings.word_embeddings",
                                    "weight", matrix=E * V),
                        leaf("bias", "output bias", V, "bias"), path="generator_lm_head", kind="heads")
    else:
        lm_head = as_kind(linear("generator_lm_head", "output map from E to V (untied: a weight of its own)", E, V, True,
                                 "generator_lm_head"), "heads")
    return predictions, lm_head


# ElectraClassificationHead (``classifier``): the first token's state through dense D x D and gelu, then out_proj to
# C logits. On one row a sequence.
# $$N_\mathrm{cls} = (D^2 + D) + (D C + C)$$
classification_head = replace(group(
    "classifier", "classification head (ElectraClassificationHead: dense, gelu, out_proj)",
    linear("dense", "dense (D x D, then gelu)", D, D, True, "dense"),
    linear("out_proj", "out_proj (to the labels)", D, C, True, "out_proj"),
    path="classifier", kind="heads"), tokens=sympy.Integer(1))


def summary_head(kind: str) -> tuple[Part, ...]:
    """ElectraSequenceSummary (``sequence_summary``, the first token's state by default) and the choice scorer
    (``classifier``, D to one logit): the summary's projection is D x D, D x C, or none (``kind``: the reader's
    ``summary`` switch)."""
    summary = {"": (linear("summary", "summary projection (D x D)", D, D, True, "sequence_summary.summary"),),
               "summary_labels": (linear("summary", "summary projection (D x C: summary_proj_to_labels)", D, C, True,
                                         "sequence_summary.summary"),),
               "no_summary": ()}[kind]
    # Always D to one logit: with summary_proj_to_labels the summary is C wide, and the forward fails unless C = D.
    scorer = linear("classifier", "choice scorer (one logit per choice)", D, 1, True, "classifier")
    return tuple(replace(as_kind(p, "heads"), tokens=sympy.Integer(1)) for p in (*summary, scorer))


def architectures(cross_attention: bool = False, untied: bool = False, projected: bool = False,
                  summary: str = "") -> dict[str, Part]:
    """Every ELECTRA class of transformers in one layout, named as transformers names it."""

    def model(name: str, label: str, *heads: Part) -> Part:
        inner = body("electra", "ElectraModel", "electra", cross_attention, projected)
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    generator = generator_heads(tied=not untied)
    return {
        "ElectraModel": body("ElectraModel", "ElectraModel: embeddings, projection where E differs from D, encoder",
                             None, cross_attention, projected),
        "ElectraForPreTraining": model("ElectraForPreTraining", "ELECTRA's discriminator (replaced-token detection)",
                                       discriminator_head),
        "ElectraForMaskedLM": model("ElectraForMaskedLM", "ELECTRA's generator (masked LM)", *generator),
        "ElectraForCausalLM": model("ElectraForCausalLM", "ELECTRA with the generator's head, as a causal LM",
                                    *generator),
        "ElectraForSequenceClassification": model("ElectraForSequenceClassification",
                                                  "ELECTRA with the classification head", classification_head),
        "ElectraForTokenClassification": model("ElectraForTokenClassification", "ELECTRA with a token classifier",
                                               classifier(D, C, "classifier")),
        "ElectraForQuestionAnswering": model("ElectraForQuestionAnswering", "ELECTRA with a span (start/end) head",
                                             classifier(D, C, "qa_outputs", name="qa_outputs",
                                                        label="span logits (num_labels, 2 for start and end)")),
        "ElectraForMultipleChoice": model("ElectraForMultipleChoice", "ELECTRA with a sequence summary and a choice "
                                          "scorer", *summary_head(summary)),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.electra.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("clark2020", "paper", "Clark, Luong, Le, Manning", "ELECTRA: Pre-training Text Encoders as Discriminators "
           "Rather Than Generators", "ICLR 2020", 2020, "https://openreview.net/pdf?id=r1xMH1BtvB"),
    Source("electra-readme", "card", "Google Research", "ELECTRA: README.md, its table of released models "
           "(Layers, Hidden Size, Params)", "GitHub, google-research/electra", 2020,
           "https://github.com/google-research/electra",
           revision="https://github.com/google-research/electra/blob/2b9525b6bca35b2ae3a88ba7b2f37d3fa55fa97b/README.md",
           short="ELECTRA's README"),
    Source("paddlenlp-electra", "config", "PaddlePaddle", "PaddleNLP: ElectraPretrainedModel's "
           "pretrained_init_configuration, the six English checkpoints' configs (architectures, sizes, model_type)",
           "GitHub, PaddlePaddle/PaddleNLP", None, "https://github.com/PaddlePaddle/PaddleNLP",
           revision="https://github.com/PaddlePaddle/PaddleNLP/blob/develop/paddlenlp/transformers/electra/modeling.py",
           short="PaddleNLP's copy of the configs"),
)

_README = Citation("electra-readme", "Released Models")
# What a "Params" figure could count: the encoder alone, the discriminator with its head, the generator with its.
# Small's embeddings are 128 wide under a width of 256 (the projected layout); base's and large's are as wide as the
# encoder (no projection).
CONVENTIONS = (ARCHITECTURES["ElectraModel"], ARCHITECTURES["ElectraForPreTraining"])
PROJECTED = (VARIANTS["projected"]["ElectraModel"], VARIANTS["projected"]["ElectraForPreTraining"])
small_14m = Rounded("small_14m", 14_000_000, "ELECTRA-Small: 12 layers, hidden size 256, 14M", _README,
                    "electra-small-discriminator", PROJECTED, printed="14M")
base_110m = Rounded("base_110m", 110_000_000, "ELECTRA-Base: 12 layers, hidden size 768, 110M", _README,
                    "electra-base-discriminator", CONVENTIONS, printed="110M")
large_335m = Rounded("large_335m", 335_000_000, "ELECTRA-Large: 24 layers, hidden size 1024, 335M", _README,
                     "electra-large-discriminator", CONVENTIONS, printed="335M")
README = (small_14m, base_110m, large_335m)

# ElectraForPreTraining's head on its own, what separates the discriminator from its encoder: D^2 + 2D + D + 1.
discriminator_head_total = discriminator_head.total


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_electra.py, statement by statement, as an
# encoder runs it (is_decoder false), its input the ids alone: BERT's embeddings E wide, the projection, BERT's layers
# ---------------------------------------------------------------------------------------------

def encoder_forward(t: tr.Timeline, head: str, projected: bool) -> None:
    """ElectraModel.forward and its heads: the embeddings (BertEmbeddings' statements, E wide); where E differs from D,
    ``embeddings_project`` (the E-wide output dies as the name is bound again); the layers (BERT's: the first reads the
    embeddings, a later one its predecessor's output); the embeddings die as ElectraModel's forward returns. Then the
    head: ``none``; ``discriminator`` (dense, the activation, one logit a token); ``generator`` (dense to E, gelu,
    LayerNorm, then the logits of every token)."""
    rows = b * s
    held = bert.embeddings_forward(t, E)
    if projected:
        embedded, held = held, tr.linear(t, "projected", rows, D)
        t.drop(embedded)
    bert.layer_forward(t, "hidden")
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", tr.activation(rows * D))
        bert.layer_forward(t, "hidden")
        t.drop("previous")
    t.drop(held)  # ElectraModel's forward returns
    if head == "discriminator":
        dense = tr.linear(t, "discriminator_dense", rows, D)
        act = t.new("discriminator_act", tr.activation(rows * D))  # GELUActivation: nn.functional.gelu, one tensor
        t.drop(dense)
        tr.linear(t, "logits", rows, 1)
        t.drop(act)
    if head == "generator":
        dense = tr.linear(t, "generator_dense", rows, E)
        act = t.new("generator_act", tr.activation(rows * E))
        t.drop(dense)
        tr.layer_norm(t, "generator_norm", E)
        t.drop(act)
        tr.linear(t, "logits", rows, V)


HEADS = {"ElectraModel": "none", "ElectraForPreTraining": "discriminator", "ElectraForMaskedLM": "generator"}


def _transient(head: str, projected: bool) -> tr.Transient:
    return tr.transient(lambda t, generate: encoder_forward(t, head, projected), generates=False,
                        requires=bert.REQUIRES, products=(("H", "d_h", "D"),))


# Every layout but a decoder's (cross_attention): the classes whose forward is derived.
TRANSIENT = {layout: ({} if "cross_attention" in layout else
                      {name: _transient(head, "projected" in layout.split("+")) for name, head in HEADS.items()})
             for layout in VARIANTS}


FAMILY = Family(
    name="electra",
    reader=reader.READER,
    variants=VARIANTS,
    base="ElectraModel",
    # The six English checkpoints as their config.json files on the Hugging Face hub (google/electra-small-discriminator
    # and so on): the sizes, architectures and model_type as PaddleNLP copies the six hub configs
    # [cite: paddlenlp-electra] (its class name ElectraForPretraining written as transformers writes it), in the hub
    # files' layout; the fields that size no tensor (dropout rates, eps) as there.
    checkpoints=("electra-small-discriminator", "electra-base-discriminator", "electra-large-discriminator",
                 "electra-small-generator", "electra-base-generator", "electra-large-generator"),
    first_published="2020-03",
    kind="encoder",
    maker="Google",
    headlines=(Headline("ElectraForPreTraining", "electra-small-discriminator"),),
    example="electra-small-discriminator",
    table_symbols=(E, D, F, L),
    table_columns={"ElectraModel": "ElectraModel", "ElectraForPreTraining": "ForPreTraining",
                   "ElectraForMaskedLM": "ForMaskedLM"},
    rounded=README,
    # The parts the page evaluates on electra-small-discriminator, whose layout ("projected") is not the plain one:
    # the same in every layout.
    layout_free=("embeddings", "projection", "layer", "encoder", "discriminator_head", "classification_head"),
    sources=SOURCES,
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
)
