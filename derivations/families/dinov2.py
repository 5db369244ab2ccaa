"""DINOv2 (Oquab et al. 2023), composed from ViT's parts, laid out as transformers' ``Dinov2Model``.

ViT's embeddings (the patch convolution, the class token, learned positions for N_p + 1 tokens) with a mask token
beside them (the D-vector a masked patch is replaced by in iBOT's masked-image objective); ViT's pre-norm layers
(``norm1`` and ``norm2``), each sublayer's output scaled channel by channel before the residual add (LayerScale, a
learned D-vector: ``layer_scale1``, ``layer_scale2``); a final LayerNorm and no pooler. The feed-forward is ViT's
(fc1, fc2) at width mlp_ratio D, or, in ViT-g/14, SwiGLU (gate, up and down, all with biases) at two thirds of that,
rounded up to a multiple of 8. The classifier reads the class token beside the mean of the patch tokens: 2D inputs.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import Part, as_kind, feed_forward, group, layer_norm, leaf, linear
from ..contract import Family, Headline
from ..readers import dinov2 as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, L, N_p, d_h, p
from . import vit

# DINOv2's ViT-S, B and L: F = 4D, heads that partition the width (the paper's ViT sizes).
STANDARD = vit.STANDARD

# ---------------------------------------------------------------------------------------------
# Embeddings: ViT's, and the mask token
# $$N_\mathrm{emb} = D + D + (C_\mathrm{in} p^2 D + D) + (N_\mathrm{p} + 1) D$$
# ---------------------------------------------------------------------------------------------

# Dinov2Embeddings.mask_token: nn.Parameter(zeros(1, D)), built unless use_mask_token is false; the forward reads it
# only where bool_masked_pos marks patches (pre-training), so it runs no product.
mask_token = replace(vit.mask_token, label="mask token (masked patches, iBOT's objective)")


def embeddings(with_mask_token: bool = True) -> Part:
    """Dinov2Embeddings: ViT's (cls_token, patch_embeddings.projection, position_embeddings), with the mask token
    under the same path as ViT's."""
    plain = vit.embeddings(with_mask_token=False)
    parts = (vit.class_token, *((mask_token,) if with_mask_token else ()), *plain.children[1:])
    return replace(plain, children=parts)


# ---------------------------------------------------------------------------------------------
# One Dinov2Layer (pre-LN, LayerScale): x + g1 * Attn(LN(x)), then x + g2 * FFN(LN(x))
# $$N_\mathrm{layer} = 2D + (3 D H d_h + 3 H d_h + H d_h D + D) + D + 2D + N_\mathrm{FFN} + D$$
# with N_FFN = 2 D F + F + D (fc1, fc2), or 3 D F + 2 F + D (SwiGLU: gate, up, down, each with a bias).
# ---------------------------------------------------------------------------------------------


def layer_scale(name: str, path: str, after: str) -> Part:
    """Dinov2LayerScale.lambda1: one learned D-vector that scales a sublayer's output channel by channel (CaiT's
    LayerScale), elementwise: no product. It belongs to the sublayer it scales (its kind)."""
    return leaf(name, f"LayerScale after {after} (a D-vector)", D, path,
                kind="attention" if after == "attention" else "feed-forward")


def mlp_of(swiglu: bool) -> Part:
    """Dinov2MLP (fc1, fc2: ViT's), or Dinov2SwiGLUFFN (gate_proj, up_proj, down_proj, all with a bias)."""
    if swiglu:
        return feed_forward(D, F, bias=True, gate="gate_proj", up="up_proj", down="down_proj", path="mlp",
                            label="feed-forward (SwiGLU)")
    return vit.layer_of().child("feed_forward")


def layer_of(swiglu: bool = False, qkv_bias: bool = True) -> Part:
    """Dinov2Layer: ViT's attention (q_proj, k_proj, v_proj with a bias unless qkv_bias is false; o_proj always),
    its norms under DINOv2's names, a LayerScale after each sublayer."""
    return group(
        "layer", "Dinov2Layer",
        layer_norm("norm1", D, "norm1", label="LayerNorm before attention"),
        vit.layer_of(qkv_bias).child("attention"),
        layer_scale("layer_scale1", "layer_scale1", "attention"),
        layer_norm("norm2", D, "norm2", label="LayerNorm before feed-forward"),
        mlp_of(swiglu),
        layer_scale("layer_scale2", "layer_scale2", "feed-forward"),
        path="encoder.layer", symbol=r"N_{\mathrm{layer}}",
    )


