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
# # CamemBERT, step by step
#
# The derivation of the [CamemBERT page](../camembert.md), run with the `derivations` package: RoBERTa's
# expressions, evaluated on CamemBERT's config.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import camembert, roberta


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# CamembertModel is RobertaModel renamed: the same expression, which the package checks.

# %%
show(camembert.ARCHITECTURES["CamembertModel"].total, "CamembertModel")
print("same as RobertaModel:",
      camembert.ARCHITECTURES["CamembertModel"].total == roberta.ARCHITECTURES["RobertaModel"].total)

# %% [markdown]
# The classes are RoBERTa's, renamed: the same totals.

# %%
for name, part in camembert.ARCHITECTURES.items():
    same = part.total == roberta.ARCHITECTURES[name.replace("Camembert", "Roberta")].total
    print(f"{name:36} {derivations.count('camembert-base', name).total:>13,}  RoBERTa's expression: {same}")

# %% [markdown]
# The model card's figure against the three counts it could mean.

# %%
claim = camembert.base_110m
for i, candidate in enumerate(claim.candidates):
    print(f"{candidate.name:24} {claim.exact(i):>13,}  rounds to {claim.claim:,}: {claim.rounds(i)}")
