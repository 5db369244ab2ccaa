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
# # CLIP, step by step
#
# The derivation of the [CLIP page](../clip.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import clip


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The two towers, and the parts that join them.

# %%
show(clip.text_tower.total, "text tower")
show(clip.vision_tower.total, "vision tower")
show(clip.projections.total, "projections and logit scale")
values = registry.checkpoint("clip-vit-base-patch32").values
print(f"image encoder (OpenCLIP's split): {clip.image_encoder.count(values):,} parameters")
print(f"text side (OpenCLIP's split): {clip.text_encoder.count(values):,} parameters")

# %% [markdown]
# Every class on every bundled checkpoint.

# %%
for name in clip.FAMILY.checkpoints:
    for architecture in clip.ARCHITECTURES:
        print(f"{name:24} {architecture:32} {derivations.count(name, architecture).total:>13,}")