layer = layer_of()
# ViT's layer and two D-vectors.
assert sympy.expand(layer.total - vit.layer.total - 2 * D) == 0, "ViT's layer, its norms renamed, two LayerScales"


def encoder_of(swiglu: bool = False, qkv_bias: bool = True) -> Part:
    # L layers (Dinov2Encoder.layer), then the final LayerNorm (Dinov2Model.layernorm), as ViT's encoder.
    return group("encoder", "encoder", replace(layer_of(swiglu, qkv_bias), repeat=L),
                 layer_norm("final_norm", D, "layernorm", label="final LayerNorm"), symbol=r"N_{\mathrm{enc}}")


def body(name: str, label: str, *, swiglu: bool = False, mask: bool = True, qkv_bias: bool = True,
         path: str | None = None) -> Part:
    """Dinov2Model (and Dinov2Backbone, the same tensors): embeddings, encoder, final LayerNorm; no pooler (its
    pooled output is the class token's normed state)."""
    # It runs on one image's tokens, its patches and class token (ViT's sequence): its FLOPs hold no s.
    return group(name, label, embeddings(mask), encoder_of(swiglu, qkv_bias), path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}", tokens=vit.sequence)


# Dinov2ForImageClassification.classifier: Linear(2D, C) on [class token; mean of the patch tokens], one row an image
# (the mean is a sum, no product).
image_classifier = replace(as_kind(linear("classifier", "image classifier (class token and mean patch: 2D inputs)",
                                          2 * D, C, True, "classifier"), "heads"), tokens=sympy.Integer(1))


def architectures(swiglu: bool = False, no_mask_token: bool = False, no_qkv_bias: bool = False) -> dict[str, Part]:
    """Every DINOv2 class of transformers that a config builds, named as transformers names it."""
    sizes = dict(swiglu=swiglu, mask=not no_mask_token, qkv_bias=not no_qkv_bias)
    return {
        "Dinov2Model": body("Dinov2Model", "Dinov2Model: embeddings, encoder, final LayerNorm", **sizes),
        "Dinov2ForImageClassification": group(
            "Dinov2ForImageClassification", "DINOv2 with an image classifier",
            body("dinov2", "Dinov2Model", path="dinov2", **sizes), image_classifier,
            symbol=r"N_{\mathrm{Dinov2ForImageClassification}}"),
        # Dinov2Backbone: the model's tensors under no prefix (its feature maps are the normed states of the stages
        # out_features names: no tensor of their own).
        "Dinov2Backbone": body("Dinov2Backbone", "Dinov2Backbone: the model's tensors, feature maps out", **sizes),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.dinov2): SwiGLU, no mask token, no q/k/v biases.
VARIANTS = reader.READER.layout.variants(architectures)

# ViT-g/14's layout (use_swiglu_ffn): the released giant checkpoint.
giant = architectures(swiglu=True)["Dinov2Model"]
# Dinov2Model(use_mask_token=False): what the README's backbones hold outside pre-training, named apart for its tables.
without_mask_token = body("without_mask_token", "Dinov2Model(use_mask_token=False)", mask=False)
patch_embeddings = group("patch_embeddings", "patch embeddings", vit.patch_projection, vit.positions,
                         vit.class_token)
encoder_layers = replace(layer, repeat=L)
# The position table, (N_p + 1) D: what the image's size changes (518 pixels: 1,370 rows; 224: 257).
positions = vit.positions

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
# Against ViTModel(add_pooling_layer=False) of the same sizes: the mask token and two LayerScales a layer.
# $$N_\mathrm{DINOv2} - N_\mathrm{ViT} = D + 2 L D$$
versus_vit = sympy.expand(ARCHITECTURES["Dinov2Model"].total - vit.without_pooler.total)
assert versus_vit == sympy.expand(D + 2 * L * D), "the mask token and two D-vectors a layer"
# The SwiGLU feed-forward against the plain one at the same F: a third D-by-F map and its F biases.
# $$L (D F + F)$$
swiglu_extra = sympy.expand(giant.total - ARCHITECTURES["Dinov2Model"].total)
assert swiglu_extra == sympy.expand(L * (D * F + F)), "a third D-by-F map and its F biases, each layer"

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("oquab2023", "paper", "Oquab et al.", "DINOv2: Learning Robust Visual Features without Supervision",
           "arXiv:2304.07193 (Transactions on Machine Learning Research, 2024)", 2023,
           "https://arxiv.org/abs/2304.07193"),
    Source("dinov2-readme", "code", "Meta AI Research", "facebookresearch/dinov2 README: Pretrained models",
           "GitHub, facebookresearch/dinov2", None, "https://github.com/facebookresearch/dinov2#pretrained-models",
           read=_READ, short="the DINOv2 README's model table"),
    Source("hub-dinov2", "config", "Meta", "config.json of facebook/dinov2-small, -base, -large and -giant",
           "Hugging Face hub", None, "https://huggingface.co/facebook/dinov2-base/blob/main/config.json",
           read=_READ, short="the DINOv2 configs"),
)

