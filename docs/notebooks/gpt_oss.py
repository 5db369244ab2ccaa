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
# # gpt-oss, step by step
#
# The derivation of the [gpt-oss page](../gpt_oss.md), run with the `derivations` package: the attention with
# its sinks, the experts with their biases, and the model card's lines. Change a size and run the cell again.

# %%
from IPython.display import Math, display

from derivations import configs, registry, render

from derivations.families import gpt_oss


def show(expression, name=""):
    """An expression of the package as a formula, named (in words) when a name is given."""
    display(Math((rf"\text{{{name}}} = " if name else "") + render.latex(expression)))


# %%
show(gpt_oss.attention_block.total, "attention")
show(gpt_oss.expert.total, "one expert")
show(gpt_oss.moe.total, "the mixture of experts")

# %% [markdown]
# The model card's lines for both models, exact:

# %%
for name in gpt_oss.FAMILY.checkpoints:
    values = registry.checkpoint(name).values
    for part in (gpt_oss.mlp_parameters, gpt_oss.attention_parameters, gpt_oss.embed_unembed, gpt_oss.norms,
                 gpt_oss.active_without_embedding, gpt_oss.ARCHITECTURES["GptOssForCausalLM"]):
        print(f"{name:13} {part.label:55} {part.count(values):>16,}")
