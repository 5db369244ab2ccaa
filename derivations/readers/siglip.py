"""SigLIP (model_type ``siglip``): config.json -> {symbol name: value}, and the layout it asks for.

SiglipConfig (configuration_siglip.py, 5.23) holds CLIP's two sub-configs under SigLIP's classes and defaults:
``text_config`` (SiglipTextConfig: a bidirectional text encoder whose last token's state a head projects to
``projection_size``, its width unless set) and ``vision_config`` (SiglipVisionConfig: patches with no class token,
and unless ``vision_use_head`` is false an attention-pooling head). It has no projection_dim of its own: the text
head's output is compared with the vision tower's pooled state, so the two must be as wide.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, Switch, shown, size
from .. import validation
from .clip import TEXT_HEADS, VISION_HEADS, sub_config, towers

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

# The attention layers require heads that partition the width, as CLIP's (the pooling head's nn.MultiheadAttention
# refuses another width too): clip.TEXT_HEADS and clip.VISION_HEADS.


def read(config: Mapping) -> dict[str, int]:
    values, text, _ = towers(config, TEXT, VISION)
    # SiglipTextConfig: projection_size, else hidden_size (a null is the width too).
    projection = text.get("projection_size")
    return values | {"E_p": values["D_t"] if projection is None else size(
        {"text_config.projection_size": projection}, "text_config.projection_size", {})}


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