_README = Citation("dinov2-readme", "Pretrained models, \"# of params\"")
# What the README's count may have meant: the released backbone as built, with or without the mask token (which the
# forward reads only in pre-training). Each row is set against its checkpoint at the hub's 518 pixels (37 x 37
# patches) and, in a second claim, at the 224 pixels DINOv2 is evaluated at (16 x 16 patches: the position table
# the README's backbones are trained with before their last, high-resolution phase).
_CONVENTIONS = (ARCHITECTURES["Dinov2Model"], without_mask_token)
_AT_224 = {N_p: 256}


def _rows(name: str, claim: int, what: str, checkpoint: str, precision: int, swiglu: bool = False
          ) -> tuple[Rounded, Rounded]:
    conventions = _CONVENTIONS if not swiglu else (
        giant, body("without_mask_token", "Dinov2Model(use_mask_token=False)", swiglu=True, mask=False))
    return (Rounded(name, claim, what + " (518 pixels)", _README, checkpoint, conventions, precision=precision),
            Rounded(f"{name}_224", claim, what + " (224 pixels)", _README, checkpoint, conventions,
                    precision=precision, overrides=_AT_224))


# "21 M", "86 M": millions; "300 M" and "1,100 M" read at their last nonzero digit (hundreds of millions), as a size
# printed in a name is read (Rounded.of_name).
small_21m, small_21m_224 = _rows("small_21m", 21_000_000, "ViT-S/14 distilled: 21 M", "dinov2-small", 10**6)
base_86m, base_86m_224 = _rows("base_86m", 86_000_000, "ViT-B/14 distilled: 86 M", "dinov2-base", 10**6)
large_300m, large_300m_224 = _rows("large_300m", 300_000_000, "ViT-L/14 distilled: 300 M", "dinov2-large", 10**8)
giant_1100m, giant_1100m_224 = _rows("giant_1100m", 1_100_000_000, "ViT-g/14: 1,100 M", "dinov2-giant", 10**8,
                                     swiglu=True)

FAMILY = Family(
    name="dinov2",
    reader=reader.READER,
    variants=VARIANTS,
    base="Dinov2Model",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # [cite: hub-dinov2]: facebook/dinov2-small, -base, -large and -giant, released as Dinov2Model (518-pixel
    # images, 14-pixel patches, mlp_ratio 4, LayerScale 1.0; SwiGLU in the giant alone). Their fields were
    # confirmed against public copies of the files: dinov2-small's whole (a test fixture of its published config,
    # transformers_version 4.32.0.dev0), dinov2-giant's whole (the main_image_encoder config of Tencent's
    # Hunyuan3D-2, which names it "dino giant"); the widths of all four in the repository's model card (384, 768,
    # 1024, 1536), ViT-L/14's depth and heads (24, 16, 518 pixels) in timm's vit_large_patch14_dinov2. dinov2-base's
    # depth and heads (12, 12) are ViT-B's, as the paper gives them: no public copy of its file was found to compare.
    checkpoints=("dinov2-small", "dinov2-base", "dinov2-large", "dinov2-giant"),
    first_published="2023-04",
    kind="vision",
    maker="Meta",
    headlines=(Headline("Dinov2Model", "dinov2-small", "S/14"),
               Headline("Dinov2Model", "dinov2-base", "B/14"),
               Headline("Dinov2Model", "dinov2-large", "L/14"),
               Headline("Dinov2Model", "dinov2-giant", "g/14")),
    example="dinov2-base",
    table_symbols=(N_p, p, D, F, L),
    table_columns={
        "Dinov2Model": "Dinov2Model",
        "patch_embeddings": "patch embeddings",
        "positions": "position table",
    },
    rounded=(small_21m, small_21m_224, base_86m, base_86m_224, large_300m, large_300m_224, giant_1100m,
             giant_1100m_224),
    ratios={d_h: (D, H)},
    sources=SOURCES,
    image_tokens=vit.sequence,
    # The same in every layout (the patches, their positions and the class token), so the table shows them for the
    # giant too.
    layout_free=("patch_embeddings", "positions"),
)
