"""Qwen3-VL (Qwen Team 2025), laid out as transformers' ``Qwen3VLForConditionalGeneration``.

Qwen2.5-VL's plan (``derivations.qwen2_5_vl``: a vision transformer of its own, a merger of each S_m by S_m square of
patches, a language model, a head) with a new tower and a new language model. The tower (``visual``,
Qwen3VLVisionModel): a patch convolution over p_t frames of p by p pixels, now with a bias; a learned table of P_v
positions (a square grid, resampled to each image's); L_v pre-norm blocks of LayerNorm (with biases, not RMSNorm),
attention with one fused q, k, v map and biases, LayerNorm and a plain (not gated) feed-forward with biases. Its
merger is Qwen2.5-VL's under LayerNorm; beside it, DeepStack's L_ds mergers (``deepstack_merger_list``), one for each
block listed in deepstack_visual_indexes, each normalizing the joined S_m^2 D_v state (after the shuffle), whose
outputs are added to the image's tokens in the language model's first L_ds layers. The language model is Qwen3's
(``derivations.qwen3``'s Qwen3Model: query and key norms, no biases), as Qwen3VLTextModel.

How many tokens one image is depends on the image (the processor's image_grid_thw), not on the config: the counts
need none; the FLOPs of the classes that read an image are of one image whose size the user gives (``--image HxW``:
derivations.readers.qwen3_vl.image gives N_p and N_i). Every block attends over the whole image (N_p^2 pairs); the
learned positions are interpolated to the image's grid by weighted sums (no matrix product: 0 FLOPs).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import Part, embedding, fused_attention, feed_forward, group, layer_norm, leaf, linear
from ..contract import Family, Headline
from ..readers import qwen3_vl as reader
from ..sources import Citation, Source, declare
from ..symbols import C_i, D, D_o, D_v, F_v, L, L_ds, L_v, N_i, N_p, P_v, S_m, V, p, p_t
from . import _composite, qwen3

# ---------------------------------------------------------------------------------------------
# The vision transformer (Qwen3VLVisionModel)
# ---------------------------------------------------------------------------------------------

# The patch embedding: a Conv3d with bias, kernel and stride (p_t, p, p), from C_i channels to D_v
# $$N_\mathrm{patch} = C_\mathrm{in} p_\mathrm{t} p^2 D_\mathrm{v} + D_\mathrm{v}$$
patch_embedding = leaf("patch_embedding", "patch embedding (a Conv3d over p_t frames of p x p pixels, with bias)",
                       C_i * p_t * p**2 * D_v + D_v, "patch_embed.proj", kind="embeddings",
                       matrix=C_i * p_t * p**2 * D_v, tensors=(C_i * p_t * p**2 * D_v, D_v))

# The learned positions: P_v rows of D_v (a square grid, each image's positions interpolated from it)
# $$N_\mathrm{pos} = P_\mathrm{v} D_\mathrm{v}$$
positions = embedding("positions", "learned position embeddings (a square grid, resampled to the image's)", P_v, D_v,
                      "pos_embed")

# One block (Qwen3VLVisionBlock): LayerNorm, attention (qkv fused, D_v to 3 D_v, and proj, both with biases: its heads
# split the width, so H_v sets no tensor), LayerNorm, a plain feed-forward with biases
# $$N_\mathrm{block} = 4 D_\mathrm{v} + (3 D_\mathrm{v}^2 + 3 D_\mathrm{v}) + (D_\mathrm{v}^2 + D_\mathrm{v})
#   + 2 D_\mathrm{v} F_\mathrm{v} + F_\mathrm{v} + D_\mathrm{v}$$
block = group("block", "vision block",
              layer_norm("attention_norm", D_v, "norm1", label="LayerNorm before attention"),
              fused_attention(D_v, qkv="qkv", output="proj", path="attn", label="self-attention (q, k, v fused)"),
              layer_norm("feed_forward_norm", D_v, "norm2", label="LayerNorm before the feed-forward"),
              feed_forward(D_v, F_v, up="linear_fc1", down="linear_fc2", path="mlp",
                           label="feed-forward (GELU, with biases)"),
              path="blocks", symbol=r"N_{\mathrm{block}}")

# A merger (Qwen3VLVisionPatchMerger): LayerNorm, then each S_m x S_m square of patches, concatenated (S_m^2 D_v),
# through Linear, GELU, Linear to D_o. The main merger norms each patch (D_v) before joining them, DeepStack's the
# joined state (S_m^2 D_v: use_postshuffle_norm)
# $$N_\mathrm{merger} = 2 D_\mathrm{v} + (S_\mathrm{m}^2 D_\mathrm{v})^2 + S_\mathrm{m}^2 D_\mathrm{v}
#   + S_\mathrm{m}^2 D_\mathrm{v} D_\mathrm{o} + D_\mathrm{o}$$
_JOINED = S_m**2 * D_v


def merger(name: str, label: str, normed, path: str, repeat=1) -> Part:
    return group(name, label,
                 layer_norm("norm", normed, "norm", label="LayerNorm" + (" of each patch's state" if normed == D_v
                                                                         else " of the joined patches' state")),
                 linear("fc1", "first linear map of the joined patches (S_m^2 D_v to itself)", _JOINED, _JOINED,
                        True, "linear_fc1"),
                 linear("fc2", "second linear map, to the language model's width D_o", _JOINED, D_o, True,
                        "linear_fc2"),
                 path=path, repeat=repeat, tokens=N_i)


main_merger = merger("merger", "merger (LayerNorm, then an MLP over each S_m x S_m square of patches)", D_v, "merger")
deepstack_merger = merger("deepstack_merger", "DeepStack merger (the joined patches normed), one for each of L_ds "
                          "blocks", _JOINED, "deepstack_merger_list", repeat=L_ds)
# The projector: every map from the tower's states to the language model's tokens, the main merger and DeepStack's.
projector = group("projector", "mergers (the main one and DeepStack's, one for each listed block)", main_merger,
                  deepstack_merger, kind="heads", symbol=r"N_{\mathrm{mergers}}")


def vision_transformer(path: str | None) -> Part:
    """Qwen3VLVisionModel, on one image's N_p patches (rotary positions: a buffer, no parameter); its mergers, its
    last modules, are the composite's projector."""
    return group("vision_tower", "vision transformer (patch embedding, positions, blocks; its mergers are the "
                 "projector)", patch_embedding, positions, replace(block, repeat=L_v), projector, path=path,
                 tokens=N_p, symbol=r"N_{\mathrm{visual}}")


