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
# # MPNet, step by step
#
# The derivation of the [MPNet page](../mpnet.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import mpnet


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The encoder: L layers and one relative-position bias; and what MPNetModel holds beyond BertModel.

# %%
show(mpnet.encoder.total, "encoder")
show(mpnet.versus_bert, "MPNetModel - BertModel")
values = registry.checkpoint("mpnet-base").values
print(f"relative bias on mpnet-base: {mpnet.relative_bias.count(values):,} parameters")

# %% [markdown]
# Every class on both bundled checkpoints.

# %%
for name in mpnet.FAMILY.checkpoints:
    for architecture in mpnet.ARCHITECTURES:
        print(f"{name:18} {architecture:32} {derivations.count(name, architecture).total:>13,}")
