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
# # ViT, step by step
#
# The derivation of the [ViT page](../vit.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import vit


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The embeddings of an image (its patches, the class token, the positions), the layer, and what ViT holds
# beyond BERT without its pooler.

# %%
show(vit.ARCHITECTURES["ViTModel"].find("embeddings").total, "embeddings")
show(vit.layer.total, "layer")
show(vit.versus_bert, "ViT - BERT without pooler")
values = registry.checkpoint("vit-base-patch16-224").values
print(f"patch embedding on vit-base-patch16-224: {vit.patch_projection.count(values):,} parameters")

# %% [markdown]
# Every class on every bundled checkpoint.

# %%
for name in vit.FAMILY.checkpoints:
    for architecture in vit.ARCHITECTURES:
        print(f"{name:28} {architecture:28} {derivations.count(name, architecture).total:>13,}")
