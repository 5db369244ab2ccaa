"""DINOv2 (model_type ``dinov2``): config.json -> {symbol name: value}, and the layout it asks for.

Dinov2Config (configuration_dinov2.py, 5.23) has ViT's image, patch and encoder fields (read as ViT reads them,
with DINOv2's 14-pixel patches by default) and no intermediate_size: the feed-forward's width is hidden_size times
``mlp_ratio`` (Dinov2MLP), or two thirds of that rounded up to a multiple of 8 under ``use_swiglu_ffn``
(Dinov2SwiGLUFFN).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import isqrt

from ..reading import ConfigError, Layout, Reader, flag, num_labels, size, switch
from .. import validation
from . import vit

# transformers' Dinov2Config defaults: a minimal config.json takes these for a missing field.
DEFAULTS = {
    "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "mlp_ratio": 4,
    "image_size": 224, "patch_size": 14, "num_channels": 3,
}

FIELD_OF = {"N_p": "(image_size // patch_size)^2", "p": "patch_size", "C_i": "num_channels", "D": "hidden_size",
            "H": "num_attention_heads", "d_h": "head_dim, else hidden_size // num_attention_heads",
            "F": "hidden_size * mlp_ratio (use_swiglu_ffn: 2/3 of it, rounded up to a multiple of 8)",
            "L": "num_hidden_layers", "C": "num_labels"}


def inner_width(hidden: int, ratio: int, swiglu: bool) -> int:
    """F, the feed-forward's inner width. Dinov2MLP: int(hidden_size * mlp_ratio), an integer (mlp_ratio is an int:
    the strict config class refuses a float). Dinov2SwiGLUFFN: (int(F * 2 / 3) + 7) // 8 * 8, in floats; here in
    integers, (2 F) // 3: F * 2 / 3 is (2 F) / 3 (Python reads it left to right), within half an ulp of the true
    quotient, which is a whole number or a third away from one, so int() of it is the floor while 2 F is far below
    2^52 (asserted)."""
    width = hidden * ratio
    if not swiglu:
        return width
    assert 2 * width < 2**50, "the float quotient is exact enough to floor"
    return ((2 * width) // 3 + 7) // 8 * 8


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return size(config, field, DEFAULTS)

    hidden, heads = get("hidden_size"), get("num_attention_heads")
    head = vit.head_size(config, hidden, heads)
    count, patch = vit.patches(config, DEFAULTS)
    # Dinov2Embeddings.interpolate_pos_encoding: an image whose sides differ resizes the position table as a
    # square of sqrt(N_p) a side (reshape to its torch_int square root): a forward of the config's own image fails
    # unless its patches are a square number (a square image's always are).
    if isqrt(count) ** 2 != count:
        height, width = vit.sides(config, "image_size", DEFAULTS)
        raise ConfigError(f"image_size [{height}, {width}] gives {count} patches, not a square number: "
                          "Dinov2Embeddings resizes its positions as a square, and a forward fails")
    return {
        "N_p": count, "p": patch, "C_i": get("num_channels"), "D": hidden, "H": heads, "d_h": head,
        "F": inner_width(hidden, get("mlp_ratio"), flag(config, "use_swiglu_ffn")),
        "L": get("num_hidden_layers"), "C": num_labels(config),
    }


# What changes the tensors: the gated feed-forward (gate_proj, up_proj and down_proj for fc1 and fc2); no mask token
# (use_mask_token false: Dinov2Embeddings.mask_token is None); no bias on the queries, keys and values (qkv_bias
# false; o_proj keeps its bias). layerscale_value, drop_path_rate, apply_layernorm and reshape_hidden_states change
# none: LayerScale's D-vector is built whatever its initial value, and the backbone's final LayerNorm whether it
# applies it or not.
LAYOUT = Layout((switch("swiglu", "use_swiglu_ffn"), switch("no_mask_token", "use_mask_token", True, on=False),
                 switch("no_qkv_bias", "qkv_bias", True, on=False)))

# Dinov2Config's fields that set no size (configuration_dinov2.py, 5.23).
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout(),
    attention_probs_dropout_prob=validation.dropout(), initializer_range=validation.deviation(),
    layer_norm_eps="float", qkv_bias="bool", layerscale_value="float", drop_path_rate="float | int",
    use_swiglu_ffn="bool", apply_layernorm="bool", reshape_hidden_states="bool", use_mask_token="bool")

READER = Reader("dinov2", read, LAYOUT, FIELD_OF, (vit.HEAD_HAS_A_WIDTH,), checks=CHECKS)
