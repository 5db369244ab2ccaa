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
# # LLaMA, step by step
#
# The derivation of the [LLaMA page](../llama.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated
# on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import llama
from derivations.symbols import K


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One decoder layer: RMSNorm, grouped-query attention, RMSNorm, gated feed-forward. Its parts:

# %%
for part in llama.layer.children:
    show(part.total, part.label)
show(llama.layer.total, "one layer")

# %% [markdown]
# Meta's rule for the feed-forward width, and what it gives for each bundled checkpoint whose
# params.json is known:

# %%
show(llama.meta_width)
for name, (dim, multiple_of, multiplier, _) in llama.PARAMS.items():
    print(f"{name:12} {llama.width(dim, multiple_of, multiplier):>7,} {registry.checkpoint(name).values[llama.F]:>7,}")

# %% [markdown]
# The whole model on every bundled checkpoint (the last two tie their head), by `derivations.count` (the
# [Python API](../api.md)):

# %%
for name in llama.FAMILY.checkpoints:
    print(f"{name:13} {derivations.count(name).total:>16,}")

# %% [markdown]
# Grouped-query attention on Llama 2 70B: one layer with its 8 key/value heads, and with 64.

# %%
values = registry.checkpoint("llama-2-70b").values
print(f"{llama.layer.count(values):,}  {llama.layer.count(values | {K: 64}):,}")
