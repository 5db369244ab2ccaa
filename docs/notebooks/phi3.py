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
# # Phi-3 and Phi-4, step by step
#
# The derivation of the [Phi-3 and Phi-4 page](../phi3.md): LLaMA's layer with q, k and v fused, and gate and up
# fused, evaluated on every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import llama, phi3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The fused attention and feed-forward hold what LLaMA's separate matrices hold:

# %%
show(phi3.self_attention.total, "attention")
show(phi3.gated_feed_forward.total, "feed-forward")
print(phi3.layer.total.expand() == llama.layer.total.expand())

# %% [markdown]
# Every checkpoint, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in phi3.FAMILY.checkpoints:
    print(f"{name:16} {derivations.count(name).total:>15,}")
