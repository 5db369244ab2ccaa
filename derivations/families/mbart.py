"""mBART (Liu et al. 2020), laid out as transformers' ``MBartModel``: BART's tree (derivations/families/bart.py) with
two changes. Each layer normalizes the input of its sublayers rather than their sum (pre-LN: the same LayerNorms,
in other places, so the same count), and each stack ends with one more LayerNorm (``layer_norm``, 2D), which the
paper added "on top of both the encoder and decoder" to stabilize training in FP16. mBART's checkpoints scale the
token embeddings by the square root of D (``scale_embedding``: a float, not a parameter) and have a vocabulary of
250,027 (mBART-25) or 250,054 (mBART-50) tokens: 42 % of mBART-large is its token table.
"""

from __future__ import annotations

from ..contract import Family, Headline
from ..claims import Miscount, Rounded
from ..components import group, leaf
from ..readers import mbart as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, L, L_d, V
from . import bart


def architectures(untied: bool = False) -> dict:
    """Every MBart class in one layout (see bart.architectures)."""
    return bart.architectures(untied, prefix="MBart", pre=True)


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
_GENERATION = ARCHITECTURES["MBartForConditionalGeneration"]

layer = bart.encoder_layer(pre=True)
cross_layer = bart.decoder_layer(pre=True)
# mBART against BART at the same sizes: the two final LayerNorms.
over_bart = 4 * D
embeddings = _GENERATION.find("model.shared")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("liu2020", "paper", "Liu et al.", "Multilingual Denoising Pre-training for Neural Machine Translation",
           "TACL 2020; arXiv:2001.08210", 2020, "https://arxiv.org/abs/2001.08210", short="Liu et al. 2020"),
    Source("hub-facebook-mbart", "config", "Meta (Facebook AI)", "mBART-50 checkpoints: config.json of "
           "facebook/mbart-large-50-many-to-many-mmt", "Hugging Face, facebook", 2021,
           "https://huggingface.co/facebook/mbart-large-50-many-to-many-mmt", read="2026-11-26",
           short="facebook/mbart-large-50-many-to-many-mmt on the Hugging Face hub"),
    Source("fairseq-4980", "thread", "babangain", "What is the parameter number of mbart-large-one-to-many-mmt? "
           "(answered with model.num_parameters(): 610879488)", "GitHub, facebookresearch/fairseq#4980", 2023,
           "https://github.com/facebookresearch/fairseq/issues/4980", read="2026-11-26",
           short="fairseq#4980"),
    Source("paddlenlp-mbart", "code", "PaddlePaddle", "PaddleNLP: docs/model_zoo/transformers/MBart/contents.rst "
           "(mbart-large-cc25, “12-layer, 1024-hidden, 12-heads, 1123M parameters”)",
           "GitHub, PaddlePaddle/PaddleNLP",
           2022, "https://github.com/PaddlePaddle/PaddleNLP", read="2026-11-26", short="PaddleNLP's model zoo"),
)

# transformers' own count, printed exact: mbart-large-50-one-to-many-mmt has the sizes of the bundled many-to-many
# checkpoint (vocabulary 250,054, 12 + 12 layers of 1024), and parameters() leaves final_logits_bias out.
num_parameters_50 = Rounded(
    "num_parameters_50", 610_879_488, "mbart-large-50-one-to-many-mmt, model.num_parameters()",
    Citation("fairseq-4980", "the closing comment"), "mbart-large-50-many-to-many-mmt", (_GENERATION,), precision=1,
    printed="610879488")

# mBART-25 (mbart-large-cc25, which the paper and PaddleNLP count) has a table of 250,027 rows, as PaddleNLP's
# configuration of it gives (paddlenlp/transformers/mbart/configuration.py); the bundled mBART-50 checkpoint's has 27
# more, and is otherwise the same model. Its count here, the claims' model:
MBART25_ROWS = 250_027
rows_50 = leaf("rows_50", "the 27 token rows mBART-50's table has beyond mBART-25's 250,027", (V - MBART25_ROWS) * D)
mbart25 = _GENERATION.total.subs(V, MBART25_ROWS)

# The paper's "~680M" (section 2.2): about 69M more than the model it released holds, and no tensor of it accounts
# for them (not the head, which is the shared table; a second table would add 256M).
paper_680m = Miscount(
    "paper_680m", 680_000_000, "mBART-25, 12 + 12 layers of 1024 on 16 heads, “∼ 680M parameters”",
    Citation("liu2020", "section 2.2"), "mbart-large-50-many-to-many-mmt", _GENERATION,
    terms=(rows_50, leaf("unaccounted", "what no tensor of the released model accounts for (the paper gives no "
                                        "breakdown)", mbart25 - 680_000_000)),
    printed="∼680M",
    model="mBART-25 (mbart-large-cc25)",
    cause="the paper's figure is about 69M above every tensor the released model holds, and it shows no breakdown",
)

# PaddleNLP's "1123M": the untied layout's count, the shared table three times (shared, and the encoder's and
# decoder's embed_tokens as tables of their own), where the checkpoint ties the three into one.
paddlenlp_1123m = Miscount(
    "paddlenlp_1123m", 1_123_000_000, "mbart-large-cc25, “12-layer, 1024-hidden, 12-heads, 1123M parameters”",
    Citation("paddlenlp-mbart", "the MBart table"), "mbart-large-50-many-to-many-mmt", _GENERATION,
    terms=(rows_50,
           leaf("tables", "the shared token table counted twice more, as the encoder's and the decoder's own",
                -2 * MBART25_ROWS * D),
           leaf("rounding", "rounding that count to 1123M", mbart25 + 2 * MBART25_ROWS * D - 1_123_000_000)),
    reconstruction=group("claimed", "MBartModel untied, at mBART-25's vocabulary",
                         leaf("untied", "shared, the encoder's and the decoder's tables, and the layers",
                              mbart25 + 2 * MBART25_ROWS * D),
                         leaf("rounding", "rounded to 1123M", 1_123_000_000 - mbart25 - 2 * MBART25_ROWS * D)),
    printed="1123M",
    model="mBART-25 (mbart-large-cc25)",
    cause="the one token table is counted three times: as shared, and as each stack's embed_tokens",
)


FAMILY = Family(
    name="mbart",
    reader=reader.READER,
    variants=VARIANTS,
    base="MBartModel",
    # facebook/mbart-large-50-many-to-many-mmt on the Hugging Face hub [cite: hub-facebook-mbart], as
    # wusongbai139/AnyCaption commits it (mbart-large-50-many-to-many-mmt/config.json, commit 0d752541: the file
    # transformers 4.9.0.dev0 wrote from Suraj Patil's conversion, unchanged).
    checkpoints=("mbart-large-50-many-to-many-mmt",),
    first_published="2020-01",
    kind="encoder-decoder",
    maker="Meta",
    headlines=(Headline("MBartForConditionalGeneration", "mbart-large-50-many-to-many-mmt", "large, mBART-50"),),
    example="mbart-large-50-many-to-many-mmt",
    table_symbols=(V, D, F, L, L_d),
    table_columns={"MBartForConditionalGeneration": "MBartForConditionalGeneration", "layer": "encoder layer",
                   "cross_layer": "decoder layer"},
    rounded=(num_parameters_50,),
    miscounts=(paper_680m, paddlenlp_1123m),
    sources=SOURCES,
    transient={layout: bart.transient("MBart", pre=True) for layout in VARIANTS},
)
