"""Llama 4 with its vision tower (model_type ``llama4``): config.json -> {symbol name: value}, and the layout.

Llama4Config (configuration_llama4.py, 5.23) holds ``text_config`` (a Llama4TextConfig: the language model, read as
:mod:`derivations.readers.llama4_text` reads a config of its own, with its defaults) and ``vision_config`` (a
Llama4VisionConfig: a tower of its own, read here with its class's defaults). The tower's states go through a pixel
shuffle that folds each square of 1/r by 1/r patches into one token (r = ``pixel_shuffle_ratio``, 0.5 in both
releases: 4 patches a token), so an image of (image_size // patch_size)^2 patches is N_i = (n r)^2 tokens in the
language model's sequence, n = image_size // patch_size: computed, not read (the processor's tiles of an image are
each such an image).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, shown
from ..rules import divides
from .. import validation
from . import llama4_text
from ._composite import fields, inside, model_type, within
from .clip import sub_config

TEXT, TOWER = "llama4_text", "llama4_vision_model"

# Llama4VisionConfig's defaults (5.23). No attribute_map. image_size and patch_size are typed int or a pair; the
# tower squares image_size // patch_size (a pair fails there).
TOWER_FIELDS = Fields({"hidden_size": 768, "intermediate_size": 5632, "num_hidden_layers": 34,
                       "num_attention_heads": 16, "num_channels": 3, "image_size": 448, "patch_size": 14,
                       "vision_output_dim": 7680, "projector_input_dim": 4096, "projector_output_dim": 4096})
RATIO = 0.5  # pixel_shuffle_ratio's default
TOWER_SYMBOLS = {"D_v": "hidden_size", "F_v": "intermediate_size", "L_v": "num_hidden_layers",
                 "H_v": "num_attention_heads", "C_i": "num_channels", "p": "patch_size",
                 "F_a": "projector_input_dim", "D_a": "projector_output_dim", "D_vo": "vision_output_dim"}

FIELD_OF = (fields("text_config", llama4_text.READER)
            | {name: f"vision_config.{field}" for name, field in TOWER_SYMBOLS.items()}
            | {"N_p": "(vision_config.image_size // vision_config.patch_size)^2",
               "N_i": "(n r)^2: n = image_size // patch_size, r = vision_config.pixel_shuffle_ratio"})

# Llama4VisionAttention's heads are hidden_size // num_attention_heads wide and its q, k, v maps H_v heads of them:
# a width the heads do not divide is not derived (the tower's rotary positions then fail to broadcast).
VISION_HEADS = divides("H_v", "D_v", "{H_v} divides {D_v} (the vision tower's heads partition its width)")


def ratio(tower: Mapping) -> float:
    value = tower.get("pixel_shuffle_ratio", RATIO)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ConfigError(f"vision_config.pixel_shuffle_ratio must be a number above 0 and at most 1, got "
                          f"{shown(value)}")
    return value


def read_tower(tower: Mapping) -> dict[str, int]:
    values = {name: TOWER_FIELDS.size(tower, field) for name, field in TOWER_SYMBOLS.items()}
    image = TOWER_FIELDS.size(tower, "image_size")
    if values["p"] > image:
        raise ConfigError(f"patch_size ({values['p']}) is more than image_size ({image}): no patch to embed")
    side = image // values["p"]
    # pixel_shuffle: int(n r) tokens a side (where its reshapes hold: what the forward checks).
    per_side = int(side * ratio(tower))
    if per_side == 0:
        raise ConfigError(f"pixel_shuffle_ratio {shown(tower.get('pixel_shuffle_ratio', RATIO))} folds the image's "
                          f"{side} x {side} patches into no token")
    return values | {"N_p": side**2, "N_i": per_side**2}


def read(config: Mapping) -> dict[str, int]:
    model_type(config, "text_config", TEXT, (TEXT,))
    model_type(config, "vision_config", TOWER, (TOWER,))
    values = within("text_config", llama4_text.read, config) | within("vision_config", read_tower, config)
    VISION_HEADS.check(values, FIELD_OF)
    return values


def text(config: Mapping) -> Mapping:
    return sub_config(config, "text_config")


# The language model's switches, read in text_config: its attention's biases and its head's tie (Llama4ForCausalLM
# ties lm_head to the token embeddings as text_config says; the whole model's own tie_word_embeddings changes
# nothing). The tower and the projector have no switch (multi_modal_projector_bias is read by no module).
LAYOUT = Layout(inside("text_config", llama4_text.READER))

# Llama4Config's fields that set no size (configuration_llama4.py, 5.23).
# (The forward reads output_hidden_states as a truth value alone, as the other composites'.)
CHECKS = validation.fields(text_config="dict | None", vision_config="dict | None", boi_token_index="int",
                           eoi_token_index="int", image_token_index="int", tie_word_embeddings="bool",
                           output_hidden_states="object")

# The key/value cache is the language model's: its layers' chunks as text_config sets them.
READER = Reader("llama4", read, LAYOUT, FIELD_OF, (*llama4_text.READER.rules, VISION_HEADS),
                zero=llama4_text.READER.zero, checks=CHECKS,
                windows=lambda config, layers: llama4_text.READER.windows(text(config), layers),
                rotary=lambda config, layers: llama4_text.READER.rotary(text(config), layers))
