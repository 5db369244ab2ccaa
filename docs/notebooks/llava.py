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
# # LLaVA, step by step
#
# The derivation of the [LLaVA page](../llava.md), run with the `derivations` package: each formula below is an
# expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import llava


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The three parts: CLIP's tower under the vision tower's sizes, the projector, LLaMA's language model.

# %%
show(llava.vision_tower.total, "vision tower")
show(llava.projector.total, "projector")
show(llava.language_model.total, "language model")
values = registry.checkpoint("llava-1.5-7b-hf").values
for part in (llava.vision_tower, llava.projector, llava.language_model):
    print(f"{part.name:16} {part.count(values):>15,}")

# %% [markdown]
# Both sizes, whole.

# %%
for name in llava.FAMILY.checkpoints:
    print(f"{name:18} {derivations.count(name).total:>15,}")
