"""What the readers of a model that joins a vision tower to a language model share (Gemma 3, LLaVA, ...).

Such a config holds two sub-configs, each read with its own class's defaults: ``text_config`` (a language model this
project reads alone too: its reader reads the sub-config as a config of its own) and ``vision_config`` (a tower). The
language model keeps the plain sizes (D, F, L, H, K, d_h, V), the vision tower's take a ``v`` (:data:`VISION`: its
width D_v, where its own reader says D), and the errors name the field inside its sub-config
(``text_config.hidden_size``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..reading import ConfigError, Reader, Switch, shown
from .clip import sub_config

# A tower's sizes under the names a composite gives them (its reader's D is the composite's D_v).
VISION = {"D": "D_v", "F": "F_v", "L": "L_v", "H": "H_v"}


def model_type(config: Mapping, field: str, default: str, known: tuple[str, ...]) -> str:
    """The model_type of a sub-config (``default`` where it names none), one of those the composite derives."""
    value = sub_config(config, field).get("model_type", default)
    if value not in known:
        raise ConfigError(f"{field}.model_type {shown(value)} is not derived inside {shown(config.get('model_type'))} "
                          f"(derived: {', '.join(known)})")
    return value


def within(field: str, read: Callable[[Mapping], dict[str, int]], config: Mapping) -> dict[str, int]:
    """A sub-config's sizes as its own reader reads them, an error naming the field inside it."""
    try:
        return read(sub_config(config, field))
    except ConfigError as error:
        raise ConfigError(f"{field}: {error}") from None


def vision(values: Mapping[str, int]) -> dict[str, int]:
    """A tower's sizes under a composite's names: D -> D_v, and so on (the image's N_p, p, C_i are its own)."""
    return {VISION.get(name, name): value for name, value in values.items()}


def inside(field: str, reader: Reader, *, top: tuple[str, ...] = ()) -> tuple[Switch, ...]:
    """A sub-model's switches, each read from its sub-config; those named in ``top`` are left out (the composite
    reads them from its own fields: its language-model head is its own, tied or not as its config says)."""
    return tuple(Switch(s.name, lambda config, s=s: s.read(sub_config(config, field)), s.values)
                 for s in reader.layout.switches if s.name not in top)


def fields(field: str, reader: Reader) -> dict[str, str]:
    """A sub-model's symbol fields inside its sub-config (``text_config.hidden_size``)."""
    return {name: f"{field}.{written if isinstance(written, str) else written[0]}"
            for name, written in reader.fields.items()}


def renamed(fields_of: Mapping[str, str], names: Mapping[str, str] = VISION) -> dict[str, str]:
    """A tower's symbol fields (already inside its sub-config) under a composite's names."""
    return {names.get(name, name): written for name, written in fields_of.items()}
