"""GPT-1 (Radford et al. 2018), composed from the components, laid out as transformers' ``OpenAIGPTModel``.

Token and learned position embeddings, then post-LN blocks (attention, residual, LayerNorm;
feed-forward, residual, LayerNorm) with no final LayerNorm, and a language-model head tied to the
token embedding. The feed-forward is four times the width in transformers' code (``MLP(4 * n_embd)``),
not a config field, so every count here is a polynomial in D, L, V and P alone.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from ..claims import Rounded
from ..components import (Part, as_kind, feed_forward, fused_attention, group, layer_norm, linear, score, tied_tensor,
                         token_and_position_embeddings)
from .gpt2 import multiple_choice_head
from ..readers import gpt1 as reader
from ..sources import Citation
from ..symbols import C, D, H, L, P, V


embeddings = token_and_position_embeddings(V, P, D, tokens="tokens_embed", positions="positions_embed")

# One block (post-LN, as in the original Transformer's encoder):
# $$N_\mathrm{block} = (3D^2 + 3D + D^2 + D) + 2D + (8D^2 + 5D) + 2D = 12D^2 + 13D$$
layer = group(
    "block", "block",
    fused_attention(D, qkv="c_attn", output="c_proj", path="attn", label="causal self-attention", causal=True),
    layer_norm("attention_norm", D, "ln_1", label="LayerNorm after attention"),
    feed_forward(D, 4 * D, up="c_fc", down="c_proj", path="mlp", label="feed-forward (4D wide)"),
    layer_norm("feed_forward_norm", D, "ln_2", label="LayerNorm after the feed-forward"),
    path="h", symbol=r"N_{\mathrm{block}}",
)


def transformer(name: str = "transformer", label: str = "OpenAIGPTModel: embeddings and blocks",
                path: str | None = "transformer") -> Part:
    # L blocks with weights of their own, and no LayerNorm after the last one.
    return group(name, label, embeddings, replace(layer, repeat=L), path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")


lm_head = as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                              "transformer.tokens_embed", "lm_head", matrix=D * V), "heads")
lm_head_untied = as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V,
                                False, "lm_head"), "heads")


def architectures(untied: bool = False, summary: str = "") -> dict[str, Part]:
    """Every GPT-1 class of transformers, named as transformers names it."""
    head = lm_head_untied if untied else lm_head

    def model(name: str, label: str, *heads: Part) -> Part:
        return group(name, label, transformer(), *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "OpenAIGPTModel": transformer("OpenAIGPTModel", "OpenAIGPTModel: embeddings and blocks", path=None),
        "OpenAIGPTLMHeadModel": model("OpenAIGPTLMHeadModel", "GPT-1 with its language-model head", head),
        "OpenAIGPTDoubleHeadsModel": model("OpenAIGPTDoubleHeadsModel",
                                           "GPT-1 with the language-model and multiple-choice heads", head,
                                           *multiple_choice_head(summary)),
        "OpenAIGPTForSequenceClassification": model(
            "OpenAIGPTForSequenceClassification", "GPT-1 with a sequence classifier (last token, no bias)",
            score(D, C)),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.gpt1.READER.layout): an untied head, and the multiple-choice
# summary's shape (as GPT-2's).
VARIANTS = reader.READER.layout.variants(architectures)


# The GPT-2 paper sizes its smallest model against GPT-1; for GPT-1 itself the figure holds.
_GPT2_PAPER = Citation("radford2019", "Table 2 and section 3")
original_117m = Rounded("original_117m", 117_000_000,
                        "117M, the smallest model, ‘equivalent to the original GPT’", _GPT2_PAPER, "openai-gpt",
                        (ARCHITECTURES["OpenAIGPTModel"],), printed="117M")


FAMILY = Family(
    name="gpt1",
    reader=reader.READER,
    variants=VARIANTS,
    base="OpenAIGPTModel",
    # The one checkpoint: openai-gpt on the Hugging Face hub (openai-community/openai-gpt).
    checkpoints=("openai-gpt",),
    first_published="2018-06",
    headlines=(Headline("OpenAIGPTLMHeadModel", "openai-gpt"),),
    example="openai-gpt",
    table_symbols=(V, P, L, D, H),
    table_columns={"OpenAIGPTModel": "OpenAIGPTModel", "OpenAIGPTDoubleHeadsModel": "DoubleHeadsModel"},
    rounded=(original_117m,),
)
