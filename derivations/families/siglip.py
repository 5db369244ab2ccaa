"""SigLIP (Zhai et al. 2023), composed from the components, laid out as transformers' ``SiglipModel``.

CLIP's two towers and CLIP's layer, with four differences in what they hold: the vision tower has no class token (N_p
positions, not N_p + 1), its patch map keeps its bias, and it has no LayerNorm before its layers; it pools with an
attention head of its own (a learned probe that attends once over the patches, nn.MultiheadAttention, then a
LayerNorm and a feed-forward), unless ``vision_use_head`` is false; the text tower pools its last token and projects
it with a bias (its ``head``); the pair has no projection of the image and learns a bias beside the temperature (the
sigmoid loss's).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..components import (Op, Part, as_kind, attention_products, classifier, feed_forward, group, layer_norm, leaf,
                          linear, tied_tensor)
from ..contract import Family, Headline
from ..readers import siglip as reader
from ..sources import Source, declare
from ..symbols import C, D, D_t, E_p, F, H, L, N_p, P, p
from . import clip, vit

# ---------------------------------------------------------------------------------------------
# The text tower (SiglipTextTransformer): CLIP's, bidirectional, with a head on its last token
# $$N_\mathrm{text} = (V + P) D_t + L_t N_\mathrm{layer}(D_t) + 2 D_t + (D_t E_p + E_p)$$
# ---------------------------------------------------------------------------------------------

# SiglipTextModel.head: the last token's state to projection_size (E_p, the width by default), with a bias.
text_head = replace(as_kind(linear("head", "text head (the last token's state, with a bias)", D_t, E_p, True, "head"),
                            "heads"), tokens=sympy.Integer(1))
text_tower = replace(clip.text_tower, children=(*clip.text_tower.children, text_head))

# ---------------------------------------------------------------------------------------------
# The vision tower (SiglipVisionTransformer): patches with no class token, CLIP's layers, a LayerNorm after them, and
# the attention-pooling head
# $$N_\mathrm{vision} = (C_\mathrm{in} p^2 D + D) + N_\mathrm{p} D + L N_\mathrm{layer}(D) + 2D + N_\mathrm{head}$$
# ---------------------------------------------------------------------------------------------

# SiglipVisionEmbeddings: the patch map with its bias (ViT's), and one position a patch: no class token.
patch_projection = replace(vit.patch_projection, path="patch_embedding")
positions = replace(vit.positions, expr=N_p * D, path="position_embedding",
                    label="learned position embeddings (N_p rows: no class token)")
vision_embeddings = group("embeddings", "vision embeddings", patch_projection, positions, path="embeddings",
                          kind="embeddings", symbol=r"N_{\mathrm{emb}}")

# SiglipMultiheadAttentionPoolingHead: a learned probe (one D-vector) attends over the N_p patch states with
# nn.MultiheadAttention, whose in_proj holds the query, key and value maps as one 3D x D tensor (and one bias);
# then a LayerNorm and CLIP's feed-forward, with a residual, on the probe's one row.
# $$N_\mathrm{head} = D + (3D^2 + 3D) + (D^2 + D) + 2D + (2DF + F + D)$$
probe = leaf("probe", "probe (the query the head learns)", D, "probe")
# A parameter of the attention module, not an nn.Linear: no quantizer replaces it (no shape, and not the attention's
# kind, whose maps a 4-bit format quantizes).
in_proj = leaf("in_proj", "query, key and value maps, stacked (in_proj_weight: the probe's query on one row)",
               3 * D**2, "in_proj_weight", matrix=D**2, kind="heads")
in_proj_bias = leaf("in_proj_bias", "their biases (in_proj_bias)", 3 * D, "in_proj_bias")
# The keys and values run on every patch state: in_proj_weight's last 2D rows, counted above, here as the FLOPs they
# take on N_p rows.
keys_values = replace(tied_tensor("keys_values", "key and value maps on the patches (in_proj_weight's last 2D rows)",
                                  "in_proj", matrix=2 * D**2), tokens=N_p)
pooling_attention = group(
    "attention", "the probe's attention over the patches (nn.MultiheadAttention)", in_proj, in_proj_bias,
    keys_values, linear("output", "output projection", D, D, True, "out_proj"), path="attention", kind="attention",
    # One query (the probe) against the N_p patches, H heads of D / H: the scores and the weighted values.
    ops=attention_products(H, D / H, D / H, keys=N_p))
pooling_head = group("head", "attention-pooling head", probe, pooling_attention,
                     layer_norm("norm", D, "layernorm", label="LayerNorm"),
                     feed_forward(D, F, up="fc1", down="fc2", path="mlp"),
                     path="head", kind="heads", tokens=1, symbol=r"N_{\mathrm{head}}")


def vision_tower_of(with_head: bool = True) -> Part:
    """SiglipVisionTransformer: embeddings, CLIP's encoder, the post-LayerNorm and (vision_use_head) the head; it runs
    on one image's N_p patches."""
    parts = (vision_embeddings, clip.encoder(clip.vision_layer, L),
             layer_norm("post_norm", D, "post_layernorm", label="LayerNorm after the layers"),
             *((pooling_head,) if with_head else ()))
    return group("vision_model", "vision tower", *parts, path="vision_model", symbol=r"N_{\mathrm{vision}}", tokens=N_p)


