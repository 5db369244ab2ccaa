"""CLIP (model_type ``clip``): config.json -> {symbol name: value}, and the layout it asks for.

CLIPConfig (configuration_clip.py, 5.23) holds two sub-configs, each with its class's defaults where a field is
missing: ``text_config`` (CLIPTextConfig: a causal text encoder of ``max_position_embeddings`` tokens) and
``vision_config`` (CLIPVisionConfig: ViT's patches of one image), and the width of the joint space both are projected
to, ``projection_dim``. The vision tower takes the plain symbols (D, F, L, H and the image's), the text tower its
own (D_t, F_t, L_t, H_t; V and P).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, json_type, num_labels, shown, size
from ..rules import divides
from .. import validation

# transformers' CLIPTextConfig and CLIPVisionConfig defaults, and CLIPConfig's own.
TEXT = {"vocab_size": 49408, "hidden_size": 512, "intermediate_size": 2048, "projection_dim": 512,
        "num_hidden_layers": 12, "num_attention_heads": 8, "max_position_embeddings": 77}
VISION = {"hidden_size": 768, "intermediate_size": 3072, "projection_dim": 512, "num_hidden_layers": 12,
          "num_attention_heads": 12, "num_channels": 3, "image_size": 224, "patch_size": 32}
DEFAULTS = {"projection_dim": 512}

FIELD_OF = {"V": "text_config.vocab_size", "P": "text_config.max_position_embeddings",
            "D_t": "text_config.hidden_size", "F_t": "text_config.intermediate_size",
            "L_t": "text_config.num_hidden_layers", "H_t": "text_config.num_attention_heads",
            "N_p": "(vision_config.image_size // vision_config.patch_size)^2", "p": "vision_config.patch_size",
            "C_i": "vision_config.num_channels", "D": "vision_config.hidden_size",
            "F": "vision_config.intermediate_size", "L": "vision_config.num_hidden_layers",
            "H": "vision_config.num_attention_heads", "E_p": "projection_dim", "C": "num_labels"}

# CLIPTextConfig and CLIPVisionConfig refuse a width the heads do not divide (validate_architecture).
TEXT_HEADS = divides("H_t", "D_t", "{H_t} divides {D_t} (the text tower's heads partition its width)")
VISION_HEADS = divides("H", "D", "{H} divides {D} (the vision tower's heads partition its width)")


def sub_config(config: Mapping, field: str) -> Mapping:
    """``text_config`` or ``vision_config``: an object, or absent or null (every field its class's default)."""
    value = config.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{field} must be an object, got {json_type(value)}")
    return value


def side(config: Mapping, field: str, where: str, defaults: Mapping[str, int] = VISION) -> int:
    """CLIPVisionEmbeddings squares image_size // patch_size: each must be one integer (a list fails there)."""
    value = config.get(field, defaults[field])
    if isinstance(value, (list, tuple)):
        raise ConfigError(f"{where}.{field} must be one integer for CLIP (its patches are (image // patch)^2), got "
                          f"{shown(value)}")
    return size({f"{where}.{field}": value}, f"{where}.{field}", {})


def towers(config: Mapping, text_defaults: Mapping[str, int] = TEXT,
           vision_defaults: Mapping[str, int] = VISION) -> tuple[dict[str, int], Mapping, Mapping]:
    """The sizes of a pair's two towers (CLIP's, or SigLIP's with its classes' defaults), each read from its
    sub-config, the heads' rules and the image's patches checked; the labels; and the two sub-configs."""
    text, vision = sub_config(config, "text_config"), sub_config(config, "vision_config")

    def of(sub: Mapping, where: str, defaults: Mapping[str, int], field: str) -> int:
        return size({f"{where}.{field}": sub.get(field, defaults[field])}, f"{where}.{field}", {})

    def text_size(field: str) -> int:
        return of(text, "text_config", text_defaults, field)

    def vision_size(field: str) -> int:
        return of(vision, "vision_config", vision_defaults, field)

    values = {
        "V": text_size("vocab_size"), "P": text_size("max_position_embeddings"), "D_t": text_size("hidden_size"),
        "F_t": text_size("intermediate_size"), "L_t": text_size("num_hidden_layers"),
        "H_t": text_size("num_attention_heads"), "C_i": vision_size("num_channels"), "D": vision_size("hidden_size"),
        "F": vision_size("intermediate_size"), "L": vision_size("num_hidden_layers"),
        "H": vision_size("num_attention_heads"), "C": num_labels(config),
    }
    TEXT_HEADS.check(values, FIELD_OF)
    VISION_HEADS.check(values, FIELD_OF)
    image = side(vision, "image_size", "vision_config", vision_defaults)
    patch = side(vision, "patch_size", "vision_config", vision_defaults)
    if patch > image:
        raise ConfigError(f"vision_config.patch_size ({patch}) is more than vision_config.image_size ({image}): no "
                          "patch to embed")
    return values | {"N_p": (image // patch) ** 2, "p": patch}, text, vision


def read(config: Mapping) -> dict[str, int]:
    values, _, _ = towers(config)
    return values | {"E_p": size(config, "projection_dim", DEFAULTS)}


def check(config: Mapping, architecture: str) -> None:
    """A class with one tower's projection (CLIPTextModelWithProjection, CLIPVisionModelWithProjection) is built from
    that tower's config, whose projection_dim is its own: derived where it is the pair's."""
    where = {"CLIPTextModelWithProjection": ("text_config", TEXT),
             "CLIPVisionModelWithProjection": ("vision_config", VISION)}.get(architecture)
    if where is None:
        return
    field, defaults = where
    own = sub_config(config, field).get("projection_dim", defaults["projection_dim"])
    pair = config.get("projection_dim", DEFAULTS["projection_dim"])
    if own != pair:
        raise ConfigError(f"{field}.projection_dim ({shown(own)}) differs from projection_dim ({shown(pair)}): "
                          f"{architecture} reads its tower's, which is not derived")


# No switch: every CLIP config lays its classes out one way.
LAYOUT = Layout(())

# CLIPConfig's fields that set no size (configuration_clip.py, 5.23); the sub-configs' own are not checked here.
# logit_scale_init_value is annotated to allow null or an integer, but CLIPModel makes a learned tensor of it: both
# fail as it is built (an integer tensor cannot require gradients). initializer_factor scales the weights' standard
# deviation (null and a negative fail as they are drawn). The forward reads output_hidden_states as a truth value.
CHECKS = validation.fields(logit_scale_init_value="float", initializer_factor=validation.deviation(),
                           text_config="dict | None", vision_config="dict | None", output_hidden_states="object")

READER = Reader("clip", read, LAYOUT, FIELD_OF, (TEXT_HEADS, VISION_HEADS), check=check, checks=CHECKS)