def architectures(tied: bool = False, attention_bias: bool = False) -> dict[str, Part]:
    """The classes transformers 5.23 builds for a qwen3_vl config: the whole model (Qwen3VLModel, with the head
    Qwen3VLForConditionalGeneration), the language model alone (Qwen3VLTextModel, built from text_config: Qwen3's
    body), and the vision transformer alone (Qwen3VLVisionModel, built from vision_config)."""
    text = qwen3.architectures(attention_bias)["Qwen3Model"]
    body = group("model", "Qwen3VLModel: vision transformer and mergers, language model", vision_transformer("visual"),
                 _composite.language_model(text), path="model", symbol=r"N_{\mathrm{Qwen3VLModel}}")

    def model(name: str, label: str, *parts: Part) -> Part:
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        # The base model is the body itself (its parameters without the model. prefix).
        "Qwen3VLModel": model("Qwen3VLModel", "Qwen3-VL: vision transformer, mergers, language model", *body.children),
        "Qwen3VLForConditionalGeneration": model("Qwen3VLForConditionalGeneration", "with the language-model head",
                                                 body, _composite.lm_head(tied)),
        "Qwen3VLTextModel": replace(text, name="Qwen3VLTextModel",
                                    label="Qwen3VLTextModel: the language model alone (Qwen3's body)",
                                    symbol=r"N_{\mathrm{Qwen3VLTextModel}}"),
        "Qwen3VLVisionModel": replace(vision_transformer(None), name="Qwen3VLVisionModel",
                                      label="the vision transformer alone, its mergers included",
                                      symbol=r"N_{\mathrm{Qwen3VLVisionModel}}"),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# The three parts a reader asks about (the same in every layout).
_BODY = ARCHITECTURES["Qwen3VLForConditionalGeneration"].child("model")
vision_tower = group("vision_tower", "vision transformer without its mergers", patch_embedding, positions,
                     replace(block, repeat=L_v), symbol=r"N_{\mathrm{ViT}}")
language_model = _BODY.child("language_model")
vision_encoder = _BODY.child("vision_tower")

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled: the names' sizes
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-qwen3-vl", "config", "Qwen Team (Alibaba)", "Qwen/Qwen3-VL-2B-Instruct, -4B-Instruct and "
           "-8B-Instruct: config.json and model cards", "Hugging Face, Qwen", 2025,
           "https://huggingface.co/collections/Qwen/qwen3-vl", read="2026-11-26",
           short="the Qwen3-VL checkpoints on the Hugging Face hub"),
)

