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

import derivations
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
# Every checkpoint: the count, and the model cards' non-embedding count (layers and final norm: the
# components but `embed_tokens` and `lm_head`), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in qwen2.FAMILY.checkpoints:
    result = derivations.count(name)
    tables = sum(c.value for c in result.components if c.name.endswith(("embed_tokens", "lm_head")))
    print(f"{name:14} {result.total:>16,} {result.total - tables:>16,}")

# %% [markdown]
# Qwen2-7B as the release post counted it: one embedding table, as if its config tied the head.

# %%
print(f"{derivations.count(configs.load('qwen2-7b') | {'tie_word_embeddings': True}).total:,}")
