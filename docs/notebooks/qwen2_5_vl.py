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
# # Qwen2.5-VL, step by step
#
# The derivation of the [Qwen2.5-VL page](../qwen2_5_vl.md), run with the `derivations` package: each formula below
# is an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import qwen2_5_vl


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The three parts: the vision transformer, its merger (the projector), Qwen2's language model.

# %%
show(qwen2_5_vl.vision_tower.total, "vision tower")
show(qwen2_5_vl.projector.total, "merger")
show(qwen2_5_vl.language_model.total, "language model")
values = registry.checkpoint("qwen2.5-vl-7b-instruct").values
for part in (qwen2_5_vl.vision_tower, qwen2_5_vl.projector, qwen2_5_vl.language_model):
    print(f"{part.name:16} {part.count(values):>15,}")

# %% [markdown]
# Every size: the whole model, its language model alone (`--arch Qwen2_5_VLTextModel`) and its vision transformer
# with the merger (`--arch Qwen2_5_VisionTransformerPretrainedModel`).

# %%
for name in qwen2_5_vl.FAMILY.checkpoints:
    whole = derivations.count(name).total
    text = derivations.count(name, "Qwen2_5_VLTextModel").total
    vision = derivations.count(name, "Qwen2_5_VisionTransformerPretrainedModel").total
    print(f"{name:24} {whole:>15,} {text:>15,} {vision:>12,}")
