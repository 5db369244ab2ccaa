"""LLaVA-1.5 (Liu et al. 2023), laid out as transformers' ``LlavaForConditionalGeneration``.

Three parts: CLIP's vision tower (``derivations.clip``: ViT-L/14 at 336 pixels, 24 x 24 = 576 patches and the class
token), a projector of two linear maps with a GELU between them (the paper's "MLP connector", where the first LLaVA
had one matrix), which turns each patch's state at the tower's next-to-last layer into one token of the language
model's width, and the language model (``derivations.llama``: Vicuna v1.5, LLaMA 2's architecture), which reads the
image's N_i tokens among its s; then the head, a matrix of its own.
"""

from __future__ import annotations

import sympy

from ..claims import Rounded
from ..components import Part, group, linear
from ..contract import Family, Headline
from ..readers import llava as reader
from ..sources import Citation, Source, declare
from ..symbols import D, D_v, L, L_v, N_i, N_p, V, p
from . import _composite, clip, llama

# ---------------------------------------------------------------------------------------------
# The vision tower: CLIPVisionModel (its parameters the tower's module's own: embeddings, pre_layrnorm, encoder,
# post_layernorm). Every layer runs, and the post-LayerNorm on the class token's state, although the projector reads
# the states of layer vision_feature_layer (-2: the next-to-last): the last layer's parameters count and compute.
# ---------------------------------------------------------------------------------------------

vision_tower = _composite.tower(clip.vision_tower, "vision_tower")

# ---------------------------------------------------------------------------------------------
# The projector (LlavaMultiModalProjector): linear_1 D_v -> D, the activation (GELU), linear_2 D -> D, each with a
# bias (multimodal_projector_bias), on the image's N_i states
# $$N_\mathrm{projector} = (D_\mathrm{v} D + D) + (D^2 + D)$$
# ---------------------------------------------------------------------------------------------


def projector_of(bias: bool = True) -> Part:
    return group("projector", "multimodal projector (two linear maps, GELU between)" + ("" if bias else ", no biases"),
                 linear("linear_1", "linear_1: the tower's width to the language model's", D_v, D, bias, "linear_1"),
                 linear("linear_2", "linear_2: the language model's width to itself", D, D, bias, "linear_2"),
                 path="multi_modal_projector", kind="heads", tokens=N_i, symbol=r"N_{\mathrm{proj}}")


projector = projector_of()


def architectures(attention_bias: bool = False, mlp_bias: bool = False, tied: bool = False,
                  no_projector_bias: bool = False) -> dict[str, Part]:
    """The classes transformers builds for a llava config: LlavaModel (the three parts) and
    LlavaForConditionalGeneration (with the head)."""
    text = llama.architectures(attention_bias=attention_bias, mlp_bias=mlp_bias)["LlamaModel"]
    body = group("model", "LlavaModel: vision tower, projector, language model", vision_tower,
                 projector_of(not no_projector_bias), _composite.language_model(text), path="model",
                 symbol=r"N_{\mathrm{LlavaModel}}")

    def model(name: str, label: str, *parts: Part) -> Part:
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        # The base model is the body itself (its parameters without the model. prefix).
        "LlavaModel": model("LlavaModel", "LLaVA: vision tower, projector, language model", *body.children),
        "LlavaForConditionalGeneration": model("LlavaForConditionalGeneration", "with the language-model head", body,
                                               _composite.lm_head(tied)),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# The three parts a reader asks about, as every release builds them.
language_model = ARCHITECTURES["LlavaForConditionalGeneration"].child("model").child("language_model")

