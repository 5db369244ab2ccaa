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
# # StableLM, step by step
#
# The derivation of the [StableLM page](../stablelm.md): LLaMA's layer with LayerNorms, and what each switch
# of the config adds or takes away.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import stablelm


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(stablelm.layer.total, "one layer")
show(stablelm.layer_qkv_bias.total - stablelm.layer.total, "q, k and v biases add")
show(stablelm.layer.total - stablelm.layer_parallel.total, "a parallel layer saves")

# %% [markdown]
# Both checkpoints, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in stablelm.FAMILY.checkpoints:
    print(f"{name:18} {derivations.count(name).total:>15,}")
