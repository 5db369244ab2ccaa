"""ViT (Dosovitskiy et al. 2021), composed from the components, laid out as transformers' ``ViTModel``.

An image of C_i channels is cut into N_p square patches of p by p pixels; a convolution whose kernel and stride are
the patch (ViTPatchEmbeddings.projection) maps each patch to a D-wide token; a learned class token is put first and
a learned position embedding added to each of the N_p + 1 tokens. Then BERT's encoder, pre-norm (each sublayer reads
a LayerNorm of the stream: ``layernorm_before``, ``layernorm_after``), a final LayerNorm, and BERT's pooler on the
class token. The heads: a linear classifier on the class token's state (without pooler), and SimMIM's masked image
modelling head (a 1 x 1 convolution from each patch's state to S^2 C_i values, which PixelShuffle lays out as pixels).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, classifier, feed_forward, group, layer_norm,
                          leaf, pooler as linear_pooler)
from ..contract import Family, Headline
from ..readers import vit as reader
from ..sources import Citation, Source, declare
from ..symbols import C, C_i, D, D_p, F, H, L, N_p, S, d_h, p
from . import bert

# ViT-Base's shapes: F = 4D, and heads that partition the width (ViT's Table 1: every size keeps both).
STANDARD = bert.STANDARD

# ---------------------------------------------------------------------------------------------
# Embeddings: the patches, the class token and the positions
# $$N_\mathrm{emb} = (C_\mathrm{in} p^2 D + D) + D + (N_\mathrm{p} + 1) D$$
# ---------------------------------------------------------------------------------------------

# ViTPatchEmbeddings.projection = nn.Conv2d(C_i, D, kernel_size=p, stride=p): a linear map of each patch's C_i p^2
# pixels to D, with a bias; it runs once a patch (N_p rows an image), as a matrix of C_i p^2 by D.
patch_projection = replace(
    leaf("patch_projection", "patch embedding (a convolution: kernel and stride p)", C_i * p**2 * D + D,
         "patch_embeddings.projection", kind="embeddings", matrix=C_i * p**2 * D, tensors=(C_i * p**2 * D, D)),
    tokens=N_p)
# ViTEmbeddings.cls_token: one learned D-vector, the first token of every image.
class_token = leaf("class_token", "class token", D, "cls_token", kind="embeddings")
# ViTEmbeddings.position_embeddings: one learned D-vector a token, the class token's included.
positions = leaf("positions", "learned position embeddings (N_p + 1 rows)", (N_p + 1) * D, "position_embeddings",
                 kind="embeddings")
# ViTEmbeddings(use_mask_token=True): the D-vector a masked patch is replaced by (masked image modelling alone).
mask_token = leaf("mask_token", "mask token (masked image modelling)", D, "mask_token", kind="embeddings")


def embeddings(with_mask_token: bool = False) -> Part:
    parts = (class_token, *((mask_token,) if with_mask_token else ()), patch_projection, positions)
    return group("embeddings", "embeddings", *parts, path="embeddings", symbol=r"N_{\mathrm{emb}}", kind="embeddings")


# The tokens an image is: its patches and the class token.
sequence = N_p + 1

# ---------------------------------------------------------------------------------------------
# One ViTLayer (pre-LN): LayerNorm, attention, add; LayerNorm, feed-forward, add
# $$N_\mathrm{layer} = 2D + (3 D H d_h + 3 H d_h + H d_h D + D) + 2D + (2 D F + F + D) = 12 D^2 + 13 D$$
# when F = 4D and H d_h = D: BERT's layer, its two LayerNorms before the sublayers rather than after.
# ---------------------------------------------------------------------------------------------


def layer_of(qkv_bias: bool = True) -> Part:
    """ViTLayer: q_proj, k_proj, v_proj (with a bias unless qkv_bias is false) and o_proj (always a bias)."""
    return group(
        "layer", "ViTLayer",
        layer_norm("norm_before", D, "layernorm_before", label="LayerNorm before attention"),
        attention(D, H, d_h, bias=qkv_bias, output_bias=True, layout=AttentionLayout("q_proj", "k_proj", "v_proj",
                                                                                      "o_proj"),
                  path="attention", label="self-attention"),
        layer_norm("norm_after", D, "layernorm_after", label="LayerNorm before feed-forward"),
        feed_forward(D, F, up="fc1", down="fc2", path="mlp"),
        path="layers", symbol=r"N_{\mathrm{layer}}",
    )


layer = layer_of()
assert layer.subs(STANDARD).total == bert.layer.subs(STANDARD).total, "BERT's layer: the same tensors, norms moved"


def encoder_of(qkv_bias: bool = True) -> Part:
    # L layers, each with weights of its own (ViTModel.layers), then the final LayerNorm (ViTModel.layernorm).
    return group("encoder", "encoder", replace(layer_of(qkv_bias), repeat=L),
                 layer_norm("final_norm", D, "layernorm", label="final LayerNorm"), symbol=r"N_{\mathrm{enc}}")


encoder = encoder_of()

# ViTPooler: BERT's, dense and tanh on the class token, its width pooler_output_size (D_p, D by default).
pooler = replace(linear_pooler(D), expr=D * D_p + D_p, matrix=D * D_p, tensors=(D * D_p, D_p),
                 shape=(1, 1, D, D_p))

# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------

# ViTForImageClassification.classifier: C logits from the class token's state (one row an image; no pooler).
image_classifier = replace(classifier(D, C, "classifier", label="image classifier (on the class token)"),
                           tokens=sympy.Integer(1))
# ViTForMaskedImageModeling.decoder: Conv2d(D, S^2 C_i, kernel_size=1) on each patch's state, then PixelShuffle(S)
# (no parameters): S^2 C_i values a patch, laid out as an S x S block of pixels of each channel.
reconstruction = replace(as_kind(leaf(
    "reconstruction", "pixel decoder (a 1 x 1 convolution to S^2 C_in values a patch)", D * S**2 * C_i + S**2 * C_i,
    "decoder.0", matrix=D * S**2 * C_i, tensors=(D * S**2 * C_i, S**2 * C_i)), "heads"), tokens=N_p)


def body(name: str, label: str, qkv_bias: bool, *, with_pooler: bool, with_mask_token: bool = False,
         path: str | None = None) -> Part:
    """ViTModel: embeddings, encoder (its final LayerNorm included) and, with add_pooling_layer (its default), the
    pooler; use_mask_token adds the mask token."""
    parts = [embeddings(with_mask_token), encoder_of(qkv_bias)] + ([pooler] if with_pooler else [])
    # It runs on one image's tokens, whatever the length of a text beside it: its FLOPs hold no s.
    return group(name, label, *parts, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}", tokens=sequence)


def architectures(no_qkv_bias: bool = False) -> dict[str, Part]:
    """Every ViT class of transformers that a config builds, named as transformers names it."""
    bias = not no_qkv_bias

    def inner(with_mask_token: bool = False) -> Part:
        return body("vit", "ViTModel(add_pooling_layer=False" + (", use_mask_token=True)" if with_mask_token else ")"),
                    bias, with_pooler=False, with_mask_token=with_mask_token, path="vit")

    return {
        "ViTModel": body("ViTModel", "ViTModel: embeddings, encoder, pooler", bias, with_pooler=True),
        "ViTForImageClassification": group("ViTForImageClassification", "ViT with an image classifier",
                                           inner(), image_classifier, symbol=r"N_{\mathrm{ViTForImageClassification}}"),
        "ViTForMaskedImageModeling": group("ViTForMaskedImageModeling", "ViT with SimMIM's pixel decoder",
                                           inner(True), reconstruction,
                                           symbol=r"N_{\mathrm{ViTForMaskedImageModeling}}"),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.vit): queries, keys and values without biases.
VARIANTS = reader.READER.layout.variants(architectures)

# ViTModel(config, add_pooling_layer=False): the backbone under both heads, and the count most tables give.
without_pooler = body("without_pooler", "ViTModel(add_pooling_layer=False): embeddings, encoder", True,
                      with_pooler=False)
patch_embeddings = group("patch_embeddings", "patch embeddings", patch_projection, positions, class_token)
encoder_layers = replace(layer, repeat=L)

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
without_pooler_standard = without_pooler.subs(STANDARD)
# Against BertModel(add_pooling_layer=False) of the same sizes: no word, position or token-type tables and no
# embedding LayerNorm; the patches' map, the class token and N_p + 1 positions; one final LayerNorm.
# $$N_\mathrm{ViT} - N_\mathrm{BERT} = (C_\mathrm{in} p^2 D + D) + D + (N_\mathrm{p} + 1) D + 2D - (V + P + T) D - 2D$$
versus_bert = without_pooler.total - bert.ARCHITECTURES["BertModelWithoutPooler"].total

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("dosovitskiy2021", "paper", "Dosovitskiy et al.",
           "An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale", "ICLR 2021", 2021,
           "https://arxiv.org/abs/2010.11929"),
    Source("torchvision-vit", "code", "PyTorch", "torchvision/models/vision_transformer.py: the weights' num_params",
           "GitHub, pytorch/vision", None,
           "https://github.com/pytorch/vision/blob/main/torchvision/models/vision_transformer.py", read=_READ,
           short="torchvision's ViT weights"),
    Source("hub-vit", "config", "Google", "config.json of google/vit-base-patch16-224 and its siblings",
           "Hugging Face hub", None, "https://huggingface.co/google/vit-base-patch16-224/blob/main/config.json",
           read=_READ, short="the ViT configs"),
)

_TABLE1 = Citation("dosovitskiy2021", "Table 1")
_TORCHVISION = Citation("torchvision-vit", "ViT_B_16_Weights and ViT_L_16_Weights")
# What "the model's parameters" may have meant: the backbone, with its pooler, with the 1,000 ImageNet classes.
_CONVENTIONS = (without_pooler, ARCHITECTURES["ViTModel"], ARCHITECTURES["ViTForImageClassification"])
# Table 1 gives no patch size: each row is set against the released model of its size with 16-pixel patches (14 for
# Huge), and 1,000 classes for the classifier.
IMAGENET = {C: 1000}
base_86m = Rounded("base_86m", 86_000_000, "ViT-Base: 12 layers, hidden size 768, MLP size 3072, 12 heads, 86M",
                   _TABLE1, "vit-base-patch16-224-in21k", _CONVENTIONS, overrides=IMAGENET)
large_307m = Rounded("large_307m", 307_000_000, "ViT-Large: 24 layers, hidden size 1024, MLP size 4096, 16 heads, "
                     "307M", _TABLE1, "vit-large-patch16-224", _CONVENTIONS, overrides=IMAGENET)
# ViT-L/32: the same row with 32-pixel patches (7 x 7 of them at 224 pixels).
large_307m_patch32 = Rounded("large_307m_patch32", 307_000_000, "ViT-Large (with 32-pixel patches): 307M",
                             _TABLE1, "vit-large-patch16-224", _CONVENTIONS,
                             overrides=IMAGENET | {p: 32, N_p: 49})
huge_632m = Rounded("huge_632m", 632_000_000, "ViT-Huge: 32 layers, hidden size 1280, MLP size 5120, 16 heads, 632M",
                    _TABLE1, "vit-huge-patch14-224-in21k", _CONVENTIONS, overrides=IMAGENET)

FAMILY = Family(
    name="vit",
    reader=reader.READER,
    variants=VARIANTS,
    base="ViTModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as published on the Hugging Face hub
    # [cite: hub-vit]: google/vit-base-patch16-224 and google/vit-large-patch16-224 (fine-tuned on ImageNet's 1,000
    # classes: their 1,000 labels written as num_labels, which is what transformers reads of them), and
    # google/vit-base-patch16-224-in21k and google/vit-huge-patch14-224-in21k (pre-trained on ImageNet-21k, released
    # as ViTModel with its pooler).
    checkpoints=("vit-base-patch16-224", "vit-base-patch16-224-in21k", "vit-large-patch16-224",
                 "vit-huge-patch14-224-in21k"),
    first_published="2020-10",
    kind="vision",
    maker="Google",
    headlines=(Headline("ViTForImageClassification", "vit-base-patch16-224", "B/16"),
               Headline("ViTForImageClassification", "vit-large-patch16-224", "L/16"),
               Headline("ViTModel", "vit-huge-patch14-224-in21k", "H/14")),
    example="vit-base-patch16-224",
    table_symbols=(N_p, p, D, L, C),
    table_columns={
        "ViTModel": "ViTModel",
        "without_pooler": "without pooler",
        "ViTForImageClassification": "ForImageClassification",
        "patch_embeddings": "patch embeddings",
    },
    rounded=(base_86m, large_307m, large_307m_patch32, huge_632m),
    ratios={d_h: (D, H)},
    sources=SOURCES,
    image_tokens=sequence,
)
