"""GPT-3 (Brown et al. 2020): GPT-2's layout at the eight sizes of Table 2.1, with a 2,048-token context.

Section 2.1 of the paper: "We use the same model and architecture as GPT-2 ... with the exception
that we use alternating dense and locally banded sparse attention patterns" (a pattern of which
positions attend to which, not a parameter), d_ff = 4 d_model, and n_ctx = 2048 for every model.
So the count is GPT-2's (``derivations.gpt2``) with P = 2048 and GPT-2's vocabulary; the configs under
``checkpoints/gpt3-*.json`` are Table 2.1's rows in GPT-2's config form, built for this site.
"""

from __future__ import annotations

import sympy

from ..contract import Family, Headline
from . import gpt2
from ..claims import Rounded, sizes
from ..components import AttentionLayout, attention
from ..sources import Citation
from ..symbols import D, F, H, L, d_h



# The count of every row: GPT2LMHeadModel (the head is tied, so it is GPT2Model's count).
ARCHITECTURES = {"GPT2LMHeadModel": gpt2.ARCHITECTURES["GPT2LMHeadModel"]}
VARIANTS = {"": ARCHITECTURES}
model = gpt2.ARCHITECTURES["GPT2LMHeadModel"]
non_embedding = gpt2.non_embedding

# The width that the heads cover, as Table 2.1 prints them.
head_width = H * d_h

KAPLAN_COLUMNS = {"non_embedding": "non-embedding", "kaplan": "Kaplan's N (approximation)", "kaplan_error | percent": "N's error (%)",
                  "kaplan_share | percent": "N / total (%)"}

# ---------------------------------------------------------------------------------------------
# Kaplan et al. 2020, equation 2.1: the model size N, non-embedding, "excluding biases and other
# sub-leading terms":
# $$N \approx 2 d_\mathrm{model} n_\mathrm{layer} (2 d_\mathrm{attn} + d_\mathrm{ff}) = 12 n_\mathrm{layer} d_\mathrm{model}^2$$
# ---------------------------------------------------------------------------------------------

kaplan_general = 2 * D * L * (2 * D + F)  # d_attn = D
kaplan = kaplan_general.subs(F, 4 * D)  # d_ff = 4 d_model
N_kaplan = sympy.Symbol(r"N_{\mathrm{Kaplan}}")
kaplan_definition = sympy.Eq(N_kaplan, kaplan_general)
kaplan_standard = sympy.Eq(N_kaplan, kaplan)
# The exact non-embedding count, under F = 4D: the blocks and the final LayerNorm.
non_embedding_standard = gpt2.non_embedding_standard
# What Kaplan's N leaves out: the biases and the LayerNorms.
kaplan_gap = sympy.expand(non_embedding_standard.total - kaplan)
kaplan_gap_equation = sympy.Eq(sympy.Symbol(r"N_{\text{non-emb}} - N_{\mathrm{Kaplan}}"), kaplan_gap)
# N is the leading term: the ratio tends to 1 as the width grows, whatever the depth.
kaplan_ratio = kaplan / non_embedding_standard.total
kaplan_limit = sympy.Eq(sympy.Limit(kaplan_ratio, D, sympy.oo), sympy.limit(kaplan_ratio, D, sympy.oo))
# Relative error of N against the exact non-embedding count, per row (a fraction; shown in percent).
kaplan_error = 1 - kaplan_general / non_embedding.total
# Its leading term in 1/D: (13 L + 2) / (12 L D), about 13 / (12 D) for deep models.
kaplan_error_leading = sympy.limit(kaplan_gap / non_embedding_standard.total * D, D, sympy.oo) / D
kaplan_error_equation = sympy.Eq(sympy.Symbol(r"1 - N_{\mathrm{Kaplan}} / N_{\text{non-emb}}"),
                                 kaplan_error_leading + sympy.Order(1 / D**2, (D, sympy.oo)))
# Against the exact total (embeddings included), the approximation is another quantity altogether.
kaplan_share = kaplan_general / model.total

# ---------------------------------------------------------------------------------------------
# Table 2.1's n_params, against the exact counts
# ---------------------------------------------------------------------------------------------

_TABLE = Citation("brown2020", "Table 2.1")

# Heads as printed for XL (24 of 128 in a 2,048-wide model) and 13B (40 of 128 in 5,140): query, key
# and value maps of H d_h, not D, as in T5-3B. A hypothetical model: no reference implements it.
wide_heads = gpt2.architectures(with_block=gpt2.block(attention=attention(
    D, H, d_h, layout=AttentionLayout("query", "key", "value", "output"), path="attn",
    label="self-attention whose H heads of d_h need not cover D", causal=True)))["GPT2LMHeadModel"]


def _row(name: str, printed: str, checkpoint: str, what: str, candidate=model, **overrides: int) -> Rounded:
    number, unit = float(printed[:-1]), printed[-1]
    scale = {"M": 10**6, "B": 10**9}[unit]
    # "125M" is rounded to millions, "1.3B" and "175.0B" to tenths of a billion.
    precision = scale if unit == "M" else 10**8
    return Rounded(name, round(number * scale), what, _TABLE, checkpoint, (candidate,), precision=precision,
                   overrides=sizes(**overrides), printed=printed)


TABLE_2_1 = (
    _row("small", "125M", "gpt3-small", "GPT-3 Small"),
    _row("medium", "350M", "gpt3-medium", "GPT-3 Medium"),
    _row("large", "760M", "gpt3-large", "GPT-3 Large"),
    _row("xl", "1.3B", "gpt3-xl", "GPT-3 XL"),
    _row("b2_7", "2.7B", "gpt3-2.7b", "GPT-3 2.7B"),
    _row("b6_7", "6.7B", "gpt3-6.7b", "GPT-3 6.7B"),
    _row("b13", "13.0B", "gpt3-13b", "GPT-3 13B, d_model 5,120 (40 heads of 128)"),
    _row("b175", "175.0B", "gpt3-175b", "GPT-3 175B"),
)
# The two rows as printed, where the printed sizes disagree with each other (d_ff stays 4 d_model).
AS_PRINTED = (
    _row("b13_width_as_printed", "13.0B", "gpt3-13b", "GPT-3 13B, d_model 5,140 as printed (heads covering it)",
         D=5140, F=4 * 5140),
    _row("b13_heads_as_printed", "13.0B", "gpt3-13b",
         "GPT-3 13B, d_model 5,140 with 40 heads of 128 (covering 5,120)", wide_heads, D=5140, F=4 * 5140, H=40,
         d_h=128),
    _row("xl_heads_as_printed", "1.3B", "gpt3-xl", "GPT-3 XL, d_model 2,048 with 24 heads of 128 (covering 3,072)",
         wide_heads, H=24, d_h=128),
)


FAMILY = Family(
    name="gpt3",
    model_type=gpt2.FAMILY.model_type,  # the configs are GPT-2's
    reader=None,
    variants=VARIANTS,
    base=None,
    checkpoints=(
        "gpt3-small",
        "gpt3-medium",
        "gpt3-large",
        "gpt3-xl",
        "gpt3-2.7b",
        "gpt3-6.7b",
        "gpt3-13b",
        "gpt3-175b",
    ),
    first_published="2020-05",
    kind="decoder",
    maker="OpenAI",
    headlines=(Headline("GPT2LMHeadModel", "gpt3-175b", "175B, Table 2.1"),),
    example="gpt3-175b",
    table_symbols=(L, D, H, d_h),
    table_columns={"model": "total", "non_embedding": "non-embedding"},
    rounded=TABLE_2_1 + AS_PRINTED,
)
