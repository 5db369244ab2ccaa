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
# # Llama 4 (language model), step by step
#
# The derivation of the [Llama 4 (language model) page](../llama4_text.md): the mixture of experts, the two kinds
# of layer, and the total and active counts of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import llama4_text


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(llama4_text.moe.total, "the mixture of experts")
show(llama4_text.dense_layer.total, "a dense layer")
show(llama4_text.layer.total, "a layer with experts")
show(llama4_text.idle_experts.total, "idle experts")

# %% [markdown]
# Every checkpoint: the total, and the active count with and without the input embedding (its component
# `embed_tokens`), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in llama4_text.FAMILY.checkpoints:
    result = derivations.count(name)
    embedding = next(c.value for c in result.components if c.name.endswith("embed_tokens"))
    print(f"{name:31} {result.total:>17,} {result.active:>16,} {result.active - embedding:>16,}")
