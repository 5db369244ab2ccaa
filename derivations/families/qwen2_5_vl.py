"""Qwen2.5-VL (Qwen Team 2025), laid out as transformers' ``Qwen2_5_VLForConditionalGeneration``.

Three parts: a vision transformer of its own (``visual``: a patch convolution over p_t frames of p by p pixels, L_v
pre-norm blocks of RMSNorm, attention with one fused q, k, v map and biases, RMSNorm and a gated feed-forward with
biases; windowed attention in most blocks and full attention in four, which changes no tensor), a merger that joins
each S_m by S_m square of patches into one token (RMSNorm, then a two-layer MLP from S_m^2 D_v to D_o, the language
model's width), and Qwen2.5's language model (``derivations.qwen2``'s Qwen2Model: biases on q, k and v), which reads
the image's tokens among its s; then the head, tied to the token embeddings in the 3B model only.

How many tokens one image is depends on the image (the processor resizes it to a grid of patches: image_grid_thw),
not on the config: the counts here need none; the FLOPs of the classes that read an image are of one image whose size
the user gives (``--image HxW``: derivations.readers.qwen2_5_vl.image gives N_p, N_i and A_v).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import Op, Part, fused_attention, feed_forward, group, leaf, linear, rms_norm
from ..contract import Family, Headline
from ..readers import qwen2_5_vl as reader
from ..sources import Citation, Source, declare
from ..symbols import A_v, C_i, D, D_o, D_v, F_v, H, L, L_v, N_i, N_p, S_m, V, d_h, p, p_t
from . import _composite, qwen2

# ---------------------------------------------------------------------------------------------
# The vision transformer (Qwen2_5_VisionTransformerPretrainedModel)
# ---------------------------------------------------------------------------------------------

# The patch embedding: a Conv3d without bias, kernel and stride (p_t, p, p), from C_i channels to D_v
# $$N_\mathrm{patch} = C_\mathrm{in} p_\mathrm{t} p^2 D_\mathrm{v}$$
patch_embedding = leaf("patch_embedding", "patch embedding (a Conv3d over p_t frames of p x p pixels, no bias)",
                       C_i * p_t * p**2 * D_v, "patch_embed.proj", kind="embeddings", matrix=C_i * p_t * p**2 * D_v)

# One block (Qwen2_5_VLVisionBlock): RMSNorm, attention (qkv fused, D_v to 3 D_v, and proj, both with biases: its
# heads split the width, so H_v sets no tensor), RMSNorm, a gated feed-forward with biases
# $$N_\mathrm{block} = 2 D_\mathrm{v} + (3 D_\mathrm{v}^2 + 3 D_\mathrm{v}) + (D_\mathrm{v}^2 + D_\mathrm{v})
#   + 3 D_\mathrm{v} F_\mathrm{v} + 2 F_\mathrm{v} + D_\mathrm{v}$$
block = group("block", "vision block",
              rms_norm("attention_norm", D_v, "norm1", label="RMSNorm before attention"),
              # Its products between activations are the tower's (window_attention below): a block attends within
              # windows or over the whole image, as fullatt_block_indexes says.
              replace(fused_attention(D_v, qkv="qkv", output="proj", path="attn",
                                      label="self-attention (q, k, v fused; windowed or full: the same tensors)"),
                      ops=()),
              rms_norm("feed_forward_norm", D_v, "norm2", label="RMSNorm before the feed-forward"),
              feed_forward(D_v, F_v, up="up_proj", down="down_proj", gate="gate_proj", path="mlp",
                           label="gated (SwiGLU) feed-forward, with biases"),
              path="blocks", symbol=r"N_{\mathrm{block}}")

# The merger (Qwen2_5_VLPatchMerger): RMSNorm over D_v, then each S_m x S_m square of patches, concatenated
# (S_m^2 D_v), through Linear, GELU, Linear to D_o
# $$N_\mathrm{merger} = D_\mathrm{v} + (S_\mathrm{m}^2 D_\mathrm{v})^2 + S_\mathrm{m}^2 D_\mathrm{v}
#   + S_\mathrm{m}^2 D_\mathrm{v} D_\mathrm{o} + D_\mathrm{o}$$
_JOINED = S_m**2 * D_v
projector = group("projector", "merger (RMSNorm, then an MLP over each S_m x S_m square of patches)",
                  rms_norm("norm", D_v, "ln_q", label="RMSNorm of each patch's state"),
                  linear("fc1", "first linear map of the joined patches (S_m by S_m of D_v each, to as many)", _JOINED, _JOINED,
                         True, "mlp.0"),
                  linear("fc2", "second linear map, to the language model's width D_o", _JOINED, D_o, True, "mlp.2"),
                  path="merger", kind="heads", tokens=N_i, symbol=r"N_{\mathrm{merger}}")


# The blocks' attention products, over the A_v query-key pairs of one image summed over the L_v blocks (a windowed
# block's windows each attend alone, as the eager attention splits them by cu_seqlens; a full block's image whole):
# the heads split D_v, so each pair costs 2 D_v FLOPs for the scores and as many for the weighted values
# $$C_\mathrm{scores} = C_\mathrm{values} = 2 D_\mathrm{v} A_\mathrm{v}$$
window_attention = (Op("attention_scores", "the blocks' attention scores (each patch against the patches of its "
                       "window, or of the image in a full-attention block)", 2 * D_v, A_v, queries=1, in_layers=True),
                    Op("attention_values", "the blocks' weighted sums of the values (over the same pairs)",
                       2 * D_v, A_v, queries=1, in_layers=True))


def vision_transformer(path: str | None) -> Part:
    """Qwen2_5_VisionTransformerPretrainedModel, on one image's N_p patches (rotary positions: a buffer, no
    parameter); the merger, its last module, is the composite's projector."""
    return group("vision_tower", "vision transformer (patch embedding, blocks; its merger is the projector)",
                 patch_embedding, replace(block, repeat=L_v), projector, path=path, tokens=N_p,
                 symbol=r"N_{\mathrm{visual}}", ops=window_attention)


