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
# # DINOv2, step by step
#
# The derivation of the [DINOv2 page](../dinov2.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import dinov2
from derivations.symbols import F


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The embeddings (ViT's, and the mask token), the layer with its two LayerScales, what DINOv2 holds beyond ViT
# without its pooler, and what the SwiGLU feed-forward adds at the same width.

# %%
show(dinov2.ARCHITECTURES["Dinov2Model"].find("embeddings").total, "embeddings")
show(dinov2.layer.total, "layer")
show(dinov2.versus_vit, "DINOv2 - ViT without pooler")
show(dinov2.swiglu_extra, "SwiGLU - plain")
values = registry.checkpoint("dinov2-giant").values
print(f"feed-forward width of dinov2-giant (SwiGLU): {values[F]:,}")
print(f"position table on dinov2-giant: {dinov2.positions.count(values):,} parameters")

# %% [markdown]
# Every class on every bundled checkpoint.

# %%
for name in dinov2.FAMILY.checkpoints:
    for architecture in dinov2.ARCHITECTURES:
        print(f"{name:16} {architecture:30} {derivations.count(name, architecture).total:>15,}")
