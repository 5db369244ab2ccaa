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
# # ModernBERT, step by step
#
# The derivation of the [ModernBERT page](../modernbert.md), evaluated on ModernBERT-base and -large.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import modernbert


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer after the first, and the first, which has no norm before its attention:

# %%
show(modernbert.layer_plain.total, "one layer")
show(modernbert.first_layer.total, "layer 0")

# %% [markdown]
# The released checkpoints, as the backbone and as the masked-LM class their configs name, counted by
# `derivations.count` (the [Python API](../api.md)):

# %%
for name in modernbert.FAMILY.checkpoints:
    config = configs.load(name)
    print(name, f"{derivations.count(config, 'ModernBertModel').total:,}", f"{derivations.count(config).total:,}")

# %% [markdown]
# Each bias switch adds its biases back (ModernBERT-base, every switch on):

# %%
config = configs.load("modernbert-base")
switches = {"attention_bias": True, "mlp_bias": True, "norm_bias": True, "classifier_bias": True}
print(f"{derivations.count(config | switches).total - derivations.count(config).total:,}")
