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
# # GPT-NeoX and Pythia, step by step
#
# The derivation of the [GPT-NeoX and Pythia page](../gpt_neox.md), run with the `derivations` package:
# each formula below is an expression of the package, shown as it is, and each number is that
# expression evaluated on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

from derivations import configs, render

from derivations.families import gpt_neox
from derivations.symbols import D, F, L


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer: two LayerNorms, attention, feed-forward. Its parts:

# %%
for part in gpt_neox.block.children:
    show(part.total, part.label)
show(gpt_neox.block.total, "one layer")

# %% [markdown]
# With the feed-forward four times the width, the layer is a polynomial in the width alone, and the
# model adds two vocabulary tables (no position table: the positions are rotary):

# %%
show(gpt_neox.block_standard.total, "one layer, F = 4D")
show(gpt_neox.CausalLM_standard.total, "GPTNeoXForCausalLM")
show(gpt_neox.non_embedding_standard.total, "non-embedding")

# %% [markdown]
# The bundled checkpoints: total, non-embedding, and the share of the total outside the two tables.

# %%
for name in gpt_neox.CHECKPOINTS:
    values = configs.checkpoint(name).values
    total, rest = gpt_neox.GPTNeoXForCausalLM.count(values), gpt_neox.non_embedding.count(values)
    print(f"{name:13} {total:>15,} {rest:>15,} {100 * rest / total:6.1f}%")

# %% [markdown]
# The same Pythia-70M with its tables cut to the tokenizer's entries, as a benchmark counted it:

# %%
values = configs.checkpoint("pythia-70m").values
print(f"{gpt_neox.tokenizer_vocabulary_70m.reconstruction.count(values):,}")

# %% [markdown]
# Your own sizes: a Pythia-style model of 20 layers, 3,072 wide.

# %%
values = configs.checkpoint("pythia-1b").values | {L: 20, D: 3072, F: 4 * 3072}
print(f"{gpt_neox.GPTNeoXForCausalLM.count(values):,}")
