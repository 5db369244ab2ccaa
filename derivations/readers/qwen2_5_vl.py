"""Qwen2.5-VL (model_type ``qwen2_5_vl``): config.json -> {symbol name: value}, and the layout.

Qwen2_5_VLConfig (configuration_qwen2_5_vl.py, 5.23) holds ``vision_config`` (a Qwen2_5_VLVisionConfig: the tower's
``depth``, ``hidden_size``, ``intermediate_size``, ``num_heads``, ``in_channels``, ``patch_size``,
``temporal_patch_size``, ``spatial_merge_size``, ``out_hidden_size``) and the language model's fields, which the
released configs write at the TOP level, as a Qwen2 config's: where ``text_config`` is absent (or null),
``Qwen2_5_VLConfig.__post_init__`` builds the Qwen2_5_VLTextConfig from the top-level fields; where it is given, the
top-level ones are ignored. Either way with Qwen2_5_VLTextConfig's defaults (the 72B model's sizes), not Qwen2Config's.

The released configs write ``in_chans``, which no class reads: the patch convolution takes ``in_channels`` (3 by
default). Qwen2_5_VLAttention ignores ``head_dim`` (its heads are hidden_size // num_attention_heads, and it refuses
a width the heads do not divide).

What one image costs is not in the config: the processor sizes each image (its grid of patches, image_grid_thw), so
the reader gives no N_p and no N_i; the FLOPs of a class that reads images need an image's size (``--image HxW``:
:func:`image`, the processor's grid, and the pairs its tower's windowed and full attention compare).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, flag, qwen_windows, shown
from .. import validation
from . import _qwen_image
from ._composite import VISION, model_type, vision, within
from .clip import sub_config
from ..rules import divides
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, read_decoder

TEXT, TOWER = "qwen2_5_vl_text", "qwen2_5_vl_vision"

# Qwen2_5_VLTextConfig's defaults (5.23): num_key_value_heads 8, and null means as many as the heads.
TEXT_FIELDS = Fields({"vocab_size": 152064, "hidden_size": 8192, "intermediate_size": 29568, "num_hidden_layers": 80,
                      "num_attention_heads": 64, "num_key_value_heads": 8})
# Qwen2_5_VLVisionConfig's defaults (5.23); attribute_map reads num_attention_heads as num_heads, num_hidden_layers
# as depth (the config keeps the first names).
TOWER_DEFAULTS = {"depth": 32, "hidden_size": 3584, "intermediate_size": 3420, "num_heads": 16, "in_channels": 3,
          "patch_size": 14, "temporal_patch_size": 2, "spatial_merge_size": 2, "out_hidden_size": 3584}
TOWER_SYMBOLS = {"L": "depth", "D": "hidden_size", "F": "intermediate_size", "H": "num_heads", "C_i": "in_channels",
                 "p": "patch_size", "p_t": "temporal_patch_size", "S_m": "spatial_merge_size", "D_o": "out_hidden_size"}

# The language model's fields where the released configs write them (top level); a text_config holds the same names.
FIELD_OF = {"V": "vocab_size", "D": "hidden_size", "H": "num_attention_heads", "K": "num_key_value_heads",
            "d_h": "hidden_size / num_attention_heads", "F": "intermediate_size", "L": "num_hidden_layers",
            **{VISION.get(name, name): f"vision_config.{field}" for name, field in TOWER_SYMBOLS.items()},
            # Not in the config: the processor sizes each image (--image HxW gives them).
            "N_p": "image_grid_thw", "N_i": "image_grid_thw",
            "A_v": "image_grid_thw, vision_config.window_size and fullatt_block_indexes"}


def text_of(config: Mapping) -> Mapping:
    """The fields the language model is built from: text_config where given, else the top level (as
    Qwen2_5_VLConfig.__post_init__ pops them)."""
    return sub_config(config, "text_config") if config.get("text_config") is not None else config


def read_text(text: Mapping) -> dict[str, int]:
    # Qwen2_5_VLAttention: head_dim = hidden_size // num_attention_heads, whatever head_dim says; divisible.
    values = read_decoder({k: v for k, v in text.items() if k != "head_dim"}, TEXT_FIELDS, divisible=False,
                          zero_head_dim=False, null_kv_heads=True)
    HEADS_DIVIDE_WIDTH.check(values, FIELD_OF)
    values.pop("C")  # no class of the family classifies
    return values


# attribute_map: num_attention_heads and num_hidden_layers, where a config writes them, are num_heads and depth.
TOWER_FIELDS = Fields(TOWER_DEFAULTS, {"num_heads": "num_attention_heads", "depth": "num_hidden_layers"})


def read_tower(tower: Mapping) -> dict[str, int]:
    values = {name: TOWER_FIELDS.size(tower, field) for name, field in TOWER_SYMBOLS.items()}
    if values["D"] < values["H"]:  # Qwen2_5_VLVisionAttention scales by head_dim ** -0.5: 0 fails to build
        raise ConfigError(f"hidden_size ({values['D']}) is smaller than num_heads ({values['H']}): a head size of 0")
    return vision(values)


def read(config: Mapping) -> dict[str, int]:
    if config.get("text_config") is not None:
        model_type(config, "text_config", TEXT, (TEXT,))
        text = within("text_config", read_text, config)
    else:
        text = read_text(config)
    return text | within("vision_config", read_tower, config)


def tied(config: Mapping) -> bool:
    """The head is the token table where tie_word_embeddings (false by default) says so, or where text_config does
    (Qwen2_5_VLConfig forwards a pre-v5 text_config's true to the whole model)."""
    own = flag(config, "tie_word_embeddings")
    text = sub_config(config, "text_config") if config.get("text_config") is not None else {}
    return own or flag(text, "tie_word_embeddings")


LAYOUT = Layout((Switch("tied", tied),))

# Qwen2_5_VLVisionConfig's defaults (5.23): windows of 112 pixels a side; full attention in blocks 7, 15, 23 and 31.
WINDOW_SIZE, FULL_ATTENTION_BLOCKS = 112, (7, 15, 23, 31)


def attention_layout(tower: Mapping) -> tuple[int, tuple[int, ...]]:
    """vision_config's window_size (pixels a side) and fullatt_block_indexes, as the tower reads them."""
    window = tower.get("window_size", WINDOW_SIZE)
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise ConfigError(f"vision_config.window_size must be a positive integer, got {shown(window)}")
    full = tower.get("fullatt_block_indexes", FULL_ATTENTION_BLOCKS)
    if not isinstance(full, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in full):
        raise ConfigError(f"vision_config.fullatt_block_indexes must be a list of integers, got {shown(full)}")
    return window, tuple(full)


def image(config: Mapping, values: Mapping[str, int], height: int, width: int) -> tuple:
    """One image of height x width pixels (derivations.readers._qwen_image): its grid, N_p, N_i, and A_v, the
    query-key pairs of its tower's attention summed over the L_v blocks. A block listed in fullatt_block_indexes
    attends over the whole image (N_p^2 pairs); the others within windows of window_size // S_m // p merged tokens a
    side (get_vision_window_index), each window on its own (the eager attention splits by cu_seqlens)."""
    window, full = attention_layout(sub_config(config, "vision_config"))
    grid, sizes = _qwen_image.image(values, _qwen_image.QWEN2_5_VL, height, width)
    merged = window // values["S_m"] // values["p"]
    if merged < 1:  # the tower divides by it
        raise ConfigError(f"vision_config.window_size ({window}) is smaller than a merged patch (spatial_merge_size x "
                          f"patch_size = {values['S_m'] * values['p']} pixels): no window to attend in")
    full_blocks = sum(1 for block in range(values["L_v"]) if block in full)
    pairs = ((values["L_v"] - full_blocks) * _qwen_image.window_pairs(grid, values["S_m"], merged)
             + full_blocks * sizes["N_p"] ** 2)
    return grid, sizes | {"A_v": pairs}

# The forward reads output_hidden_states as a truth value alone (as CLIP's).
CHECKS = validation.fields(DECODER_CHECKS, text_config="dict | None", vision_config="dict | None",
                           image_token_id="int", video_token_id="int", vision_start_token_id="int",
                           vision_end_token_id="int", tie_word_embeddings="bool",
                           use_sliding_window="bool | None", sliding_window="int | None", max_window_layers="int | None",
                           output_hidden_states="object")

# The key/value cache is the language model's: Qwen2's windows (none in any release), max_window_layers 80 by default.
# Qwen2_5_VLAttention refuses a width its heads do not divide (whatever head_dim says).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`Qwen2_5_VLAttention` requires the heads {H} to divide the width {D}.")

READER = Reader("qwen2_5_vl", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, EVEN_HEAD),
                checks=CHECKS,
                windows=lambda config, layers: qwen_windows({"max_window_layers": 80, **text_of(config)}, layers),
                image=image)
