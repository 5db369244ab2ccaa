"""XLM-RoBERTa (Conneau et al. 2019), laid out as transformers' ``XLMRobertaModel``: RoBERTa's tree, renamed.

modeling_xlm_roberta.py (5.23, generated from modular_xlm_roberta.py) is modeling_roberta.py with the classes
renamed: the same modules under the same paths (``roberta.embeddings.word_embeddings``, ``lm_head.decoder``,
``classifier.out_proj``), the same seven classes, the pooler kept only by the multiple-choice class. So every part
here is :mod:`derivations.families.roberta`'s, imported; only the class names and labels change
(:func:`renamed`). What makes XLM-R what it is lies in the sizes its checkpoints set: a vocabulary of 250,002
SentencePiece tokens for a hundred languages, which holds most of its parameters.
"""

from __future__ import annotations

from dataclasses import replace


from ..claims import Miscount, Rounded
from ..components import Part, group, leaf, linear, tied_tensor
from ..contract import Family, Headline
from ..readers import xlm_roberta as reader
from ..sources import Citation, Source, declare
from ..symbols import D, H, L, P, V, d_h
from . import roberta


def _renamed_part(part: Part, words: tuple[tuple[str, str], ...]) -> Part:
    """``part`` with its name, label and symbol (and its children's) renamed by ``words`` (old, new) pairs; a part
    whose names hold none of them is returned as it is (the same object: RoBERTa's layer stays BERT's)."""

    def swap(text: str) -> str:
        for old, new in words:
            text = text.replace(old, new)
        return text

    children = tuple(_renamed_part(child, words) for child in part.children)
    fields = {"name": swap(part.name), "label": swap(part.label), "symbol": swap(part.symbol)}
    if all(getattr(part, key) == value for key, value in fields.items()) and all(
            a is b for a, b in zip(children, part.children)):
        return part
    return replace(part, children=children, **fields)


def renamed(classes: dict[str, Part], prefix: str, name: str) -> dict[str, Part]:
    """RoBERTa's classes as another model_type names them: ``Roberta`` -> ``prefix`` in class and module names
    (``XLMRobertaLMHead``), ``RoBERTa`` -> ``name`` in words. The module paths (``roberta.``) stay: transformers
    keeps them (base_model_prefix "roberta")."""
    words = (("Roberta", prefix), ("RoBERTa", name))
    return {key.replace("Roberta", prefix): _renamed_part(part, words) for key, part in classes.items()}


def transient(classes: dict, prefix: str) -> dict:
    """RoBERTa's derived forwards (derivations.transient) under the renamed classes: the same program."""
    return {layout: {key.replace("Roberta", prefix): value for key, value in by_class.items()}
            for layout, by_class in classes.items()}


def head_first(model: Part) -> Part:
    """A class that registers its LM head before its body (``self.lm_head`` assigned before ``self.roberta``), tied:
    ``parameters()`` meets the shared table first as ``lm_head.decoder.weight``, so it is counted there, and the
    word embeddings are the tied name. The same tensors, counted under the other name; RoBERTa's classes assign
    the body first."""
    word = replace(tied_tensor("word", "word (token) embeddings (the LM head's decoder weight)", "lm_head.decoder",
                               "word_embeddings"), kind="embeddings")
    body = model.child("roberta")
    embeddings = body.child("embeddings")
    embeddings = replace(embeddings, children=tuple(word if c.name == "word" else c for c in embeddings.children))
    body = replace(body, children=tuple(embeddings if c.name == "embeddings" else c for c in body.children))
    head = model.child("lm_head")
    # $$N_\mathrm{decoder} = V D$$  the table itself; its bias is lm_head.bias, counted there.
    decoder = leaf("decoder", "decoder (weight: the word table, registered here first; bias: lm_head.bias)", V * D,
                   "decoder", note="the word embeddings' table, tied", kind="embeddings", matrix=D * V,
                   shape=(1, 1, D, V))
    head = replace(head, children=tuple(decoder if c.name == "decoder" else c for c in head.children))
    return replace(model, children=tuple({"roberta": body, "lm_head": head}.get(c.name, c) for c in model.children))


def classes(prefix: str, name: str, head_first_classes: tuple[str, ...], cross_attention: bool = False,
            untied: bool = False) -> dict[str, Part]:
    """RoBERTa's classes renamed, those of ``head_first_classes`` (tied) counting the shared table in the head."""
    built = renamed(roberta.architectures(cross_attention, untied), prefix, name)
    return {key: head_first(part) if key in head_first_classes and not untied else part
            for key, part in built.items()}


PREFIX, NAME = "XLMRoberta", "XLM-RoBERTa"
# modeling_xlm_roberta.py assigns lm_head before roberta in both LM classes.
HEAD_FIRST = ("XLMRobertaForCausalLM", "XLMRobertaForMaskedLM")


