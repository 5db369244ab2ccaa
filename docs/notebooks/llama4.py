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
# # Llama 4 with its vision tower, step by step
#
# The derivation of the [Llama 4 page](../llama4.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import llama4


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The three parts: Meta's vision tower (its adapter included), the projector, Llama 4's language model.

# %%
show(llama4.vision_tower.total, "vision tower")
show(llama4.projector.total, "projector")
show(llama4.language_model.total, "language model")
values = registry.checkpoint("llama-4-scout-17b-16e").values
for part in (llama4.vision_tower, llama4.projector, llama4.language_model):
    print(f"{part.name:16} {part.count(values):>17,}")

# %% [markdown]
# Both checkpoints: the whole, its language model alone (the text_config, as `--arch Llama4ForCausalLM` reads it),
# and the active count per token, whole and the language model's.

# %%
for name in llama4.FAMILY.checkpoints:
    whole = derivations.count(name).total
    text = derivations.count(name, "Llama4ForCausalLM").total
    values = registry.checkpoint(name).values
    active = llama4.ACTIVE["Llama4ForConditionalGeneration"].count(values)
    print(f"{name:26} {whole:>17,} {text:>17,} {active:>15,} {llama4.active_language_model.count(values):>15,}")
