"""Mixtral (model_type ``mixtral``): LLaMA's reader with MixtralConfig's defaults, and the experts."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Reader, every_layer_windowed
from ..rules import at_most
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED_LAYOUT, read_decoder

# transformers' MixtralConfig defaults (configuration_mixtral.py, 5.23): Mixtral-8x7B's sizes.
# MixtralConfig.attribute_map reads num_experts as num_local_experts (the alias wins when present).
FIELDS = Fields({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 8,
                 "num_experts_per_tok": 2}, {"num_local_experts": "num_experts"})


# torch.topk cannot pick more experts than there are (gpt-oss and the Qwen mixtures state the same).
TOP_K = at_most("X_a", "X", "{X_a} can be at most {X}: the router picks the top {X_a} of the {X} experts.")


def read(config: Mapping) -> dict[str, int]:
    values = read_decoder(config, FIELDS, divisible=False, zero_head_dim=True)
    experts, field = FIELDS.size(config, "num_local_experts"), FIELDS.written(config, "num_local_experts")
    # top-0 runs (the experts add nothing).
    active = FIELDS.size(config, "num_experts_per_tok", minimum=0)
    TOP_K.check({"X_a": active, "X": experts}, {"X_a": "num_experts_per_tok", "X": field})
    return values | {"X": experts, "X_a": active}


# MixtralConfig's fields that set no size (configuration_mixtral.py, 5.23): Mistral's, and the router's.
CHECKS = validation.fields(DECODER_CHECKS, sliding_window="int | None", output_router_logits="bool",
                           router_aux_loss_coef="float", router_jitter_noise="float")

# MixtralConfig: sliding_window null unless set, then every layer (no layer_types).
READER = Reader("mixtral", read, TIED_LAYOUT,
                SYMBOL_FIELDS | {"X": "num_local_experts", "X_a": "num_experts_per_tok"},
                (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD, TOP_K),
                windows=every_layer_windowed(None), checks=CHECKS)
