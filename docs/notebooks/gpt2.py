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
# # GPT-2, step by step
#
# The derivation of the [GPT-2 page](../gpt2.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated
# on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import gpt2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One block: LayerNorm, attention, LayerNorm, feed-forward. Its parts:

# %%
for part in gpt2.layer.children:
    show(part.total, part.label)
show(gpt2.layer.total, "one block")

# %% [markdown]
# With the feed-forward four times the width, the block is a polynomial in the width alone:

# %%
show(gpt2.layer_standard.total, "one block, F = 4D")

# %% [markdown]
# The whole model, and its count on the four released sizes by `derivations.count` (the [Python API](../api.md)):

# %%
show(gpt2.GPT2Model_standard.total, "GPT2Model")
for name in gpt2.FAMILY.checkpoints:
    print(f"{name:12} {derivations.count(name).total:>15,}")

# %% [markdown]
# The paper's figures, counted with GPT-1's vocabulary: the hypothesis of the GPT-2 page.

# %%
for claim in gpt2.paper_counts.claims:
    print(f"{claim.printed:6} {claim.exact():>15,} {claim.exact(V=gpt2.GPT1_VOCABULARY):>15,}")
print("vocabularies that reproduce all four:", gpt2.paper_counts.common)

# %% [markdown]
# Your own sizes: GPT-2's config with 30 layers, 2,048 wide (in 16 heads: the width must split into
# heads).

# %%
config = configs.load("gpt2") | {"n_layer": 30, "n_embd": 2048, "n_head": 16}
print(f"{derivations.count(config).total:,}")
