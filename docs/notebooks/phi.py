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
# # Phi, step by step
#
# The derivation of the [Phi page](../phi.md): one parallel layer with biases everywhere, and what "1.3B"
# counts.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import phi


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(phi.layer.total, "one layer")
show(phi.layer_qk_norm.total - phi.layer.total, "with q and k normed, more")

# %% [markdown]
# Every checkpoint, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in phi.FAMILY.checkpoints:
    print(f"{name:8} {derivations.count(name).total:>15,}")
