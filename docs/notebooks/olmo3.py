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
# # OLMo 3, step by step
#
# The derivation of the [OLMo 3 page](../olmo3.md): OLMo 2's layer, and the windows, which hold nothing.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render
from derivations.families import olmo2, olmo3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The layer is OLMo 2's:

# %%
show(olmo3.layer.total, "one layer")
print(olmo3.layer.total == olmo2.layer.total)

# %% [markdown]
# OLMo 3 7B with its window, a narrower one and every layer full, counted by `derivations.count` (the
# [Python API](../api.md)): the windows are masks.

# %%
config = configs.load("olmo-3-7b")
for window in (4096, 128):
    print(window, f"{derivations.count(config | {'sliding_window': window}).total:,}")
full = config | {"layer_types": ["full_attention"] * config["num_hidden_layers"]}
print("all full", f"{derivations.count(full).total:,}")
