"""CLIP (Radford et al. 2021), composed from the components, laid out as transformers' ``CLIPModel``.

Two towers, trained to match: a text encoder (token and position tables, pre-norm layers under a causal mask, a final
LayerNorm; its pooled state is the end-of-text token's) and a vision encoder (ViT's patches of one image, without the
patch map's bias, a LayerNorm before the layers and one after the class token's state); then each pooled state is
projected without a bias to the joint space of E_p dimensions, and one learned temperature scales their similarities.
Both towers' layers are the same ``CLIPEncoderLayer``: LayerNorm, attention (q, k, v, out_proj, each with a bias),
LayerNorm, feed-forward (fc1, fc2).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..components import (AttentionLayout, Op, Part, as_kind, attention, classifier, embedding, feed_forward, group,
                          layer_norm, leaf, linear)
from ..claims import Rounded
from ..contract import Family, Headline
from ..readers import clip as reader
from ..sources import Citation, Source, declare
from ..symbols import C, C_i, D, D_t, E_p, F, F_t, H, H_t, L, L_t, N_p, P, V, p
from . import vit

# ---------------------------------------------------------------------------------------------
# One CLIPEncoderLayer, either tower's: pre-norm, heads that partition the width (the config class requires it)
# $$N_\mathrm{layer} = 2D + (4D^2 + 4D) + 2D + (2DF + F + D)$$
# ---------------------------------------------------------------------------------------------


def encoder_layer(width: sympy.Symbol, heads: sympy.Symbol, inner: sympy.Symbol) -> Part:
    """CLIPEncoderLayer of a tower of this width, heads and feed-forward size."""
    return group(
        "layer", "CLIPEncoderLayer",
        layer_norm("norm1", width, "layer_norm1", label="LayerNorm before attention"),
        attention(width, heads, width / heads, layout=AttentionLayout("q_proj", "k_proj", "v_proj", "out_proj"),
                  path="self_attn", label="self-attention"),
        layer_norm("norm2", width, "layer_norm2", label="LayerNorm before feed-forward"),
        feed_forward(width, inner, up="fc1", down="fc2", path="mlp"),
        path="layers", symbol=r"N_{\mathrm{layer}}",
    )


text_layer = encoder_layer(D_t, H_t, F_t)
vision_layer = encoder_layer(D, H, F)
# ViT's layer, its LayerNorms named otherwise: the same count.
assert sympy.expand(vision_layer.total - vit.layer.total.subs(vit.d_h, D / H)) == 0


def encoder(layer: Part, layers: sympy.Symbol) -> Part:
    """CLIPEncoder: the layers, each with weights of its own."""
    return group("encoder", "encoder", replace(layer, repeat=layers), path="encoder", symbol=r"N_{\mathrm{enc}}")


# ---------------------------------------------------------------------------------------------
# The text tower (CLIPTextTransformer, text_model): tokens, positions, layers, final LayerNorm
# $$N_\mathrm{text} = (V + P) D_t + L_t N_\mathrm{layer}(D_t) + 2 D_t$$
# ---------------------------------------------------------------------------------------------

text_embeddings = group("embeddings", "text embeddings",
                        embedding("token", "token embeddings", V, D_t, "token_embedding"),
                        embedding("position", "learned position embeddings", P, D_t, "position_embedding"),
                        path="embeddings", symbol=r"N_{\mathrm{emb}}")
text_tower = group("text_model", "text tower", text_embeddings, encoder(text_layer, L_t),
                   layer_norm("final_norm", D_t, "final_layer_norm", label="final LayerNorm"),
                   path="text_model", symbol=r"N_{\mathrm{text}}")

# ---------------------------------------------------------------------------------------------
# The vision tower (CLIPVisionTransformer, vision_model): ViT's image tokens, a LayerNorm before the layers and one
# on the class token's state after them
# $$N_\mathrm{vision} = C_\mathrm{in} p^2 D + D + (N_\mathrm{p} + 1) D + 2D + L N_\mathrm{layer}(D) + 2D$$
# ---------------------------------------------------------------------------------------------

# CLIPVisionEmbeddings: ViT's three tensors, the patch map without a bias (bias=False), the positions a table.
patch_projection = replace(vit.patch_projection, expr=C_i * p**2 * D, tensors=(), path="patch_embedding",
                           label="patch embedding (a convolution: kernel and stride p, no bias)")
vision_embeddings = group("embeddings", "vision embeddings",
                          replace(vit.class_token, path="class_embedding"), patch_projection,
                          replace(vit.positions, path="position_embedding"), path="embeddings",
                          kind="embeddings", symbol=r"N_{\mathrm{emb}}")
# One image's tokens, whatever the text's: the tower's parts run on N_p + 1 rows (the post-LayerNorm on one).
vision_tower = group("vision_model", "vision tower", vision_embeddings,
                     layer_norm("pre_norm", D, "pre_layrnorm", label="LayerNorm before the layers"),
                     encoder(vision_layer, L),
                     layer_norm("post_norm", D, "post_layernorm", label="LayerNorm of the class token's state"),
                     path="vision_model", symbol=r"N_{\mathrm{vision}}", tokens=vit.sequence)

# ---------------------------------------------------------------------------------------------
# The pair: each pooled state projected to E_p, and the temperature
# $$N_\mathrm{CLIPModel} = N_\mathrm{text} + N_\mathrm{vision} + D_t E_p + D E_p + 1$$
# ---------------------------------------------------------------------------------------------

# Each tower's pooled state (one row: the end-of-text token's, the class token's) to the joint space, no bias.
text_projection = replace(as_kind(linear("text_projection", "text projection (no bias)", D_t, E_p, False,
                                         "text_projection"), "heads"), tokens=sympy.Integer(1))
visual_projection = replace(as_kind(linear("visual_projection", "visual projection (no bias)", D, E_p, False,
                                           "visual_projection"), "heads"), tokens=sympy.Integer(1))
# CLIPModel.logit_scale: one learned scalar, the log of the similarities' temperature. CLIPModel's forward compares
# every text with every image: the product of the two projected states, 2 E_p FLOPs a pair (one text and one image
# here; a batch of b of each compares b^2 pairs).
similarities = Op("similarities", "similarities of texts and images (one pair; b^2 in a batch of b of each)",
                  2 * E_p, keys=sympy.Integer(1))
logit_scale = group("logits", "logit scale and the similarities",
                    leaf("logit_scale", "logit scale (the temperature, one scalar)", 1, "logit_scale"),
                    kind="heads", tokens=1, ops=(similarities,))
# CLIPForImageClassification: C logits from the mean of the patch tokens' states (one row).
image_classifier = replace(classifier(D, C, "classifier", label="image classifier (on the mean of the patches)"),
                           tokens=sympy.Integer(1))


def architectures() -> dict[str, Part]:
    """Every CLIP class of transformers that a CLIP config builds, named as transformers names it (the one-tower
    classes read their tower's sub-config, as from_pretrained gives it)."""
    def model(name: str, label: str, *parts: Part) -> Part:
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        # The pair's own parameter (the logit scale) first, as named_parameters() yields it.
        "CLIPModel": model("CLIPModel", "CLIP: both towers, both projections, the logit scale", logit_scale,
                           text_tower, vision_tower, visual_projection, text_projection),
        # A tower alone is the module itself (its parameters without the text_model. prefix).
        "CLIPTextModel": model("CLIPTextModel", "the text tower", replace(text_tower, path=None)),
        "CLIPTextModelWithProjection": model("CLIPTextModelWithProjection", "the text tower and its projection",
                                             text_tower, text_projection),
        "CLIPVisionModel": model("CLIPVisionModel", "the vision tower", replace(vision_tower, path=None)),
        "CLIPVisionModelWithProjection": model("CLIPVisionModelWithProjection", "the vision tower and its projection",
                                               vision_tower, visual_projection),
        "CLIPForImageClassification": model("CLIPForImageClassification", "the vision tower and a classifier",
                                            vision_tower, image_classifier),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# The parts a reader asks about, by name for the pages.
projections = group("projections", "both projections and the logit scale", visual_projection, text_projection,
                    logit_scale)
text_layers = replace(text_layer, repeat=L_t)
vision_layers = replace(vision_layer, repeat=L)

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

# open_clip's count of OpenAI's CLIP: its image encoder ("visual") holds the visual projection, its text side the
# rest (the text tower, its projection and the logit scale); the three add up to CLIPModel.
image_encoder = group("image_encoder", "image encoder as open_clip counts it (vision tower and its projection)",
                      vision_tower, visual_projection)
text_encoder = group("text_encoder", "text side as open_clip counts it (text tower, its projection, logit scale)",
                     text_tower, text_projection, logit_scale)
assert sympy.expand(image_encoder.total + text_encoder.total - ARCHITECTURES["CLIPModel"].total) == 0

_READ = "2026-11-26"
SOURCES = declare(
    Source("radford2021", "paper", "Radford et al.",
           "Learning Transferable Visual Models From Natural Language Supervision", "ICML 2021", 2021,
           "https://arxiv.org/abs/2103.00020"),
    Source("hub-clip", "config", "OpenAI", "config.json of openai/clip-vit-base-patch32 and its siblings",
           "Hugging Face hub", None, "https://huggingface.co/openai/clip-vit-base-patch32/blob/main/config.json",
           read=_READ, short="the CLIP configs"),
    Source("openclip-profile", "code", "OpenCLIP", "docs/model_profile.csv: each model's parameters and GFLOPs",
           "GitHub, mlfoundations/open_clip", None,
           "https://github.com/mlfoundations/open_clip/blob/main/docs/model_profile.csv",
           revision="https://github.com/mlfoundations/open_clip/blob/3b37473b7178479e2494f60392442648ed262e8a/docs/"
                    "model_profile.csv", short="OpenCLIP's model profile"),
)

# OpenCLIP's profile prints millions of parameters to two decimals: the whole model, its image encoder and its text
# side, for OpenAI's architectures by open_clip's names (ViT-B-32, ViT-B-16, ViT-L-14).
_PROFILE = Citation("openclip-profile", "mparams, image_mparams, text_mparams")


def profiled(name: str, printed: str, row: str, checkpoint: str, candidate: Part) -> Rounded:
    """A figure of OpenCLIP's profile (millions of parameters, two decimals), set against the count it rounds."""
    return Rounded(name, round(float(printed) * 10**6), f"{row}: {printed} million", _PROFILE, checkpoint,
                   (candidate,), precision=10**4, printed=printed)


b32_total = profiled("b32_total", "151.28", "ViT-B-32, mparams", "clip-vit-base-patch32", ARCHITECTURES["CLIPModel"])
b32_image = profiled("b32_image", "87.85", "ViT-B-32, image_mparams", "clip-vit-base-patch32", image_encoder)
b32_text = profiled("b32_text", "63.43", "ViT-B-32, text_mparams", "clip-vit-base-patch32", text_encoder)
b16_total = profiled("b16_total", "149.62", "ViT-B-16, mparams", "clip-vit-base-patch16", ARCHITECTURES["CLIPModel"])
b16_image = profiled("b16_image", "86.19", "ViT-B-16, image_mparams", "clip-vit-base-patch16", image_encoder)
l14_total = profiled("l14_total", "427.62", "ViT-L-14, mparams", "clip-vit-large-patch14", ARCHITECTURES["CLIPModel"])
l14_image = profiled("l14_image", "303.97", "ViT-L-14, image_mparams", "clip-vit-large-patch14", image_encoder)
l14_text = profiled("l14_text", "123.65", "ViT-L-14, text_mparams", "clip-vit-large-patch14", text_encoder)
PROFILED = (b32_total, b32_image, b32_text, b16_total, b16_image, l14_total, l14_image, l14_text)

FAMILY = Family(
    name="clip",
    reader=reader.READER,
    variants=VARIANTS,
    base="CLIPModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as OpenAI published them on the Hugging Face hub
    # [cite: hub-clip]: openai/clip-vit-base-patch32, clip-vit-base-patch16 and clip-vit-large-patch14 (their sizes;
    # each sub-config's fields that set no size, which the hub's files repeat, are left to their defaults).
    checkpoints=("clip-vit-base-patch32", "clip-vit-base-patch16", "clip-vit-large-patch14"),
    first_published="2021-02",
    kind="vision",
    maker="OpenAI",
    headlines=(Headline("CLIPModel", "clip-vit-base-patch32", "ViT-B/32"),
               Headline("CLIPModel", "clip-vit-large-patch14", "ViT-L/14")),
    example="clip-vit-base-patch32",
    table_symbols=(N_p, p, D, L, D_t, E_p),
    table_columns={
        "CLIPModel": "CLIPModel",
        "CLIPTextModel": "text tower",
        "CLIPVisionModel": "vision tower",
        "projections": "projections",
    },
    rounded=PROFILED,
    sources=SOURCES,
    image_tokens=vit.sequence,
)
