"""CamemBERT (Martin et al. 2019), laid out as transformers' ``CamembertModel``: RoBERTa's tree, renamed.

modeling_camembert.py (5.23, generated from modular_camembert.py) is modeling_roberta.py with the classes renamed,
as XLM-R's is: the same modules under the same paths (``roberta.``), the same seven classes. Every part is
:mod:`derivations.families.roberta`'s, renamed as :mod:`derivations.families.xlm_roberta` renames them. What makes
CamemBERT French is its SentencePiece vocabulary of 32,005 tokens, trained on OSCAR.
"""

from __future__ import annotations

from ..claims import Rounded
from ..components import Part
from ..contract import Family, Headline
from ..readers import camembert as reader
from ..sources import Citation, Source, declare
from ..symbols import D, H, L, V, d_h
from . import roberta
from .xlm_roberta import _renamed_part, classes, transient

PREFIX, NAME = "Camembert", "CamemBERT"
# modeling_camembert.py assigns lm_head before roberta in both LM classes, as XLM-R's does.
HEAD_FIRST = ("CamembertForCausalLM", "CamembertForMaskedLM")


def architectures(cross_attention: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every CamemBERT class of transformers that a config builds: RoBERTa's, renamed."""
    return classes(PREFIX, NAME, HEAD_FIRST, cross_attention, untied)


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.camembert: RoBERTa's, which are BERT's).
VARIANTS = reader.READER.layout.variants(architectures)
embeddings, layer, pooler = roberta.embeddings, roberta.layer, roberta.pooler
without_pooler = _renamed_part(roberta.without_pooler, (("Roberta", PREFIX),))
lm_head_tied = ARCHITECTURES["CamembertForMaskedLM"].child("lm_head")
classification_head = _renamed_part(roberta.classification_head, (("Roberta", PREFIX),))

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("hub-camembert", "card", "ALMAnaCH (Inria)", "camembert-base: model card and config.json",
           "Hugging Face hub, almanach/camembert-base", 2020, "https://huggingface.co/almanach/camembert-base",
           read=_READ, short="CamemBERT's model card"),
)
_CARD = Citation("hub-camembert", "the table of pre-trained models, <code>#params</code>")
CONVENTIONS = (ARCHITECTURES["CamembertModel"], without_pooler, ARCHITECTURES["CamembertForMaskedLM"])
base_110m = Rounded("base_110m", 110_000_000, "camembert-base: 110M, Base architecture, OSCAR (138 GB of text)",
                    _CARD, "camembert-base", CONVENTIONS, printed="110M")
PUBLISHED = (base_110m,)

TRANSIENT = transient(roberta.TRANSIENT, PREFIX)
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = transient(roberta.TRANSIENT_SDPA, PREFIX)

FAMILY = Family(
    name="camembert",
    reader=reader.READER,
    variants=VARIANTS,
    base="CamembertModel",
    # Bundled checkpoint config (derivations/checkpoints/camembert-base.json), as published on the Hugging Face hub
    # under almanach/camembert-base (formerly camembert-base) [cite: hub-camembert]; its sizes also read in the
    # config a fine-tune of it prints (CamemBERT-base-EmoTextToKids, in a public notebook).
    checkpoints=("camembert-base",),
    first_published="2019-11",
    kind="encoder",
    maker="Inria",
    headlines=(Headline("CamembertModel", "camembert-base"),),
    example="camembert-base",
    table_symbols=(V, D, L),
    table_columns={
        "CamembertModel": "CamembertModel",
        "without_pooler": "without pooler",
        "CamembertForMaskedLM": "ForMaskedLM",
    },
    rounded=PUBLISHED,
    ratios={d_h: (D, H)},
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