def architectures(tied: bool = False) -> dict[str, Part]:
    """The classes transformers 5.23 builds for a qwen2_5_vl config: the whole model (Qwen2_5_VLModel, with the head
    Qwen2_5_VLForConditionalGeneration), the language model alone (Qwen2_5_VLTextModel, built from the text config:
    Qwen2's body), and the vision transformer alone (built from vision_config)."""
    text = qwen2.architectures()["Qwen2Model"]
    visual = vision_transformer("visual")
    body = group("model", "Qwen2_5_VLModel: vision transformer and merger, language model", visual,
                 _composite.language_model(text), path="model", symbol=r"N_{\mathrm{Qwen2\_5\_VLModel}}")

    def model(name: str, label: str, *parts: Part) -> Part:
        escaped = name.replace("_", r"\_")
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{escaped}}}}}")

    return {
        # The base model is the body itself (its parameters without the model. prefix).
        "Qwen2_5_VLModel": model("Qwen2_5_VLModel", "Qwen2.5-VL: vision transformer, merger, language model",
                                 *body.children),
        "Qwen2_5_VLForConditionalGeneration": model("Qwen2_5_VLForConditionalGeneration",
                                                    "with the language-model head", body,
                                                    _composite.lm_head(tied)),
        "Qwen2_5_VLTextModel": replace(text, name="Qwen2_5_VLTextModel",
                                       label="Qwen2_5_VLTextModel: the language model alone (Qwen2's body)",
                                       symbol=r"N_{\mathrm{Qwen2\_5\_VLTextModel}}"),
        "Qwen2_5_VisionTransformerPretrainedModel": replace(
            vision_transformer(None), name="Qwen2_5_VisionTransformerPretrainedModel",
            label="the vision transformer alone, its merger included",
            symbol=r"N_{\mathrm{Qwen2\_5\_VisionTransformer}}"),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# The three parts a reader asks about (the same in every layout).
_BODY = ARCHITECTURES["Qwen2_5_VLForConditionalGeneration"].child("model")
vision_tower = group("vision_tower", "vision transformer without its merger", patch_embedding,
                     replace(block, repeat=L_v), symbol=r"N_{\mathrm{ViT}}")
language_model = _BODY.child("language_model")
vision_encoder = _BODY.child("vision_tower")

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled: the names' sizes
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("qwen2.5-vl-2025", "paper", "Qwen Team (Bai, S. et al.)", "Qwen2.5-VL Technical Report",
           "arXiv:2502.13923", 2025, "https://arxiv.org/abs/2502.13923", short="the Qwen2.5-VL report"),
    Source("hub-qwen2.5-vl", "config", "Qwen Team (Alibaba)", "Qwen/Qwen2.5-VL-3B-Instruct, -7B-Instruct and "
           "-72B-Instruct: config.json and model cards", "Hugging Face, Qwen", 2025,
           "https://huggingface.co/collections/Qwen/qwen25-vl", read="2026-11-26",
           short="the Qwen2.5-VL checkpoints on the Hugging Face hub"),
)

