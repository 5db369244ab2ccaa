"""SigLIP (model_type ``siglip``): config.json -> {symbol name: value}, and the layout it asks for.

SiglipConfig (configuration_siglip.py, 5.23) holds CLIP's two sub-configs under SigLIP's classes and defaults:
``text_config`` (SiglipTextConfig: a bidirectional text encoder whose last token's state a head projects to
``projection_size``, its width unless set) and ``vision_config`` (SiglipVisionConfig: patches with no class token,
and unless ``vision_use_head`` is false an attention-pooling head). It has no projection_dim of its own: the text
head's output is compared with the vision tower's pooled state, so the two must be as wide.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, Switch, num_labels, shown, size
from ..rules import divides
from .. import validation
from .clip import side, sub_config

# transformers' SiglipTextConfig and SiglipVisionConfig defaults (projection_size: the text width when unset).
TEXT = {"vocab_size": 32000, "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
        "num_attention_heads": 12, "max_position_embeddings": 64}
VISION = {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "num_attention_heads": 12,
          "num_channels": 3, "image_size": 224, "patch_size": 16}

FIELD_OF = {"V": "text_config.vocab_size", "P": "text_config.max_position_embeddings",
            "D_t": "text_config.hidden_size", "F_t": "text_config.intermediate_size",
            "L_t": "text_config.num_hidden_layers", "H_t": "text_config.num_attention_heads",
            "E_p": "text_config.projection_size", "N_p": "(vision_config.image_size // vision_config.patch_size)^2",
            "p": "vision_config.patch_size", "C_i": "vision_config.num_channels", "D": "vision_config.hidden_size",
            "F": "vision_config.intermediate_size", "L": "vision_config.num_hidden_layers",
            "H": "vision_config.num_attention_heads", "C": "num_labels"}

# The attention layers require heads that partition the width (the text tower's and the vision tower's; the pooling
# head's nn.MultiheadAttention refuses another width too).
TEXT_HEADS = divides("H_t", "D_t", "{H_t} divides {D_t} (the text tower's heads partition its width)")
VISION_HEADS = divides("H", "D", "{H} divides {D} (the vision tower's heads partition its width)")


def read(config: Mapping) -> dict[str, int]:
    text, vision = sub_config(config, "text_config"), sub_config(config, "vision_config")

    def of(sub: Mapping, where: str, defaults: Mapping[str, int], field: str) -> int:
        return size({f"{where}.{field}": sub.get(field, defaults[field])}, f"{where}.{field}", {})

    values = {
        "V": of(text, "text_config", TEXT, "vocab_size"), "P": of(text, "text_config", TEXT, "max_position_embeddings"),
        "D_t": of(text, "text_config", TEXT, "hidden_size"), "F_t": of(text, "text_config", TEXT, "intermediate_size"),
        "L_t": of(text, "text_config", TEXT, "num_hidden_layers"),
        "H_t": of(text, "text_config", TEXT, "num_attention_heads"),
        "C_i": of(vision, "vision_config", VISION, "num_channels"), "D": of(vision, "vision_config", VISION, "hidden_size"),
        "F": of(vision, "vision_config", VISION, "intermediate_size"),
        "L": of(vision, "vision_config", VISION, "num_hidden_layers"),
        "H": of(vision, "vision_config", VISION, "num_attention_heads"), "C": num_labels(config),
    }
    # SiglipTextConfig: projection_size, else hidden_size (a null is the width too).
    projection = text.get("projection_size")
    values["E_p"] = values["D_t"] if projection is None else size(
        {"text_config.projection_size": projection}, "text_config.projection_size", {})
    TEXT_HEADS.check(values, FIELD_OF)
    VISION_HEADS.check(values, FIELD_OF)
    image, patch = side(vision, "image_size", "vision_config", VISION), side(vision, "patch_size", "vision_config", VISION)
    if patch > image:
        raise ConfigError(f"vision_config.patch_size ({patch}) is more than vision_config.image_size ({image}): no "
                          "patch to embed")
    return values | {"N_p": (image // patch) ** 2, "p": patch}


def check(config: Mapping, architecture: str) -> None:
    """SiglipModel compares the text head's output with the vision tower's pooled state: a product of the two, which
    fails unless they are as wide (the model is built; its forward is not)."""
    if architecture != "SiglipModel":
        return
    values = read(config)
    if values["E_p"] != values["D"]:
        raise ConfigError(f"text_config.projection_size ({shown(values['E_p'])}) is not vision_config.hidden_size "
                          f"({shown(values['D'])}): SiglipModel compares the two, and its forward fails")


def _head(config: Mapping) -> bool:
    """vision_config.vision_use_head (true by default): the attention-pooling head is built."""
    flag = sub_config(config, "vision_config").get("vision_use_head", True)
    if not isinstance(flag, bool):
        raise ConfigError(f"vision_config.vision_use_head must be true or false, got {shown(flag)}")
    return not flag


# The one switch: no attention-pooling head (vision_config.vision_use_head false, as PaliGemma's tower has it).
LAYOUT = Layout((Switch("no_head", _head),))

# The forward reads output_hidden_states as a truth value (CLIP's does too).
CHECKS = validation.fields(initializer_factor="float", text_config="dict | None", vision_config="dict | None",
                           output_hidden_states="object")

READER = Reader("siglip", read, LAYOUT, FIELD_OF, (TEXT_HEADS, VISION_HEADS), check=check, checks=CHECKS)
