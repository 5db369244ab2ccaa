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
# # DeepSeek-V3, step by step
#
# The derivation of the [DeepSeek-V3 page](../deepseek_v3.md): latent attention, the mixture with its shared experts, and the
# total and active counts of every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

from derivations import configs, render
from derivations.symbols import D, V

from derivations.families import deepseek_v3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(deepseek_v3.attention_block.total, "latent attention")
show(deepseek_v3.moe.total, "the mixture of experts")
show(deepseek_v3.idle_experts.total, "idle experts")

# %% [markdown]
# Every checkpoint: the total, and the active count with and without the input embedding.

# %%
for name in deepseek_v3.CHECKPOINTS:
    resolved = configs.checkpoint(name)
    active = deepseek_v3.ACTIVE_VARIANTS[configs.layout_of(deepseek_v3, name)]["DeepseekV3ForCausalLM"].count(resolved.values)
    print(f"{name:18} {resolved.total:>17,} {active:>16,} {active - resolved.values[V] * resolved.values[D]:>16,}")
