"""Qwen3-VL (model_type ``qwen3_vl``): config.json -> {symbol name: value}, and the layout.

Qwen3VLConfig (configuration_qwen3_vl.py, 5.23) holds ``text_config`` (a Qwen3VLTextConfig: Qwen3's language model,
whose defaults are Qwen3Config's, read as :mod:`derivations.readers.qwen3` reads a config of its own) and
``vision_config`` (a Qwen3VLVisionConfig: Qwen2.5-VL's tower fields, read as :mod:`derivations.readers.qwen2_5_vl`
reads them but with this class's defaults, and two more: ``num_position_embeddings``, the rows of its learned
position table, and ``deepstack_visual_indexes``, the blocks whose states a merger each sends to the language model).

Unlike Qwen2.5-VL's, this config reads no language-model field at the top level: without a text_config the language
model is Qwen3VLTextConfig's defaults, whatever the top level says. Its head is tied where the top-level
``tie_word_embeddings`` says so (text_config's is not read).

What one image costs is not in the config (the processor sizes each image: image_grid_thw), as for Qwen2.5-VL: the
reader gives no N_p and no N_i, and the FLOPs of a class that reads images need an image's size (``--image HxW``:
:func:`image`, the processor's grid; every block attends over the whole image).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, shown, switch
from .. import validation
from . import _qwen_image, qwen2_5_vl, qwen3
from ._composite import VISION, fields, inside, within

# Qwen3VLVisionConfig's defaults (5.23); attribute_map reads num_attention_heads as num_heads, num_hidden_layers as
# depth. deepstack_visual_indexes defaults to (8, 16, 24): three mergers.
TOWER_DEFAULTS = {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16, "in_channels": 3,
                  "patch_size": 16, "temporal_patch_size": 2, "spatial_merge_size": 2, "out_hidden_size": 3584,
                  "num_position_embeddings": 2304}
DEEPSTACK_DEFAULT = (8, 16, 24)
TOWER_FIELDS = Fields(TOWER_DEFAULTS, {"num_heads": "num_attention_heads", "depth": "num_hidden_layers"})
TOWER_SYMBOLS = {**qwen2_5_vl.TOWER_SYMBOLS, "P_v": "num_position_embeddings"}

FIELD_OF = ({k: v for k, v in fields("text_config", qwen3.READER).items() if k != "C"}
            | {VISION.get(name, name): f"vision_config.{field}" for name, field in TOWER_SYMBOLS.items()}
            | {"L_ds": "vision_config.deepstack_visual_indexes",
               # Not in the config: the processor sizes each image (--image HxW gives them).
               "N_p": "image_grid_thw", "N_i": "image_grid_thw"})


def read_text(text: Mapping) -> dict[str, int]:
    values = qwen3.read(text)
    values.pop("C")  # no class of the family classifies
    return values


def deepstack(tower: Mapping) -> int:
    """Qwen3VLVisionModel builds one merger for each entry of deepstack_visual_indexes (an entry past the last block
    is never reached, its merger is built all the same)."""
    indexes = tower.get("deepstack_visual_indexes", DEEPSTACK_DEFAULT)
    if not isinstance(indexes, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                         for i in indexes):
        raise ConfigError(f"deepstack_visual_indexes must be a list of integers, got {shown(indexes)}")
    return len(indexes)


def read_tower(tower: Mapping) -> dict[str, int]:
    values = {name: TOWER_FIELDS.size(tower, field) for name, field in TOWER_SYMBOLS.items()}
    if values["D"] < values["H"]:  # Qwen3VLVisionAttention scales by head_dim ** -0.5: 0 fails to build
        raise ConfigError(f"hidden_size ({values['D']}) is smaller than num_heads ({values['H']}): a head size of 0")
    return {VISION.get(name, name): value for name, value in values.items()} | {"L_ds": deepstack(tower)}


def read(config: Mapping) -> dict[str, int]:
    # Qwen3VLConfig builds its two sub-configs as Qwen3VLTextConfig and Qwen3VLVisionConfig whatever model_type they
    # name (the released vision_config's "qwen3_vl" among others): read as such.
    return within("text_config", read_text, config) | within("vision_config", read_tower, config)


def image(config: Mapping, values: Mapping[str, int], height: int, width: int) -> tuple:
    """One image of height x width pixels, as the released processor cuts it (derivations.readers._qwen_image)."""
    return _qwen_image.image(values, _qwen_image.QWEN3_VL, height, width)


# Biases on q, k, v and o where text_config's attention_bias says so (false in every release); the head tied where
# the whole config's tie_word_embeddings says so (false by default).
LAYOUT = Layout((*inside("text_config", qwen3.READER, top=("tied", "no_token_bias")),
                 switch("tied", "tie_word_embeddings")))

# The forward reads output_hidden_states as a truth value alone (as CLIP's).
CHECKS = validation.fields(text_config="dict | None", vision_config="dict | None", image_token_id="int",
                           video_token_id="int", vision_start_token_id="int", vision_end_token_id="int",
                           tie_word_embeddings="bool",
                           output_hidden_states="object")

# The language model's rules (Qwen3's); the tower's heads need not divide its width to be built (its forward, which
# would need them to, reads an image the config does not size).
READER = Reader("qwen3_vl", read, LAYOUT, FIELD_OF, qwen3.READER.rules, checks=CHECKS, zero=frozenset({"L_ds"}),
                image=image)
