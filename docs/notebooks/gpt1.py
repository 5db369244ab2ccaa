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
# # GPT-1, step by step
#
# The derivation of the [GPT-1 page](../gpt1.md), run with the `derivations` package.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import gpt1, gpt2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# A post-LN block, and the model, with no LayerNorm after the last block:

# %%
show(gpt1.layer.total, "one block")
show(gpt1.ARCHITECTURES["OpenAIGPTModel"].total, "OpenAIGPTModel")

# %% [markdown]
# GPT-2 moved the LayerNorms and added one after the last block:

# %%
show(gpt2.GPT2Model_standard.total - gpt1.ARCHITECTURES["OpenAIGPTModel"].total, "GPT2Model minus OpenAIGPTModel")

# %% [markdown]
# Every class on openai-gpt, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in gpt1.ARCHITECTURES:
    print(f"{name:36} {derivations.count('openai-gpt', name).total:>13,}")
