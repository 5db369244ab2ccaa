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
# # Qwen3, step by step
#
# The derivation of the [Qwen3 page](../qwen3.md): LLaMA's layer without biases, with a norm on each head's
# queries and keys, evaluated on every bundled checkpoint. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import render

from derivations.families import llama, qwen3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The attention, and what the two norms add to LLaMA's:

# %%
show(qwen3.attention_block.total, "attention")
show(qwen3.layer.total - llama.layer.total, "Qwen3 layer - LLaMA layer")

# %% [markdown]
# Every checkpoint: the count, and the model cards' non-embedding count (the components but `embed_tokens`
# and `lm_head`), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in qwen3.FAMILY.checkpoints:
    result = derivations.count(name)
    tables = sum(c.value for c in result.components if c.name.endswith(("embed_tokens", "lm_head")))
    print(f"{name:11} {result.total:>15,} {result.total - tables:>15,}")
