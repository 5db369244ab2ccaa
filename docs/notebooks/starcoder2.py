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
# # StarCoder2, step by step
#
# The derivation of the [StarCoder2 page](../starcoder2.md): LLaMA's attention with LayerNorms and a plain,
# biased feed-forward, evaluated on the three released sizes.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import starcoder2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(starcoder2.layer.total, "one layer")

# %% [markdown]
# Every checkpoint, counted by `derivations.count` (the [Python API](../api.md)), and whether its head is tied:

# %%
for name in starcoder2.FAMILY.checkpoints:
    tied = configs.load(name).get("tie_word_embeddings", True)
    print(f"{name:16} {derivations.count(name).total:>16,}  tied: {tied}")
