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
# # Falcon, step by step
#
# The derivation of the [Falcon page](../falcon.md), run with the `derivations` package: each formula below is an
# expression of the package, shown as it is, and each number is that expression evaluated on a real config.
# Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import falcon


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# Falcon-7B's layer (multi-query: K is 1) and Falcon-40B's (the new decoder architecture: K key/value heads, two
# LayerNorms side by side):

# %%
show(falcon.layer_7b.total, "Falcon-7B layer")
show(falcon.layer_40b.total, "Falcon-40B layer")

# %% [markdown]
# The three checkpoints, with the key/value heads each layout has:

# %%
for name in falcon.FAMILY.checkpoints:
    result = derivations.count(name)
    print(f"{name:12} {result.total:>18,}")

# %% [markdown]
# Your own sizes: Falcon-40B's config with 16 key/value heads.

# %%
config = configs.load("falcon-40b") | {"num_kv_heads": 16}
print(f"{derivations.count(config).total:,}")
