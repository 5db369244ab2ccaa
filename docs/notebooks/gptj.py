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
# # GPT-J, step by step
#
# The derivation of the [GPT-J page](../gptj.md): one parallel layer, the biased head, and the card's figure
# taken apart.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import gptj


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer, and the whole causal LM with the feed-forward four times the width:

# %%
show(gptj.layer.total, "one layer")
show(gptj.CausalLM_standard.total, "GPTJForCausalLM")

# %% [markdown]
# GPT-J-6B counted by `derivations.count` (the [Python API](../api.md)), and the card's figure, which counts
# the eight training shards' copies of the norms and biases:

# %%
total = derivations.count("gpt-j-6b").total
print(f"{total:,}  transformers")
print(f"{gptj.sharded.claim:,}  the card ({gptj.sharded.claim - total:,} more)")
