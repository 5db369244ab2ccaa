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
# # Qwen2 and Qwen2.5, step by step
#
# The derivation of the [Qwen2 page](../qwen2.md): LLaMA's layer with biases on q, k and v, evaluated on
# every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

from derivations import configs, render

from derivations.families import llama, qwen2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The attention, and what its biases add to LLaMA's:

# %%
show(qwen2.self_attention.total, "attention")
show(qwen2.layer.total - llama.layer.total, "Qwen2 layer - LLaMA layer")

# %% [markdown]
# Every checkpoint: the count, and the model cards' non-embedding count (layers and final norm).

# %%
for name in qwen2.CHECKPOINTS:
    resolved = configs.checkpoint(name)
    print(f"{name:14} {resolved.total:>16,} {qwen2.non_embedding.count(resolved.values):>16,}")

# %% [markdown]
# Qwen2-7B as the release post counted it: one embedding table, as if the head were tied.

# %%
values = configs.checkpoint("qwen2-7b").values
print(f"{qwen2.Qwen2ForCausalLM_tied.count(values):,}")
