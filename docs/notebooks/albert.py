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
# # ALBERT, step by step
#
# The derivation of the [ALBERT page](../albert.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated
# on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import albert
from derivations.symbols import E, L


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# Step 1, the factorized embedding: the word table and its projection, and what they save against
# a table as wide as the encoder.

# %%
show(albert.factorized_words.total, "word table and projection")
show(albert.factorization_saving, "saving")
values = registry.checkpoint("albert-base-v2").values
print(f"saving on albert-base-v2: {int(albert.factorization_saving.subs(values)):,}")

# %% [markdown]
# Step 2, one layer, and step 3, the encoder: the groups are stored once, and the depth does not
# appear.

# %%
show(albert.layer.total, "one layer")
show(albert.encoder.total, "encoder")
print("depth in the count:", L in albert.ARCHITECTURES["AlbertModel"].total.free_symbols)

# %% [markdown]
# The four released sizes, each class that the checkpoint table shows, counted by `derivations.count` (the
# [Python API](../api.md)):

# %%
for name in albert.FAMILY.checkpoints:
    counts = [derivations.count(name, arch).total for arch in ("AlbertModel", "AlbertForPreTraining")]
    print(f"{name:18} " + " ".join(f"{count:>13,}" for count in counts))

# %% [markdown]
# The paper's xxlarge figure: the embedding sizes that would reproduce it, and the released one.

# %%
print("embedding sizes that give the figure:", albert.xxlarge_embedding.common)
print("released:", registry.checkpoint("albert-xxlarge-v2").values[E])

# %% [markdown]
# Your own sizes: albert-base-v2's config with two groups of two layers each, then a depth of 48.

# %%
own = configs.load("albert-base-v2") | {"num_hidden_groups": 2, "inner_group_num": 2}
print(f"{derivations.count(own, 'AlbertModel').total:,}")
print(f"{derivations.count(own | {'num_hidden_layers': 48}, 'AlbertModel').total:,}")
