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
# # mBART, step by step
#
# The derivation of the [mBART page](../mbart.md): BART's tree, pre-LN, with a final norm on each stack, evaluated
# on the bundled checkpoint; then the paper's and PaddleNLP's figures, reconciled.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import bart, mbart


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(mbart.ARCHITECTURES["MBartModel"].total - bart.ARCHITECTURES["BartModel"].total, "mBART - BART")
result = derivations.count("mbart-large-50-many-to-many-mmt")
print(f"{result.architecture}: {result.total:,}")

# %%
for claim in mbart.FAMILY.miscounts:
    claim.check()
    print(f"{claim.printed:>6}: {claim.what}")

# %% [markdown]
# The class most configs name, the encoder-decoder with its language-model head (tied to the shared table):

# %%
show(mbart.ARCHITECTURES["MBartForConditionalGeneration"].total, "MBartForConditionalGeneration")
