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
# # SmolLM3, step by step
#
# The derivation of the [SmolLM3 page](../smollm3.md): LLaMA's layer, with or without rotary embeddings.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render
from derivations.families import llama, smollm3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The layer is LLaMA's:

# %%
show(smollm3.layer.total, "one layer")
print(smollm3.layer.total == llama.layer.total)

# %% [markdown]
# SmolLM3-3B as released (every fourth layer without rotary embeddings), with every layer rotating and with none,
# counted by `derivations.count` (the [Python API](../api.md)): the same count.

# %%
config = configs.load("smollm3-3b")
layers = config["num_hidden_layers"]
for rotary in (config["no_rope_layers"], [1] * layers, [0] * layers):
    print(f"{derivations.count(config | {'no_rope_layers': rotary}).total:,}")
