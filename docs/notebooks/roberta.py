# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # RoBERTa, step by step
#
# The derivation of the [RoBERTa page](../roberta.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated
# on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import bert, roberta
from derivations.symbols import P, T


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")  # module names such as sa_layer_norm, in TeX text
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# RobertaModel holds BertModel's tensors: the same expression, which the package checks.

# %%
show(roberta.RobertaModel_standard.total, "RobertaModel")
print("same as BertModel:", roberta.ARCHITECTURES["RobertaModel"].total == bert.ARCHITECTURES["BertModel"].total)

# %% [markdown]
# What the released sizes change: 514 position rows, of which two hold no position of a token, and
# one token-type row.

# %%
values = registry.checkpoint("roberta-base").values
print("positions, token types:", values[P], values[T])
show(roberta.offset_rows.total, "rows below the offset")
print(f"{roberta.offset_rows.count(values):,} parameters in the two offset rows")
print(f"{roberta.token_types.count(values):,} in the single token-type row")

# %% [markdown]
# The heads: the language-model head (its decoder is the word table) and the classification head,
# which stands where BERT's pooler would.

# %%
for part in (roberta.lm_head_tied, roberta.classification_head):
    show(part.total, part.label.split(" (")[0])

# %% [markdown]
# Every class on both checkpoints, counted by `derivations.count` (the [Python API](../api.md)).

# %%
for name in roberta.FAMILY.checkpoints:
    for architecture in roberta.ARCHITECTURES:
        print(f"{name:14} {architecture:34} {derivations.count(name, architecture).total:>13,}")

# %% [markdown]
# The published figures: fairseq's 125M and 355M, and KerasNLP's exact counts of a layout without
# the offset rows, the token type and the pooler.

# %%
for claim in roberta.FAMILY.rounded:
    print(f"{claim.name:11} {claim.claim:>13,}  {claim.exact(0):>13,}  rounds: {claim.rounds(0)}")
