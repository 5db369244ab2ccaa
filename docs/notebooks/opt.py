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
# # OPT, step by step
#
# The derivation of the [OPT page](../opt.md), evaluated on the released checkpoints and Table 1's 175B.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import opt


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer, and the causal LM of the pre-LN checkpoints:

# %%
show(opt.layer_plain.total, "one layer")
show(opt.ARCHITECTURES["OPTForCausalLM"].total, "OPTForCausalLM")

# %% [markdown]
# OPT-350m: post-LN, no final norm, a narrow token table and its two projections:

# %%
show(opt.OPT_350M.total, "OPT-350m")

# %% [markdown]
# Every size, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in opt.FAMILY.checkpoints:
    print(name, f"{derivations.count(configs.load(name)).total:,}")
