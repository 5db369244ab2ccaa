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
# # Mixtral, step by step
#
# The derivation of the [Mixtral page](../mixtral.md), run with the `derivations` package: each formula
# below is an expression of the package, shown as it is, and each number is that expression evaluated
# on a real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import mixtral


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One expert, a gated feed-forward, and the sparse mixture of experts: a router and X experts.

# %%
show(mixtral.expert.total, "one expert")
for part in mixtral.moe.children:
    show(part.total, part.label)
show(mixtral.moe.total, "the mixture of experts")

# %% [markdown]
# One decoder layer, and the whole model with its language-model head:

# %%
for part in mixtral.layer.children:
    show(part.total, part.label)
show(mixtral.ARCHITECTURES["MixtralForCausalLM"].total, "MixtralForCausalLM")

# %% [markdown]
# What one token uses: the same model with X_a experts in each layer (the router and the input
# embedding whole), and the same without the input embedding.

# %%
show(mixtral.ACTIVE["MixtralForCausalLM"].total, "active per token")
show(mixtral.active_without_embedding.total, "active, input embedding left out")

# %% [markdown]
# The two releases: total, active, active without the input embedding (its component `embed_tokens`), from
# `derivations.count` (the [Python API](../api.md)).

# %%
for name in mixtral.FAMILY.checkpoints:
    result = derivations.count(name)
    embedding = next(c.value for c in result.components if c.name.endswith("embed_tokens"))
    print(f"{name:14} {result.total:>18,} {result.active:>18,} {result.active - embedding:>18,}")

# %% [markdown]
# The "8x7B" of the name against the count: eight times 7B, eight whole Mistral 7Bs, and Mixtral.

# %%
values = registry.checkpoint("mixtral-8x7b").values
claim = mixtral.eight_times_seven
print(f"{'eight times 7B':24} {claim.claim:>18,}")
print(f"{'eight whole Mistral 7Bs':24} {mixtral.whole_mistral_7bs.count(values):>18,}")
print(f"{'Mixtral 8x7B':24} {derivations.count('mixtral-8x7b').total:>18,}")
for term in claim.terms:
    print(f"  {term.label:90} {term.count(values):>16,}")

# %% [markdown]
# Your own sizes: Mixtral 8x7B's config with 16 experts, 4 of them per token.

# %%
result = derivations.count(configs.load("mixtral-8x7b") | {"num_local_experts": 16, "num_experts_per_tok": 4})
print(f"total {result.total:,}, active {result.active:,}")
