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
# # GPTBigCode (SantaCoder, StarCoder), step by step
#
# The derivation of the [GPTBigCode page](../gpt_bigcode.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated on a real
# config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import gpt_bigcode


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The block: GPT-2's, around multi-query attention (K key/value heads; 1 in every released model).

# %%
for part in gpt_bigcode.layer.children:
    show(part.total, part.label)

# %% [markdown]
# The checkpoints:

# %%
for name in gpt_bigcode.FAMILY.checkpoints:
    print(f"{name:17} {derivations.count(name).total:>16,}")

# %% [markdown]
# StarCoder with one key/value head per query head (multi_query false): GPT-2's attention at StarCoder's sizes.

# %%
config = configs.load("starcoder") | {"multi_query": False}
print(f"{derivations.count(config).total:,}")
