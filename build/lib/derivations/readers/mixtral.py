"""Mixtral (model_type ``mixtral``): LLaMA's reader with MixtralConfig's defaults, and the experts."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Reader, every_layer_windowed
from .llama import SYMBOL_FIELDS, TIED_LAYOUT, read_decoder

# transformers' MixtralConfig defaults (configuration_mixtral.py, 5.23): Mixtral-8x7B's sizes.
# MixtralConfig.attribute_map reads num_experts as num_local_experts (the alias wins when present).
FIELDS = Fields({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 8,
                 "num_experts_per_tok": 2}, {"num_local_experts": "num_experts"})


def read(config: Mapping) -> dict[str, int]:
    values = read_decoder(config, FIELDS, divisible=False, zero_head_dim=True)
    experts, field = FIELDS.size(config, "num_local_experts"), FIELDS.written(config, "num_local_experts")
    # top-0 runs (the experts add nothing); torch.topk cannot pick more experts than there are.
    active = FIELDS.size(config, "num_experts_per_tok", minimum=0)
    if active > experts:
        raise ConfigError(f"num_experts_per_tok ({active}) is more than {field} ({experts})")
    return values | {"X": experts, "X_a": active}


# MixtralConfig: sliding_window null unless set, then every layer (no layer_types).
READER = Reader("mixtral", read, TIED_LAYOUT,
                SYMBOL_FIELDS | {"X": "num_local_experts", "X_a": "num_experts_per_tok"},
                windows=every_layer_windowed(None))
