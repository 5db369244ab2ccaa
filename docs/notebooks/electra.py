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
# # ELECTRA, step by step
#
# The derivation of the [ELECTRA page](../electra.md), run with the `derivations` package: each formula below is
# an expression of the package, shown as it is, and each number is that expression evaluated on a real config.
# Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, render

from derivations.families import electra


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# Step 1, the embeddings of width E and the projection to D (built only where E differs from D); step 2, BERT's
# layer.

# %%
show(electra.embeddings.total, "embeddings")
show(electra.projection.total, "projection")
show(electra.layer.total, "one layer")

# %% [markdown]
# The discriminator's and the generator's heads.

# %%
show(electra.discriminator_head.total, "discriminator head")
show(electra.ARCHITECTURES["ElectraForMaskedLM"].total - electra.ARCHITECTURES["ElectraModel"].total,
     "generator head")

# %% [markdown]
# The six released checkpoints, each class that the checkpoint table shows, counted by `derivations.count` (the
# [Python API](../api.md)):

# %%
for name in electra.FAMILY.checkpoints:
    counts = [derivations.count(name, arch).total
              for arch in ("ElectraModel", "ElectraForPreTraining", "ElectraForMaskedLM")]
    print(f"{name:28} " + " ".join(f"{count:>12,}" for count in counts))

# %% [markdown]
# Your own sizes: the small discriminator with embeddings as wide as its encoder (no projection).

# %%
own = configs.load("electra-small-discriminator") | {"embedding_size": 256}
print(f"{derivations.count(own, 'ElectraForPreTraining').total:,}")
