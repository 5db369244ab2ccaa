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
# # Command R, step by step
#
# The derivation of the [Command R page](../cohere.md): one shared norm, the attention and the feed-forward side
# by side, and the count of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import cohere, llama


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The layer, and what it holds against LLaMA's (one norm instead of two):

# %%
show(cohere.layer.total, "layer")
show(cohere.layer.total - llama.layer.total, "Command R layer - LLaMA layer")
show(cohere.VARIANTS["qk_norm"]["CohereModel"].child("layer").total - cohere.layer.total, "the head norms")

# %% [markdown]
# Every checkpoint, from `derivations.count` (the [Python API](../api.md)).

# %%
for name in cohere.FAMILY.checkpoints:
    print(f"{name:18} {derivations.count(name).total:>17,}")
