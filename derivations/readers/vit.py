"""ViT (model_type ``vit``): config.json -> {symbol name: value}, and the layout it asks for.

ViTConfig (configuration_vit.py, 5.23) has BERT's encoder sizes and no vocabulary: an image of ``image_size``
pixels (one side, or [height, width]) is cut into patches of ``patch_size`` over ``num_channels`` channels.
ViTPatchEmbeddings counts (height // patch) (width // patch) patches, so pixels left over at an edge are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, num_labels, shown, size, switch
from ..rules import at_most
from .. import validation

# transformers' ViTConfig defaults: a minimal config.json takes these for a missing field.
DEFAULTS = {
    "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
    "image_size": 224, "patch_size": 16, "num_channels": 3, "encoder_stride": 16,
}

FIELD_OF = {"N_p": "(image_size // patch_size)^2", "p": "patch_size", "C_i": "num_channels", "D": "hidden_size",
            "H": "num_attention_heads", "d_h": "head_dim, else hidden_size // num_attention_heads", "F": "intermediate_size", "L": "num_hidden_layers",
            "D_p": "pooler_output_size", "S": "encoder_stride", "C": "num_labels"}

# ViTAttention sizes a head as head_dim, else hidden_size // num_attention_heads, with no check that the heads
# divide the width (q maps D to H d_h, o maps it back): only a head of no width fails, in the forward's view.
HEAD_HAS_A_WIDTH = at_most("H", "D", "at most {D} heads (a head is {D} // {H} wide, and must be 1 at least)")


def sides(config: Mapping, field: str, defaults: Mapping[str, int] = DEFAULTS) -> tuple[int, int]:
    """``image_size`` or ``patch_size``: one side, or [height, width] (ViTPatchEmbeddings takes either)."""
    value = config.get(field, defaults[field])
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ConfigError(f"{field} must be an integer or [height, width], got {shown(value)}")
        height, width = (size({field: side}, field, {}) for side in value)
        return height, width
    side = size(config, field, defaults)
    return side, side


def patches(config: Mapping, defaults: Mapping[str, int] = DEFAULTS) -> tuple[int, int]:
    """N_p and p: the square patches of ``patch_size`` an image of ``image_size`` is cut into (the convolution's
    kernel and stride), an edge that no whole patch covers dropped. A model of ViT's patches (DINOv2) reads them so,
    with its own defaults."""
    (image_height, image_width), (patch_height, patch_width) = (sides(config, "image_size", defaults),
                                                                sides(config, "patch_size", defaults))
    if patch_height != patch_width:
        raise ConfigError(f"patch_size [{patch_height}, {patch_width}]: a patch that is not square is not derived")
    if patch_height > min(image_height, image_width):
        raise ConfigError(f"patch_size ({patch_height}) is more than the image's side ({min(image_height, image_width)}):"
                          " no patch to embed")
    return (image_height // patch_height) * (image_width // patch_width), patch_height


def head_size(config: Mapping, hidden: int, heads: int) -> int:
    """d_h: head_dim where a config sets it (ViTAttention reads it), else hidden_size // num_attention_heads."""
    if "head_dim" in config:
        return size(config, "head_dim", {})
    HEAD_HAS_A_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF | {"D": "hidden_size"})
    return hidden // heads


def read(config: Mapping) -> dict[str, int]:
    def get(field: str, minimum: int = 1) -> int:
        return size(config, field, DEFAULTS, minimum)

    hidden, heads = get("hidden_size"), get("num_attention_heads")
    head = head_size(config, hidden, heads)
    count, patch = patches(config)
    pooler = config.get("pooler_output_size")
    return {
        "N_p": count, "p": patch,
        "C_i": get("num_channels"), "D": hidden, "H": heads, "d_h": head, "F": get("intermediate_size"),
        "L": get("num_hidden_layers"),
        # ViTConfig: pooler_output_size if set (and not 0), else hidden_size.
        "D_p": hidden if not pooler else size(config, "pooler_output_size", {}),
        "S": get("encoder_stride"), "C": num_labels(config),
    }


# The one switch: no bias on the queries, keys and values (qkv_bias false; the output map keeps its bias).
LAYOUT = Layout((switch("no_qkv_bias", "qkv_bias", True, on=False),))

# ViTConfig's fields that set no size (configuration_vit.py, 5.23).
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout(),
    attention_probs_dropout_prob=validation.dropout(), initializer_range=validation.deviation(),
    layer_norm_eps="float", qkv_bias="bool", pooler_act=validation.activation())

READER = Reader("vit", read, LAYOUT, FIELD_OF, (HEAD_HAS_A_WIDTH,), checks=CHECKS)
