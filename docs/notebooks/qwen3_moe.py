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
# # Qwen3-MoE, step by step
#
# The derivation of the [Qwen3-MoE page](../qwen3_moe.md): the mixture of experts, the two kinds of layer, and the total and
# active counts of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

from derivations import configs, render

from derivations.families import qwen3_moe


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(qwen3_moe.moe.total, "the mixture of experts")
show(qwen3_moe.idle_experts.total, "idle experts")

# %% [markdown]
# Every checkpoint: the total, and the active count with and without the input embedding.

# %%
for name in qwen3_moe.CHECKPOINTS:
    values = configs.checkpoint(name).values
    print(f"{name:18} {configs.checkpoint(name).total:>17,} {qwen3_moe.ACTIVE['Qwen3MoeForCausalLM'].count(values):>16,} "
          f"{qwen3_moe.active_without_embedding.count(values):>16,}")
