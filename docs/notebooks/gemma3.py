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
# # Gemma 3 with its vision encoder, step by step
#
# The derivation of the [Gemma 3 page](../gemma3.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import gemma3


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The three parts: SigLIP's tower under the vision tower's sizes, the projector, Gemma 3's language model.

# %%
show(gemma3.vision_tower.total, "vision tower")
show(gemma3.projector.total, "projector")
show(gemma3.language_model.total, "language model")
values = registry.checkpoint("gemma-3-4b-pt").values
for part in (gemma3.vision_tower, gemma3.projector, gemma3.language_model):
    print(f"{part.name:16} {part.count(values):>15,}")

# %% [markdown]
# Every size, whole and its language model alone (the text_config, as `--arch Gemma3ForCausalLM` reads it).

# %%
for name in gemma3.FAMILY.checkpoints:
    whole = derivations.count(name).total
    text = derivations.count(name, "Gemma3ForCausalLM").total
    print(f"{name:16} {whole:>15,} {text:>15,} {whole - text:>13,}")
