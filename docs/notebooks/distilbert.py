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
# # DistilBERT, step by step
#
# The derivation of the [DistilBERT page](../distilbert.md), run with the `derivations` package: each
# formula below is an expression of the package, shown as it is, and each number is that expression
# evaluated on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import distilbert


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")  # module names such as sa_layer_norm, in TeX text
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer: BERT's, under other names. Its parts, and the whole:

# %%
for part in distilbert.layer.children:
    show(part.total, part.label)
show(distilbert.layer_standard.total, "one layer, F = 4D")

# %% [markdown]
# The whole model: word and position embeddings and the layers; no token types, no pooler. The released
# checkpoints, counted by `derivations.count` (the [Python API](../api.md)):

# %%
show(distilbert.DistilBertModel_standard.total, "DistilBertModel")
for name in distilbert.FAMILY.checkpoints:
    print(f"{name:24} {derivations.count(name, 'DistilBertModel').total:>13,}")

# %% [markdown]
# The teacher and what distillation removed.

# %%
values = registry.checkpoint("distilbert-base-uncased").values
student = derivations.count("distilbert-base-uncased", "DistilBertModel").total
print(f"teacher {distilbert.teacher.count(values):,}, student {student:,}")
for part in distilbert.removed.children:
    print(f"  {part.label:40} {part.count(values):>12,}")
print(f"smaller by {float(distilbert.smaller_by.subs(values)):.1%}")

# %% [markdown]
# Your own sizes: the student's config with four layers instead of six.

# %%
config = configs.load("distilbert-base-uncased") | {"n_layers": 4}
print(f"{derivations.count(config, 'DistilBertModel').total:,}")
