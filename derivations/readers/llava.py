"""LLaVA (model_type ``llava``): config.json -> {symbol name: value}, and the layout.

LlavaConfig (configuration_llava.py, 5.23) holds ``vision_config`` (a CLIPVisionConfig: CLIP's vision tower, read as
:mod:`derivations.readers.clip` reads its ``vision_config``; absent, LlavaConfig's own defaults, CLIP ViT-L/14 at
336 pixels, where a vision_config given takes CLIPVisionConfig's) and ``text_config`` (a LlamaConfig: the language
model, read as :mod:`derivations.readers.llama` reads a config of its own). The image becomes one token per patch of
the tower (``vision_feature_select_strategy`` "default" drops the class token's state) or one more ("full" keeps it):
N_i is computed, not read (``image_seq_length`` is the processor's, which the model does not read).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, Switch, flag, num_labels, shown
from ..rules import divides
from .. import validation
from . import llama
from ._composite import fields, inside, model_type, vision, within
from .clip import VISION as CLIP_VISION, sub_config, towers

TEXT, TOWER = "llama", "clip_vision_model"
# LlavaConfig's vision_config where the config gives none (sub_configs_defaults' init_kwargs).
TOWER_DEFAULTS = CLIP_VISION | {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
                                "num_attention_heads": 16, "image_size": 336, "patch_size": 14}
STRATEGIES = {"default": 0, "full": 1}  # the class token's state kept: none, one

FIELD_OF = (fields("text_config", llama.READER)
            | {"C_i": "vision_config.num_channels", "D_v": "vision_config.hidden_size",
               "F_v": "vision_config.intermediate_size", "L_v": "vision_config.num_hidden_layers",
               "H_v": "vision_config.num_attention_heads", "p": "vision_config.patch_size",
               "N_p": "(vision_config.image_size // vision_config.patch_size)^2",
               "N_i": "N_p, + 1 where vision_feature_select_strategy is \"full\"", "C": "num_labels"})

# CLIPVisionConfig refuses a width its heads do not divide (as CLIP's own reader does, under the tower's names).
VISION_HEADS = divides("H_v", "D_v", "{H_v} divides {D_v} (the vision tower's heads partition its width)")


def read(config: Mapping) -> dict[str, int]:
    model_type(config, "text_config", TEXT, (TEXT,))
    model_type(config, "vision_config", TOWER, (TOWER,))
    text = within("text_config", llama.read, config)
    defaults = TOWER_DEFAULTS if config.get("vision_config") is None else CLIP_VISION
    tower, _, _ = towers({"vision_config": sub_config(config, "vision_config")}, vision_defaults=defaults)
    values = text | vision({k: tower[k] for k in ("C_i", "D", "F", "L", "H", "N_p", "p")})
    values["N_i"] = values["N_p"] + STRATEGIES[strategy(config)]
    feature_layer(config, values["L_v"])
    return values | {"C": num_labels(config)}


def strategy(config: Mapping) -> str:
    value = config.get("vision_feature_select_strategy", "default")
    if value not in STRATEGIES:
        raise ConfigError(f"vision_feature_select_strategy must be \"default\" or \"full\", got {shown(value)}")
    return value


def feature_layer(config: Mapping, layers: int) -> None:
    """The projector reads one of the tower's L_v + 1 hidden states (the embeddings', then each layer's); a list of
    them (concatenated: a projector L times as wide) is not derived."""
    value = config.get("vision_feature_layer", -2)
    if isinstance(value, list):
        raise ConfigError(f"vision_feature_layer {shown(value)}: a list of feature layers (their states concatenated) "
                          "is not derived; one layer's index is")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"vision_feature_layer must be an integer, got {shown(value)}")
    if not -(layers + 1) <= value <= layers:
        raise ConfigError(f"vision_feature_layer ({value}) is not one of the vision tower's {layers + 1} hidden states "
                          f"(vision_config.num_hidden_layers {layers}, and the embeddings')")


def tied(config: Mapping) -> bool:
    """LlavaConfig ties the head when its tie_word_embeddings is true or text_config's is (its __post_init__ takes
    text_config's where its own is false); both false by default (LlamaConfig's too)."""
    return flag(config, "tie_word_embeddings") or flag(sub_config(config, "text_config"), "tie_word_embeddings")


# The language model's switches, read in text_config, but the head's tie (LlavaForConditionalGeneration's lm_head,
# tied as LlavaConfig reads it); the projector's biases (multimodal_projector_bias, true by default and in every
# release).
LAYOUT = Layout((*inside("text_config", llama.READER, top=("tied", "no_token_bias")),
                 Switch("tied", tied),
                 Switch("no_projector_bias", lambda config: not flag(config, "multimodal_projector_bias", True))))

# The forward reads output_hidden_states as a truth value alone (as CLIP's).
CHECKS = validation.fields(text_config="dict | None", vision_config="dict | None", image_token_index="int",
                           image_seq_length="int", projector_hidden_act=validation.activation(),
                           multimodal_projector_bias="bool", tie_word_embeddings="bool",
                           pad_token_id=validation.Field("int | float | None"),
                           output_hidden_states="object")

# The key/value cache is the language model's (LLaMA's: every layer full).
READER = Reader("llava", read, LAYOUT, FIELD_OF, (*llama.READER.rules, VISION_HEADS), checks=CHECKS)