def architectures(cross_attention: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every XLM-RoBERTa class of transformers that a config builds: RoBERTa's, renamed."""
    return classes(PREFIX, NAME, HEAD_FIRST, cross_attention, untied)


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.xlm_roberta: RoBERTa's, which are BERT's).
VARIANTS = reader.READER.layout.variants(architectures)
# RoBERTa's parts, as this page shows them.
embeddings, layer, pooler = roberta.embeddings, roberta.layer, roberta.pooler
classification_head = _renamed_part(roberta.classification_head, (("Roberta", PREFIX),))
offset_rows, usable_positions, token_types = roberta.offset_rows, roberta.usable_positions, roberta.token_types
without_pooler = _renamed_part(roberta.without_pooler, (("Roberta", PREFIX),))
lm_head_tied = ARCHITECTURES["XLMRobertaForMaskedLM"].child("lm_head")
layer_standard = roberta.layer_standard
# The share of XLMRobertaModel that is the word table: V D over the total (a fraction: the page shows it in percent).
word_table = roberta.embeddings.child("word")
word_share = word_table.total / ARCHITECTURES["XLMRobertaModel"].total
# Everything but the word table: what a RoBERTa of the same shape and a vocabulary of one token would hold.
beside_words = ARCHITECTURES["XLMRobertaModel"].total - word_table.total
# A longer position table (bge-m3's 8,194 rows against XLM-R's 514): P D more.
positions = roberta.embeddings.child("position")

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("conneau2019", "paper", "Conneau et al.", "Unsupervised Cross-lingual Representation Learning at Scale",
           "ACL 2020; arXiv:1911.02116", 2019, "https://arxiv.org/abs/1911.02116", short="Conneau et al. 2019"),
    Source("fairseq-xlmr", "card", "Facebook AI Research", "XLM-R README: pre-trained models",
           "GitHub, facebookresearch/fairseq, examples/xlmr/README.md", 2019,
           "https://github.com/facebookresearch/fairseq/blob/main/examples/xlmr/README.md", read=_READ,
           short="fairseq's XLM-R README"),
    Source("keras-hub-xlmr", "code", "the Keras team", "KerasHub: XLM-RoBERTa's presets and their parameter counts",
           "GitHub, keras-team/keras-hub, keras_hub/src/models/xlm_roberta/xlm_roberta_presets.py", None,
           "https://github.com/keras-team/keras-hub",
           revision="https://github.com/keras-team/keras-hub/blob/0cb64f626c1ad0eef342b80ed3231d7a432a33b0/"
                    "keras_hub/src/models/xlm_roberta/xlm_roberta_presets.py", short="KerasHub's XLM-R presets"),
    Source("keras-nlp-xlmr", "code", "the Keras team", "KerasNLP: XLM-RoBERTa's presets and their parameter counts, "
           "as first published", "GitHub, keras-team/keras-nlp, keras_nlp/models/xlm_roberta/xlm_roberta_presets.py",
           2023, "https://github.com/keras-team/keras-hub",
           revision="https://github.com/keras-team/keras-hub/blob/0709f1077666776888dd7d1305c9c2cda378893e/"
                    "keras_nlp/models/xlm_roberta/xlm_roberta_presets.py", short="KerasNLP's first XLM-R presets"),
    Source("hub-xlm-roberta", "config", "Facebook AI; BAAI",
           "config.json of FacebookAI/xlm-roberta-base, FacebookAI/xlm-roberta-large and BAAI/bge-m3",
           "Hugging Face hub", None, "https://huggingface.co/FacebookAI/xlm-roberta-base/blob/main/config.json",
           read=_READ, short="the XLM-R configs"),
)

_PAPER = Citation("conneau2019", "the appendix's table of model sizes, <code>#params</code>")
_FAIRSEQ = Citation("fairseq-xlmr", "table of pre-trained models, <code>#params</code>")
# The counts a figure could mean: the body transformers builds for AutoModel (with its pooler, which the checkpoint
# does not train), the body under every head class but one, and the class the released checkpoint is.
CONVENTIONS = (ARCHITECTURES["XLMRobertaModel"], without_pooler, ARCHITECTURES["XLMRobertaForMaskedLM"])
# Both sources print two significant figures: tens of millions.
TENS = 10**7


def _claim(name: str, claim: int, what: str, source: Citation, checkpoint: str) -> Rounded:
    return Rounded(name, claim, what, source, checkpoint, CONVENTIONS, precision=TENS,
                   printed=f"{claim // 10**6}M")


paper_base = _claim("paper_base", 270_000_000, "XLM-R Base (L = 12, H = 768, V = 250k): 270M", _PAPER,
                    "xlm-roberta-base")
paper_large = _claim("paper_large", 550_000_000, "XLM-R (L = 24, H = 1024, V = 250k): 550M", _PAPER,
                     "xlm-roberta-large")
fairseq_base = _claim("fairseq_base", 250_000_000, "xlmr.base: XLM-R using the BERT-base architecture, 250M",
                      _FAIRSEQ, "xlm-roberta-base")
fairseq_large = _claim("fairseq_large", 560_000_000, "xlmr.large: XLM-R using the BERT-large architecture, 560M",
                       _FAIRSEQ, "xlm-roberta-large")