# ---------------------------------------------------------------------------------------------
# Published figures: the paper's names
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("liu2023-llava15", "paper", "Liu, Li, Li and Lee", "Improved Baselines with Visual Instruction Tuning",
           "arXiv:2310.03744 (CVPR 2024)", 2023, "https://arxiv.org/abs/2310.03744", short="LLaVA-1.5"),
    Source("hub-llava-hf", "config", "Hugging Face (llava-hf)",
           "config.json of llava-hf/llava-1.5-7b-hf and llava-1.5-13b-hf", "Hugging Face hub", None,
           "https://huggingface.co/llava-hf/llava-1.5-7b-hf/blob/main/config.json", read="2026-11-26",
           short="the LLaVA-1.5 configs"),
    Source("nethercott-llava", "code", "Nate Nethercott", "src/content/blog/llava.md: fine-tuning LLaVA, the parameters "
           "of llava-hf/llava-1.5-7b-hf as loaded", "GitHub, nnethercott/nnethercott.github.io", None,
           "https://github.com/nnethercott/nnethercott.github.io/blob/main/src/content/blog/llava.md",
           revision="https://github.com/nnethercott/nnethercott.github.io/blob/f87794f1f2b5d40648c95e024a9c7e6d341dd00d/"
                    "src/content/blog/llava.md", short="a post that loads the 7B checkpoint"),
)

# The hub's 7B checkpoint loaded by transformers and its parameters summed (sum(p.numel() ...)): exact.
_LOADED = Citation("nethercott-llava", "<code>n = sum(p.numel() for p in model.parameters()) # 7063427072</code>")
loaded_7b = Rounded("loaded_7b", 7_063_427_072, "llava-hf/llava-1.5-7b-hf, loaded", _LOADED, "llava-1.5-7b-hf",
                    (ARCHITECTURES["LlavaForConditionalGeneration"],), precision=1, printed="7063427072")

# The paper names its models by their language models' sizes (Vicuna-7B, Vicuna-13B): "LLaVA-1.5 7B" and "13B".
_NAMES = Citation("liu2023-llava15", "Table 3 and Table 4, “LLaVA-1.5” 7B and 13B")
_WHOLE = ARCHITECTURES["LlavaForConditionalGeneration"]
paper_7b = Rounded.of_name("paper_7b", "7B", "LLaVA-1.5 7B", _NAMES, "llava-1.5-7b-hf", (_WHOLE, language_model))
paper_13b = Rounded.of_name("paper_13b", "13B", "LLaVA-1.5 13B", _NAMES, "llava-1.5-13b-hf", (_WHOLE, language_model))

FAMILY = Family(
    name="llava",
    reader=reader.READER,
    variants=VARIANTS,
    base="LlavaModel",
    # llava-hf/llava-1.5-7b-hf and -13b-hf's config.json as published [cite: hub-llava-hf]: the vision_config of both
    # (CLIP ViT-L/14 at 336 pixels), vision_feature_layer -2, the "default" strategy (no class token), and each
    # text_config (Vicuna v1.5 7B and 13B, LLaMA's layout, a vocabulary of 32,064: LLaMA's 32,000 and the image's and
    # padding's tokens, padded to a multiple of 64).
    checkpoints=("llava-1.5-7b-hf", "llava-1.5-13b-hf"),
    first_published="2023-04",
    kind="vision",
    # Liu, Li, Li and Lee: the University of Wisconsin-Madison (first and last authors) and Microsoft Research.
    maker="UW-Madison",
    headlines=(Headline("LlavaForConditionalGeneration", "llava-1.5-7b-hf", "7B"),
               Headline("LlavaForConditionalGeneration", "llava-1.5-13b-hf", "13B")),
    example="llava-1.5-7b-hf",
    table_symbols=(L, D, V, L_v, D_v, N_p, p, N_i),
    table_columns={"LlavaForConditionalGeneration": "LlavaForConditionalGeneration", "vision_tower": "vision tower",
                   "projector": "projector", "language_model": "language model"},
    rounded=(loaded_7b, paper_7b, paper_13b),
    sources=SOURCES,
    layout_free=("vision_tower", "language_model", "projector"),
)

assert sympy.expand(ARCHITECTURES["LlavaModel"].total + D * V
                    - ARCHITECTURES["LlavaForConditionalGeneration"].total) == 0
