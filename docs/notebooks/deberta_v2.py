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
# # DeBERTa-v2 and v3, step by step
#
# The derivation of the [DeBERTa-v2 page](../deberta_v2.md), run with the `derivations` package: each formula below
# is an expression of the package, shown as it is, and each number is that expression evaluated on a real config.
# Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import deberta_v2


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One layer, with the position maps a config without share_att_key adds, and the table every layer shares.

# %%
show(deberta_v2.layer.total, "one layer")
show(deberta_v2.relative_table.total, "relative table")

# %% [markdown]
# The model card's split of deberta-v3-base: the word table, and the rest.

# %%
values = registry.checkpoint("deberta-v3-base").values
print(f"word table: {deberta_v2.word_table.count(values):,}")
print(f"backbone:   {deberta_v2.backbone.count(values):,}")
print(f"backbone and one D-by-D map: {deberta_v2.backbone_and_pooler.count(values):,}")

# %% [markdown]
# The released checkpoints, counted by `derivations.count` (the [Python API](../api.md)):

# %%
for name in deberta_v2.FAMILY.checkpoints:
    counts = [derivations.count(name, arch).total for arch in ("DebertaV2Model", "DebertaV2ForMaskedLM")]
    print(f"{name:20} " + " ".join(f"{count:>14,}" for count in counts))

# %% [markdown]
# Your own sizes: deberta-v3-base without share_att_key, so that each layer has position maps of its own.

# %%
own = configs.load("deberta-v3-base") | {"share_att_key": False}
print(f"{derivations.count(own, 'DebertaV2Model').total:,}")
