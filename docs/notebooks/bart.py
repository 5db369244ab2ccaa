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
# # BART, step by step
#
# The derivation of the [BART page](../bart.md): Marian's layers, learned positions of P + 2 rows and a norm of the
# embeddings in each stack, evaluated on every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import bart, transformer


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer of each stack (Marian's), and what BART's embeddings add to Marian's layout:

# %%
show(bart.layer.total, "encoder layer")
show(bart.cross_layer.total - transformer.cross_layer.total, "BART decoder layer - Marian decoder layer")
show(bart.over_marian, "BART - Marian")

# %% [markdown]
# Every checkpoint, from `derivations.count` (the [Python API](../api.md)):

# %%
for name in bart.FAMILY.checkpoints:
    print(f"{name:15} {derivations.count(name, 'BartForConditionalGeneration').total:>13,}")
