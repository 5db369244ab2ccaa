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
# # GLM-4.5, step by step
#
# The derivation of the [GLM-4.5 page](../glm4_moe.md): the attention, the mixture with its shared expert, the MTP
# layer, and the total and active counts of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import glm4_moe


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(glm4_moe.attention_block.total, "attention (GLM-4.5-Air)")
show(glm4_moe.attention_qk_norm.total, "attention (GLM-4.5)")
show(glm4_moe.layer.total, "an expert layer")
show(glm4_moe.idle_experts.total, "idle experts")
show(glm4_moe.mtp_layer.total, "the MTP layer")

# %% [markdown]
# Every checkpoint: the total and the active count from `derivations.count` (the [Python API](../api.md)), then
# Table 1's convention (with the MTP layer, without the embeddings and the head).

# %%
conventions = {"glm-4.5": (glm4_moe.report_total, glm4_moe.report_active),
               "glm-4.5-air": (glm4_moe.report_total_air, glm4_moe.report_active_air)}
for name in glm4_moe.FAMILY.checkpoints:
    result = derivations.count(name)
    values = registry.checkpoint(name).values
    total, active = (part.count(values) for part in conventions[name])
    print(f"{name:12} {result.total:>17,} {result.active:>16,} {total:>17,} {active:>16,}")