vision_tower = vision_tower_of()

# ---------------------------------------------------------------------------------------------
# The pair: the temperature and the bias of the sigmoid loss
# $$N_\mathrm{SiglipModel} = N_\mathrm{text} + N_\mathrm{vision} + 2$$
# ---------------------------------------------------------------------------------------------

# SiglipModel compares each text's head output with each image's pooled state: 2 D FLOPs a pair (D = E_p).
similarities = Op("similarities", "similarities of texts and images (one pair; b^2 in a batch of b of each)",
                  2 * D, keys=sympy.Integer(1))
logits = group("logits", "logit scale and bias, and the similarities",
               leaf("logit_scale", "logit scale (the temperature, one scalar)", 1, "logit_scale"),
               leaf("logit_bias", "logit bias (the sigmoid loss's, one scalar)", 1, "logit_bias"),
               kind="heads", tokens=1, ops=(similarities,))
# SiglipForImageClassification: C logits from the mean of the patch states (one row).
image_classifier = replace(classifier(D, C, "classifier", label="image classifier (on the mean of the patches)"),
                           tokens=sympy.Integer(1))


def architectures(no_head: bool = False) -> dict[str, Part]:
    """Every SigLIP class of transformers that a SigLIP config builds, named as transformers names it."""
    vision = vision_tower_of(not no_head)

    def model(name: str, label: str, *parts: Part) -> Part:
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        # The pair's own parameters (the logit scale and bias) first, as named_parameters() yields them.
        "SiglipModel": model("SiglipModel", "SigLIP: both towers, the logit scale and bias", logits, text_tower,
                             vision),
        # A tower alone is the module itself.
        "SiglipTextModel": model("SiglipTextModel", "the text tower", replace(text_tower, path=None)),
        "SiglipVisionModel": model("SiglipVisionModel", "the vision tower", replace(vision, path=None)),
        "SiglipForImageClassification": model("SiglipForImageClassification", "the vision tower and a classifier",
                                              vision, image_classifier),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("zhai2023", "paper", "Zhai et al.", "Sigmoid Loss for Language Image Pre-Training", "ICCV 2023", 2023,
           "https://arxiv.org/abs/2303.15343"),
    Source("hub-siglip", "config", "Google", "config.json of google/siglip-base-patch16-224 and "
           "google/siglip-so400m-patch14-384", "Hugging Face hub", None,
           "https://huggingface.co/google/siglip-so400m-patch14-384/blob/main/config.json", read=_READ,
           short="the SigLIP configs"),
)

# OpenCLIP's profile (declared by CLIP's module): its image encoder is the vision tower, its text side the rest.
text_side = group("text_side", "text side as OpenCLIP counts it (text tower, logit scale and bias)", text_tower, logits)
assert sympy.expand(text_side.total + vision_tower.total - ARCHITECTURES["SiglipModel"].total) == 0

_BASE, _SO400M = "siglip-base-patch16-224", "siglip-so400m-patch14-384"
b16_total = clip.profiled("b16_total", "203.16", "ViT-B-16-SigLIP, mparams", _BASE, ARCHITECTURES["SiglipModel"])
b16_image = clip.profiled("b16_image", "92.88", "ViT-B-16-SigLIP, image_mparams", _BASE, vision_tower)
b16_text = clip.profiled("b16_text", "110.27", "ViT-B-16-SigLIP, text_mparams", _BASE, text_side)
so400m_total = clip.profiled("so400m_total", "877.96", "ViT-SO400M-14-SigLIP-384, mparams", _SO400M,
                             ARCHITECTURES["SiglipModel"])
so400m_image = clip.profiled("so400m_image", "428.23", "ViT-SO400M-14-SigLIP-384, image_mparams", _SO400M, vision_tower)
so400m_text = clip.profiled("so400m_text", "449.73", "ViT-SO400M-14-SigLIP-384, text_mparams", _SO400M, text_side)
PROFILED = (b16_total, b16_image, b16_text, so400m_total, so400m_image, so400m_text)

FAMILY = Family(
    name="siglip",
    reader=reader.READER,
    variants=VARIANTS,
    base="SiglipModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json), as Google published them on the Hugging Face
    # hub [cite: hub-siglip]: google/siglip-base-patch16-224 (every size its classes' default) and
    # google/siglip-so400m-patch14-384 (the shape-optimized tower, 27 layers of 1,152, which PaliGemma and many
    # vision-language models reuse).
    checkpoints=("siglip-base-patch16-224", "siglip-so400m-patch14-384"),
    first_published="2023-03",
    kind="vision",
    maker="Google",
    headlines=(Headline("SiglipModel", "siglip-base-patch16-224", "B/16"),
               Headline("SiglipModel", "siglip-so400m-patch14-384", "So400m/14"),
               Headline("SiglipVisionModel", "siglip-so400m-patch14-384", "So400m/14, the vision tower")),
    example="siglip-base-patch16-224",
    table_symbols=(N_p, p, D, L, D_t, P),
    table_columns={
        "SiglipModel": "SiglipModel",
        "SiglipTextModel": "text tower",
        "SiglipVisionModel": "vision tower",
        "pooling_head": "pooling head",
    },
    rounded=PROFILED,
    sources=SOURCES,
    image_tokens=N_p,
)