_NAME = Citation("hub-qwen2.5-vl", "the models' names (3B, 7B, 72B)")
_WHOLE = ARCHITECTURES["Qwen2_5_VLForConditionalGeneration"]
_TIED = VARIANTS["tied"]["Qwen2_5_VLForConditionalGeneration"]
# A name's size, set against the whole model and against its language model alone (the Qwen2.5 model it is built on).
name_3b = Rounded.of_name("name_3b", "3B", "Qwen2.5-VL-3B", _NAME, "qwen2.5-vl-3b-instruct", (_TIED, language_model))
name_7b = Rounded.of_name("name_7b", "7B", "Qwen2.5-VL-7B", _NAME, "qwen2.5-vl-7b-instruct", (_WHOLE, language_model))
name_72b = Rounded.of_name("name_72b", "72B", "Qwen2.5-VL-72B", _NAME, "qwen2.5-vl-72b-instruct",
                           (_WHOLE, language_model))

# The hub's own count of the 7B checkpoint's tensors (its model API's numParameters, from the safetensors files):
# the whole model, exactly.
hub_7b = Rounded("hub_7b", 8_292_166_656, "Qwen2.5-VL-7B-Instruct, the hub's parameter count",
                 Citation("hub-qwen2.5-vl", "Qwen/Qwen2.5-VL-7B-Instruct, numParameters"), "qwen2.5-vl-7b-instruct",
                 (_WHOLE,), precision=1, printed="8292166656")

FAMILY = Family(
    name="qwen2_5_vl",
    reader=reader.READER,
    variants=VARIANTS,
    base="Qwen2_5_VLModel",
    # Qwen/Qwen2.5-VL-3B-Instruct, -7B-Instruct and -72B-Instruct's config.json as published [cite: hub-qwen2.5-vl]:
    # the language model's fields at the top level (as Qwen2's), one vision_config for the three (32 blocks of width
    # 1280, patches of 14 over 2 frames, merged 2 x 2) but for out_hidden_size, each model's width. The 72B's file
    # was not found in a public copy: its config is assembled from Qwen2.5-72B's language model (the same sizes, as
    # the report gives them) and the shared tower, out_hidden_size its width.
    checkpoints=("qwen2.5-vl-3b-instruct", "qwen2.5-vl-7b-instruct", "qwen2.5-vl-72b-instruct"),
    first_published="2025-02",
    kind="vision",
    maker="Alibaba",
    headlines=(Headline("Qwen2_5_VLForConditionalGeneration", "qwen2.5-vl-7b-instruct", "7B"),
               Headline("Qwen2_5_VLForConditionalGeneration", "qwen2.5-vl-72b-instruct", "72B")),
    example="qwen2.5-vl-7b-instruct",
    table_symbols=(L, D, V, L_v, D_v, p, S_m),
    table_columns={"Qwen2_5_VLForConditionalGeneration": "Qwen2_5_VLForConditionalGeneration",
                   "vision_tower": "vision tower", "projector": "merger", "language_model": "language model"},
    rounded=(name_3b, name_7b, name_72b, hub_7b),
    # Qwen2_5_VLAttention's heads are hidden_size // num_attention_heads, whatever head_dim says.
    ratios={d_h: (D, H)},
    sources=SOURCES,
    layout_free=("vision_tower", "language_model", "vision_encoder", "projector", "patch_embedding", "block"),
)

assert sympy.expand(ARCHITECTURES["Qwen2_5_VLModel"].total - _WHOLE.total
                    + ARCHITECTURES["Qwen2_5_VLForConditionalGeneration"].child("lm_head").total) == 0
assert {N_p, N_i}.isdisjoint(_WHOLE.total.free_symbols)  # the counts need no image
