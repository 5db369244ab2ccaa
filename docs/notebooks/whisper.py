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
# # Whisper, step by step
#
# The derivation of the [Whisper page](../whisper.md), run with the `derivations` package: each formula below is
# an expression of the package, and each number that expression evaluated on a real config.

# %%
from IPython.display import Math, display

import derivations
from derivations import registry, render

from derivations.families import whisper


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    name = name.replace("_", r"\_")
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# The two convolutions over the mel bins, the encoder's layer, the decoder's layer, and what `parameters()` holds
# beyond the learned count: the encoder's frozen sinusoidal table.

# %%
show(whisper.convolutions.total, "convolutions")
show(whisper.layer.total, "encoder layer")
show(whisper.cross_layer.total, "decoder layer")
show(whisper.frozen_positions, "frozen positions")
values = registry.checkpoint("whisper-large-v3").values
print(f"whisper-large-v3: {whisper.ARCHITECTURES['WhisperForConditionalGeneration'].count(values):,} learned, "
      f"{int(whisper.parameters_with_frozen.subs(values)):,} in parameters()")

# %% [markdown]
# Every class on every bundled checkpoint.

# %%
for name in whisper.FAMILY.checkpoints:
    for architecture in whisper.ARCHITECTURES:
        print(f"{name:18} {architecture:34} {derivations.count(name, architecture).total:>15,}")

# %% [markdown]
# The FLOPs of one window and a text of 100 tokens, and of one generated token after them: the encoder ran once.

# %%
result = derivations.flop_count("whisper-small", 100)
print(f"forward {result.forward:,}; one more token {result.decode['flops']:,}")
