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
# # Gemma 2, step by step
#
# The derivation of the [Gemma 2 page](../gemma2.md), run with the `derivations` package: each formula below is an
# expression of the package, and each number that expression evaluated on a real config. Change a size and run
# the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import gemma2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The attention and one decoder layer:

# %%
show(gemma2.attention_block.total, "attention")
show(gemma2.layer.total, "one layer")

# %% [markdown]
# Every checkpoint: the count, the embedding table (its component `embed_tokens`) and the rest (the papers'
# split), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in gemma2.FAMILY.checkpoints:
    result = derivations.count(name)
    embedding = next(c.value for c in result.components if c.name.endswith("embed_tokens"))
    print(f"{name:12} {result.total:>15,} {embedding:>14,} {result.total - embedding:>15,}")

# %% [markdown]
# The published figures, each against the exact count it could mean:

# %%
for claim in gemma2.FAMILY.rounded:
    print(f"{claim.what:45} {claim.printed:>15} {claim.exact():>15,}")
