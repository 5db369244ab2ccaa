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
# # SigLIP, step by step
#
# The derivation of the [SigLIP page](../siglip.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import siglip


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The two towers and the attention-pooling head.

# %%
show(siglip.text_tower.total, "text tower")
show(siglip.vision_tower.total, "vision tower")
show(siglip.pooling_head.total, "pooling head")
values = registry.checkpoint("siglip-so400m-patch14-384").values
print(f"pooling head of the so400m tower: {siglip.pooling_head.count(values):,} parameters")

# %% [markdown]
# Every class on both bundled checkpoints.

# %%
for name in siglip.FAMILY.checkpoints:
    for architecture in siglip.ARCHITECTURES:
        print(f"{name:28} {architecture:30} {derivations.count(name, architecture).total:>13,}")
