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
# # BLOOM, step by step
#
# The derivation of the [BLOOM page](../bloom.md), run with the `derivations` package: each formula below is an
# expression of the package, shown as it is, and each number is that expression evaluated on a real config.
# Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import bloom


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One block: two LayerNorms, the fused attention and the feed-forward, four times the width. Its parts:

# %%
for part in bloom.block.children:
    show(part.total, part.label)
show(bloom.block.total, "one block")

# %% [markdown]
# The model: the token table and the LayerNorm after it, the blocks, the final LayerNorm; the head is the table.

# %%
show(bloom.ARCHITECTURES["BloomForCausalLM"].total, "BloomForCausalLM")

# %% [markdown]
# The six checkpoints: total, and the share that is the token table (the cards' "embedding parameters").

# %%
for name in bloom.FAMILY.checkpoints:
    result = derivations.count(name)
    table = sum(c.value for c in result.components if c.name == "transformer.word_embeddings")
    print(f"{name:11} {result.total:>16,} {table:>14,} {100 * table / result.total:6.1f}%")

# %% [markdown]
# Your own sizes: BLOOM-560M's config with 12 layers.

# %%
config = configs.load("bloom-560m") | {"n_layer": 12}
print(f"{derivations.count(config).total:,}")
