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
# # Granite, step by step
#
# The derivation of the [Granite page](../granite.md): LLaMA's layer, and four multipliers that hold nothing.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render
from derivations.families import granite, llama


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The layer is LLaMA's:

# %%
show(granite.layer.total, "one layer")
print(granite.layer.total == llama.layer.total)

# %% [markdown]
# Granite 3.3 8B with its multipliers and with all four set to 1, counted by `derivations.count` (the
# [Python API](../api.md)): the same count.

# %%
config = configs.load("granite-3.3-8b")
ones = {name: 1.0 for name in ("embedding_multiplier", "attention_multiplier", "residual_multiplier",
                               "logits_scaling")}
for each in (config, config | ones):
    print(f"{derivations.count(each).total:,}")
