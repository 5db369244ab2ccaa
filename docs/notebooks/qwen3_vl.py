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
# # Qwen3-VL, step by step
#
# The derivation of the [Qwen3-VL page](../qwen3_vl.md), run with the `derivations` package: each formula below
# is an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import qwen3_vl


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The three parts: the vision transformer, its mergers (the projector: the main one and DeepStack's), Qwen3's
# language model.

# %%
show(qwen3_vl.vision_tower.total, "vision tower")
show(qwen3_vl.projector.total, "mergers")
show(qwen3_vl.language_model.total, "language model")
values = registry.checkpoint("qwen3-vl-8b-instruct").values
for part in (qwen3_vl.vision_tower, qwen3_vl.projector, qwen3_vl.language_model):
    print(f"{part.name:16} {part.count(values):>15,}")

# %% [markdown]
# Every size: the whole model, its language model alone (`--arch Qwen3VLTextModel`) and its vision transformer
# with the mergers (`--arch Qwen3VLVisionModel`).

# %%
for name in qwen3_vl.FAMILY.checkpoints:
    whole = derivations.count(name).total
    text = derivations.count(name, "Qwen3VLTextModel").total
    vision = derivations.count(name, "Qwen3VLVisionModel").total
    print(f"{name:24} {whole:>15,} {text:>15,} {vision:>12,}")
