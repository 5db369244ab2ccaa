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
# # Mistral, step by step
#
# The derivation of the [Mistral page](../mistral.md): LLaMA's layer, evaluated on Mistral 7B.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import llama, mistral


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The layer is LLaMA's:

# %%
show(mistral.layer.total, "one layer")
print(mistral.layer.total == llama.layer.total)

# %% [markdown]
# Mistral 7B, and the same config with a sliding window of any size or none, counted by `derivations.count`
# (the [Python API](../api.md)): the window is a mask.

# %%
config = configs.load("mistral-7b")
for window in (4096, 128, None):
    print(window, f"{derivations.count(config | {'sliding_window': window}).total:,}")