_NAME = Citation("hub-qwen3-vl", "the models' names (2B, 4B, 8B)")
_WHOLE = ARCHITECTURES["Qwen3VLForConditionalGeneration"]
_TIED = VARIANTS["tied"]["Qwen3VLForConditionalGeneration"]
# A name's size, set against the whole model and against its language model alone.
name_2b = Rounded.of_name("name_2b", "2B", "Qwen3-VL-2B", _NAME, "qwen3-vl-2b-instruct", (_TIED, language_model))
name_4b = Rounded.of_name("name_4b", "4B", "Qwen3-VL-4B", _NAME, "qwen3-vl-4b-instruct", (_TIED, language_model))
name_8b = Rounded.of_name("name_8b", "8B", "Qwen3-VL-8B", _NAME, "qwen3-vl-8b-instruct", (_WHOLE, language_model))

# The hub's own counts of the 8B's and the 2B's tensors (its model API's safetensors total): the whole models, exactly.
hub_8b = Rounded("hub_8b", 8_767_123_696, "Qwen3-VL-8B-Instruct, the hub's parameter count",
                 Citation("hub-qwen3-vl", "Qwen/Qwen3-VL-8B-Instruct, safetensors total"), "qwen3-vl-8b-instruct",
                 (_WHOLE,), precision=1, printed="8767123696")
hub_2b = Rounded("hub_2b", 2_127_532_032, "Qwen3-VL-2B-Instruct, the hub's parameter count",
                 Citation("hub-qwen3-vl", "Qwen/Qwen3-VL-2B-Instruct, safetensors total"), "qwen3-vl-2b-instruct",
                 (_TIED,), precision=1, printed="2127532032")

FAMILY = Family(
    name="qwen3_vl",
    reader=reader.READER,
    variants=VARIANTS,
    base="Qwen3VLModel",
    # Qwen/Qwen3-VL-2B-Instruct, -4B-Instruct and -8B-Instruct's config.json as published [cite: hub-qwen3-vl]: the
    # language model in text_config, the tower in vision_config (24 blocks of width 1024 in the 2B and 4B, 27 of 1152
    # in the 8B; patches of 16 over 2 frames, merged 2 x 2; three DeepStack blocks). The hub's files were not read
    # here; public copies were: the 4B's whole (a DiffSynth-style Wan encoder that builds Qwen3VLModel from it,
    # transformers_version 4.57.0.dev0), the 8B's text_config and top level (a Rust engine's test, "Qwen/Qwen3-VL-8B-
    # Instruct rev 0c351dd0") with its vision_config from NVIDIA's Cosmos-Reason2-8B config.json (the same tower,
    # quoted by a loader for it), the 2B's text_config ("Qwen/Qwen3-VL-2B-Instruct at 89644892", a TensorRT
    # builder's test) with its vision_config as several engines' presets give it (the 4B's, its out_hidden_size the
    # 2B's width). The fields that set no size (ids, rope, dtype) are the 4B's; the totals match the hub's counts.
    checkpoints=("qwen3-vl-2b-instruct", "qwen3-vl-4b-instruct", "qwen3-vl-8b-instruct"),
    first_published="2025-09",
    kind="vision",
    maker="Alibaba",
    headlines=(Headline("Qwen3VLForConditionalGeneration", "qwen3-vl-4b-instruct", "4B"),
               Headline("Qwen3VLForConditionalGeneration", "qwen3-vl-8b-instruct", "8B")),
    example="qwen3-vl-8b-instruct",
    table_symbols=(L, D, V, L_v, D_v, p, S_m, L_ds),
    table_columns={"Qwen3VLForConditionalGeneration": "Qwen3VLForConditionalGeneration",
                   "vision_tower": "vision tower", "projector": "mergers", "language_model": "language model"},
    rounded=(name_2b, name_4b, name_8b, hub_8b, hub_2b),
    sources=SOURCES,
    layout_free=("vision_tower", "language_model", "vision_encoder", "projector", "patch_embedding", "positions",
                 "block", "main_merger", "deepstack_merger"),
)

assert sympy.expand(ARCHITECTURES["Qwen3VLModel"].total - _WHOLE.total
                    + ARCHITECTURES["Qwen3VLForConditionalGeneration"].child("lm_head").total) == 0
assert {N_p, N_i}.isdisjoint(_WHOLE.total.free_symbols)  # the counts need no image
assert D not in vision_tower.total.free_symbols  # the tower is sized by vision_config alone
