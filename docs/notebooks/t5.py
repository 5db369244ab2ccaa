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
# # T5, step by step
#
# The derivation of the [T5 page](../t5.md), run with the `derivations` package: each formula below
# is an expression of the package, shown as it is, and each number is that expression evaluated on a
# real config. Change a size and run the cell again.

# %%
from IPython.display import Math, display

import derivations
from derivations import configs, registry, render

from derivations.families import t5
from derivations.symbols import D, H, d_h


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %% [markdown]
# One attention block: four maps without bias, through H heads of d_kv each. On T5-3B and T5-11B the
# heads are wider than the model, and the attention is bigger than four squares of the width by:

# %%
show(t5.attention_part.total, "attention")
show(t5.attention_over_square, "attention minus four squares of the width")
for name in ("t5-large", "t5-3b", "t5-11b"):
    values = registry.checkpoint(name).values
    print(f"{name:9} H d_kv = {values[H] * values[d_h]:>6,}   D = {values[D]:,}")

# %% [markdown]
# An encoder block and a decoder block (T5 1.0: ReLU feed-forward), then the gated feed-forward of
# T5 1.1, one matrix more per block:

# %%
for part in (t5.encoder_layer, t5.decoder_layer, t5.encoder_layer_gated):
    show(part.total, part.label + (" (gated)" if part is t5.encoder_layer_gated else ""))
show(t5.gate_per_block, "gated minus plain, per block")

# %% [markdown]
# A stack: its blocks, the relative position bias that its first block holds (once per stack, not
# once per block), and a final norm. Then the whole model: the shared table and both stacks. On the
# five T5 1.0 checkpoints, counted by `derivations.count` (the [Python API](../api.md)):

# %%
model = t5.ARCHITECTURES["T5ForConditionalGeneration"]
show(model.child("encoder").total, "encoder")
show(model.child("decoder").total, "decoder")
show(model.total, "T5ForConditionalGeneration")
for name in t5.V1_0_CHECKPOINTS:
    print(f"{name:9} {derivations.count(name, 'T5ForConditionalGeneration').total:>16,}")

# %% [markdown]
# T5 1.1: the checkpoint, in the layout its config asks for (gated, its own lm_head), and what
# transformers 5.x builds from the same config, the head tied. The difference is one table:

# %%
show(t5.untied_over_tied, "untied minus tied")
for name in t5.V1_1_CHECKPOINTS:
    layout = configs.READERS["t5"].layout.of(configs.load(name))
    values = registry.checkpoint(name).values
    print(f"{name:14} {layout:13} {derivations.count(name, 'T5ForConditionalGeneration').total:>16,}"
          f" {t5.T5ForConditionalGeneration_v1_1_as_built.count(values):>16,}")

# %% [markdown]
# The paper's 770M for T5-Large, against the checkpoint and against the count with the table twice:

# %%
for index, candidate in enumerate(t5.paper_large.candidates):
    print(f"{candidate.label:48} {t5.paper_large.exact(index):>14,}  rounds to 770M: {t5.paper_large.rounds(index)}")

# %% [markdown]
# Your own sizes: T5-Base's config with a decoder of 4 blocks instead of 12.

# %%
config = configs.load("t5-base") | {"num_decoder_layers": 4}
print(f"{derivations.count(config, 'T5ForConditionalGeneration').total:,}")
shallow = derivations.count(config | {"num_layers": 4}, "T5ForConditionalGeneration")
print(f"{shallow.total:,} with 4 encoder blocks too")
