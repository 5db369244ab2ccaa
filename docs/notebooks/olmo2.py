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
# # OLMo 2, step by step
#
# The derivation of the [OLMo 2 page](../olmo2.md): LLaMA's tensors with the norms after the sublayers, and two
# norms over the whole query and key widths.

# %%
from IPython.display import Math, display

from derivations import registry, render
from derivations.families import llama, olmo2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer, and what it holds beyond LLaMA's layer of the same sizes:

# %%
show(olmo2.layer.total, "one layer")
show(olmo2.layer.total - llama.layer.total, "OLMo 2 minus LLaMA")

# %% [markdown]
# Every checkpoint's exact count:

# %%
for name in olmo2.FAMILY.checkpoints:
    print(name, f"{registry.checkpoint(name).total:,}")