PUBLISHED = (paper_base, paper_large, fairseq_base, fairseq_large)


# KerasHub lists exact counts for its XLM-R backbones, converted from the fairseq checkpoints: RoBERTa's Keras layout
# (the word table, 512 position rows, the embedding LayerNorm, the encoder; no token types, no pooler). Right for that
# layout; against XLMRobertaModel, the two offset rows, the token-type row and the pooler.
_KERAS = Citation("keras-hub-xlmr", "<code>\"params\"</code>")


def _keras(name: str, claim: int, preset: str, checkpoint: str) -> Miscount:
    # Not a mistake (so not in the record's miscounts): an exact count of another layout, decomposed.
    return Miscount(name, claim, f"{preset}: KerasHub's XLMRobertaBackbone", _KERAS, checkpoint,
                    ARCHITECTURES["XLMRobertaModel"], terms=(offset_rows, token_types, pooler),
                    reconstruction=roberta.keras_backbone)


keras_base = _keras("keras_base", 277_450_752, "xlm_roberta_base_multi", "xlm-roberta-base")
keras_large = _keras("keras_large", 558_837_760, "xlm_roberta_large_multi", "xlm-roberta-large")
KERAS = (keras_base, keras_large)

# The same presets as KerasNLP first published them gave 278,042,882 and 559,889,410: each the backbone above plus
# a classification head of two labels (XLMRobertaClassifier's: a dense D x D map and a two-logit output, both with
# bias), which the backbone preset does not hold. A later version of the file corrected both.
# $$N_\mathrm{claimed} = N_\mathrm{keras} + (D^2 + D) + (2D + 2)$$
two_label_head = group("classifier", "a two-label classification head (dense D x D, then two logits)",
                       linear("dense", "dense", D, D, True), linear("out_proj", "output (two labels)", D, 2, True))
_FIRST_KERAS = Citation("keras-nlp-xlmr", "<code>\"params\"</code>")


def _first_keras(name: str, claim: int, preset: str, checkpoint: str, model: str) -> Miscount:
    return Miscount(
        name, claim, f"{preset}: the backbone's parameters", _FIRST_KERAS, checkpoint, roberta.keras_backbone,
        terms=(leaf("head", "the two-label classification head, counted in", -two_label_head.total),),
        reconstruction=group("claimed", "the backbone and a two-label classifier", roberta.keras_backbone,
                             two_label_head),
        model=model, cause="the figure adds a two-label classification head (a dense map and a two-logit output) "
                           "that the backbone does not hold")


first_keras_base = _first_keras("first_keras_base", 278_042_882, "xlm_roberta_base_multi", "xlm-roberta-base",
                                "KerasNLP's XLM-R base backbone (<code>xlm_roberta_base_multi</code>)")
first_keras_large = _first_keras("first_keras_large", 559_889_410, "xlm_roberta_large_multi", "xlm-roberta-large",
                                 "KerasNLP's XLM-R large backbone (<code>xlm_roberta_large_multi</code>)")
MISCOUNTS = (first_keras_base, first_keras_large)


def truncated(claim: Rounded, candidate: int = 0) -> bool:
    """The candidate's exact count, cut down (not rounded) to the claim's unit, is the claim: what the paper's two
    figures are of every convention."""
    return claim.exact(candidate) // claim.precision * claim.precision == claim.claim


TRANSIENT = transient(roberta.TRANSIENT, PREFIX)
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = transient(roberta.TRANSIENT_SDPA, PREFIX)


FAMILY = Family(
    name="xlm_roberta",
    reader=reader.READER,
    variants=VARIANTS,
    base="XLMRobertaModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # [cite: hub-xlm-roberta]: FacebookAI/xlm-roberta-base and FacebookAI/xlm-roberta-large (their config.json, the
    # sizes also read in transformers printouts of both that people published: XLMRobertaConfig's for the base,
    # XLMRobertaModel's module tree for the large), and BAAI/bge-m3 (the embedding model: XLMRobertaModel on
    # xlm-roberta-large's shape with 8,194 positions; its config.json as the vLLM issue #25865 quotes a fine-tune
    # of it, and as copies of it in public code read).
    checkpoints=("xlm-roberta-base", "xlm-roberta-large", "bge-m3"),
    first_published="2019-11",
    kind="encoder",
    maker="Meta",
    headlines=(Headline("XLMRobertaModel", "xlm-roberta-base", "base"),
               Headline("XLMRobertaModel", "xlm-roberta-large", "large")),
    example="xlm-roberta-base",
    table_symbols=(V, P, D, L),
    table_columns={
        "XLMRobertaModel": "XLMRobertaModel",
        "without_pooler": "without pooler",
        "XLMRobertaForMaskedLM": "ForMaskedLM",
        "word_share | percent": "word table",
    },
    miscounts=MISCOUNTS,
    rounded=PUBLISHED,
    ratios={d_h: (D, H)},
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
