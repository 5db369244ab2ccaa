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
# # GPT-3, step by step
#
# The derivation of the [GPT-3 page](../gpt3.md), run with the `derivations` package.

# %%
from IPython.display import Math, display

from derivations import configs, registry, render

from derivations.families import gpt3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# Kaplan et al.'s N, the exact non-embedding count, and what N leaves out:

# %%
show(gpt3.kaplan_standard)
show(gpt3.non_embedding_standard.total, "exact non-embedding count")
show(gpt3.kaplan_gap_equation)
show(gpt3.kaplan_limit)

# %% [markdown]
# Table 2.1's rows: the printed n_params, the exact count, and N's relative error.

# %%
for claim in gpt3.TABLE_2_1:
    values = registry.checkpoint(claim.checkpoint).values
    error = float(gpt3.kaplan_error.subs(values))
    print(f"{claim.printed:>7} {claim.exact():>17,} {'rounds' if claim.rounds() else 'does not round'}"
          f"  N off by {100 * error:.3f}%")

# %% [markdown]
# The rows whose printed sizes disagree:

# %%
for claim in gpt3.AS_PRINTED:
    print(f"{claim.exact():>17,}  {claim.what}")
