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
# # The original Transformer, step by step
#
# The derivation of [its page](../transformer.md), run with the `derivations` package: every formula
# is an expression of the package, every number that expression evaluated on a config.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import transformer


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# An encoder layer and a decoder layer (Marian's layout, with every bias):

# %%
show(transformer.layer.total, "encoder layer")
show(transformer.cross_layer.total, "decoder layer")

# %% [markdown]
# The whole model: one shared vocabulary matrix, the two stacks, the output projection tied.

# %%
show(transformer.Transformer.total, "the Transformer")

# %% [markdown]
# At the base and big sizes of Table 3, as functions of the vocabulary:

# %%
show(transformer.base_by_vocabulary)
show(transformer.big_by_vocabulary)

# %% [markdown]
# Table 3's rows: the printed figure, the count with 37,000 tokens, and the vocabularies that would
# reproduce the printed figure.

# %%
for row, span in zip(transformer.TABLE_3, transformer.vocabulary_37000.ranges):
    print(f"{row.printed:>5}  {row.exact():>13,}  {span}  {row.what}")
print("one vocabulary for the ten rows derived from base:", transformer.base_rows.common)

# %% [markdown]
# nn.Transformer against the paper's layers: two final LayerNorms. The bundled checkpoints, counted by
# `derivations.count` (the [Python API](../api.md)):

# %%
show(transformer.torch_minus_paper, "nn.Transformer minus the paper's layers")
for name in transformer.FAMILY.checkpoints:
    print(f"{name:18} {derivations.count(name).total:>13,}")
