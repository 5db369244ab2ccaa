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

import derivations
from derivations import configs, registry, render

from derivations.families import gpt_neox


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
# The bundled checkpoints: total, non-embedding, and the share of the total outside the two tables (the
# components `embed_in` and `lm_head`), from `derivations.count` (the [Python API](../api.md)).

# %%
for name in gpt_neox.FAMILY.checkpoints:
    result = derivations.count(name)
    tables = sum(c.value for c in result.components if c.name in ("gpt_neox.embed_in", "lm_head"))
    total, rest = result.total, result.total - tables
    print(f"{name:13} {total:>15,} {rest:>15,} {100 * rest / total:6.1f}%")

# %% [markdown]
# The same Pythia-70M with its tables cut to the tokenizer's entries, as a benchmark counted it:

# %%
values = registry.checkpoint("pythia-70m").values
print(f"{gpt_neox.tokenizer_vocabulary_70m.reconstruction.count(values):,}")

# %% [markdown]
# Your own sizes: Pythia-1B's config with 20 layers, 3,072 wide.

# %%
config = configs.load("pythia-1b") | {"num_hidden_layers": 20, "hidden_size": 3072, "intermediate_size": 4 * 3072}
print(f"{derivations.count(config).total:,}")
