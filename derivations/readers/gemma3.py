"""Gemma 3 with its vision encoder (model_type ``gemma3``): config.json -> {symbol name: value}, and the layout.

Gemma3Config (configuration_gemma3.py, 5.23) holds ``text_config`` (a Gemma3TextConfig: the language model, read as
:mod:`derivations.readers.gemma3_text` reads a config of its own, with its defaults) and ``vision_config`` (a
SiglipVisionConfig by default: SigLIP's vision tower, read as :mod:`derivations.readers.siglip` reads its
``vision_config``), and ``mm_tokens_per_image``: the tokens an image becomes in the language model's sequence, which
the projector pools the tower's patches down to (256 by default and in every release).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..reading import ConfigError, Layout, Reader, Switch, num_labels, shown, size
from ..rules import divides
from .. import validation
from . import gemma3_text, siglip
from ._composite import fields, inside, model_type, renamed, vision, within
from .clip import sub_config, towers

TEXT, TOWER = "gemma3_text", "siglip_vision_model"
DEFAULTS = {"mm_tokens_per_image": 256}

FIELD_OF = (fields("text_config", gemma3_text.READER)
            | {name: written for name, written in renamed(siglip.FIELD_OF).items()
               if written.startswith(("vision_config", "(vision_config"))}
            | {"N_i": "mm_tokens_per_image", "C": "num_labels"})

# SiglipVisionConfig refuses a width its heads do not divide (as SigLIP's own reader does, under the tower's names).
VISION_HEADS = divides("H_v", "D_v", "{H_v} divides {D_v} (the vision tower's heads partition its width)")


def read(config: Mapping) -> dict[str, int]:
    model_type(config, "text_config", TEXT, (TEXT,))
    model_type(config, "vision_config", TOWER, (TOWER,))
    text = within("text_config", gemma3_text.read, config)
    tower, _, _ = towers({"vision_config": sub_config(config, "vision_config")}, siglip.TEXT, siglip.VISION)
    values = text | vision({k: tower[k] for k in ("C_i", "D", "F", "L", "H", "N_p", "p")})
    values["N_i"] = size(config, "mm_tokens_per_image", DEFAULTS)
    pooled(values)
    return values | {"C": num_labels(config)}


def pooled(values: Mapping[str, int]) -> None:
    """Gemma3MultiModalProjector pools the tower's square of patches (side sqrt(N_p)) with a kernel of that side over
    sqrt(N_i): the image is N_i tokens only where the pooled square is (the forward checks the count of the image's
    placeholder tokens against the features)."""
    side, tokens = math.isqrt(values["N_p"]), values["N_i"]
    per_side = math.isqrt(tokens)
    if per_side * per_side != tokens or per_side > side or (side // (side // per_side)) ** 2 != tokens:
        raise ConfigError(f"mm_tokens_per_image ({shown(tokens)}) is not what the projector pools "
                          f"{side} x {side} patches to (a square whose side divides the patches' evenly)")


def check(config: Mapping, architecture: str) -> None:
    """The language model's classes (Gemma3ForCausalLM, ...) are built from text_config alone, which from_pretrained
    finds by its model_type: its head is tied as text_config says, where the whole model's is tied as the config
    says; derived where the two agree."""
    if not architecture.startswith(("Gemma3Text", "Gemma3ForCausalLM")):
        return
    if sub_config(config, "text_config").get("model_type") != TEXT:
        raise ConfigError(f"text_config names no model_type {TEXT!r}: {architecture} is built from the config's "
                          f"text_config where it does (as from_pretrained finds it), and is not derived otherwise")
    own = sub_config(config, "text_config").get("tie_word_embeddings", True)
    whole = config.get("tie_word_embeddings", True)
    if own != whole:
        raise ConfigError(f"text_config.tie_word_embeddings ({shown(own)}) differs from tie_word_embeddings "
                          f"({shown(whole)}): {architecture} reads its own, which is not derived")
    # ... and its labels are text_config's.
    labels, whole_labels = num_labels(sub_config(config, "text_config")), num_labels(config)
    if labels != whole_labels:
        raise ConfigError(f"text_config's labels ({labels}) differ from the config's ({whole_labels}): "
                          f"{architecture} reads its own, which is not derived")


def untied(config: Mapping) -> bool:
    """The head of its own unless tie_word_embeddings is true (the default): Gemma3Config takes null too, which the
    tie reads as false."""
    value = config.get("tie_word_embeddings", True)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(f"tie_word_embeddings must be true, false or null, got {shown(value)}")
    return not value


# The language model's switches, read in text_config, but the head's tie (the whole model's lm_head, tied as
# Gemma3Config says: true by default); the vision tower's attention-pooling head (vision_use_head, true by
# SiglipVisionConfig's default, false in every release, whose features are the patches' states: the plain layout).
LAYOUT = Layout((*inside("text_config", gemma3_text.READER, top=("untied",)),
                 Switch("untied", untied),
                 Switch("head", lambda config: not siglip.LAYOUT.switches[0].read(config))))

# Gemma3Config's fields that set no size (configuration_gemma3.py, 5.23): the image's token ids (int or null) and
# the weights' standard deviation (a negative one fails as they are drawn).
# The forward reads output_hidden_states as a truth value alone (as CLIP's).
CHECKS = validation.fields(text_config="dict | None", vision_config="dict | None", mm_tokens_per_image="int",
                           tie_word_embeddings="bool | None", boi_token_index="int | None", eoi_token_index="int | None",
                           image_token_index="int | None", initializer_range=validation.deviation("float | None"),
                           output_hidden_states="object")

# The key/value cache is the language model's: its layers' windows as text_config sets them.
READER = Reader("gemma3", read, LAYOUT, FIELD_OF, (*gemma3_text.READER.rules, VISION_HEADS), check=check,
                checks=CHECKS,
                windows=lambda config, layers: gemma3_text.READER.windows(sub_config(config, "text_config"), layers))
