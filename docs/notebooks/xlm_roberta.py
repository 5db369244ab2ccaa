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
# # XLM-RoBERTa, step by step
#
# The derivation of the [XLM-RoBERTa page](../xlm_roberta.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated on a real
# config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import roberta, xlm_roberta


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# XLMRobertaModel is RobertaModel renamed: the same expression, which the package checks.

# %%
show(xlm_roberta.ARCHITECTURES["XLMRobertaModel"].total, "XLMRobertaModel")
print("same as RobertaModel:",
      xlm_roberta.ARCHITECTURES["XLMRobertaModel"].total == roberta.ARCHITECTURES["RobertaModel"].total)

# %% [markdown]
# The word table's share of the model, on both released sizes.

# %%
for name in ("xlm-roberta-base", "xlm-roberta-large"):
    values = registry.checkpoint(name).values
    print(f"{name:18} word table {xlm_roberta.word_table.count(values):>12,}"
          f"  share {float(xlm_roberta.word_share.subs(values)):.1%}")

# %% [markdown]
# Every class on every bundled checkpoint, counted by `derivations.count` (the [Python API](../api.md)).

# %%
for name in xlm_roberta.FAMILY.checkpoints:
    for architecture in xlm_roberta.ARCHITECTURES:
        print(f"{name:18} {architecture:38} {derivations.count(name, architecture).total:>13,}")

# %% [markdown]
# The published figures: the paper's and fairseq's, rounded or not, and the paper's cut down.

# %%
for claim in xlm_roberta.PUBLISHED:
    print(f"{claim.name:14} {claim.claim:>13,}  {claim.exact(0):>13,}  rounds: {claim.rounds(0)}"
          f"  cut down: {xlm_roberta.truncated(claim)}")
