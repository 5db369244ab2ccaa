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
# # DeepSeek-V2, step by step
#
# The derivation of the [DeepSeek-V2 page](../deepseek_v2.md): latent attention, the mixture with its shared experts, and the
# total and active counts of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import deepseek_v2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(deepseek_v2.attention_block.total, "latent attention")
show(deepseek_v2.moe.total, "the mixture of experts")
show(deepseek_v2.idle_experts.total, "idle experts")

# %% [markdown]
# Every checkpoint: the total, and the active count with and without the input embedding (its component
# `embed_tokens`), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in deepseek_v2.FAMILY.checkpoints:
    result = derivations.count(name)
    embedding = next(c.value for c in result.components if c.name.endswith("embed_tokens"))
    print(f"{name:18} {result.total:>17,} {result.active:>16,} {result.active - embedding:>16,}")
