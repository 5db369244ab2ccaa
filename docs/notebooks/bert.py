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
# # BERT, step by step
#
# The derivation of the [BERT page](../bert.md), run with the `derivations` package.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import bert


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The embeddings, one encoder layer, and the layer under the paper's shapes (F = 4D, heads that split
# the width):

# %%
show(bert.embeddings.total, "embeddings")
show(bert.layer.total, "encoder layer")
show(bert.layer_standard.total, "encoder layer, standard shapes")

# %% [markdown]
# BertModel under the same shapes, and every class on bert-base-uncased, counted by `derivations.count` (the
# [Python API](../api.md)):

# %%
show(bert.BertModel_standard.total, "BertModel, standard shapes")
for name in bert.ARCHITECTURES:
    print(f"{name:32} {derivations.count('bert-base-uncased', name).total:>13,}")

# %% [markdown]
# The released checkpoints differ only in their vocabularies (and in size, base or large):

# %%
for name in bert.FAMILY.checkpoints:
    print(f"{name:32} {derivations.count(name, 'BertModel').total:>13,}")

# %% [markdown]
# The 75,641,856 of a Chinese-language blog post, rebuilt, and the terms it misses (against the body of
# BertForMaskedLM, the class its config names):

# %%
item = bert.chinese_75m
item.check()
for term in item.terms:
    print(f"{term.label:50} {term.count(item.values()):>12,}")
