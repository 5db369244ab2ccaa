"""Qwen3-MoE (model_type ``qwen3_moe``): Qwen2-MoE's reader with Qwen3MoeConfig's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, every_layer_windowed, switch
from .. import validation
from .llama import NO_TOKEN_BIAS, SYMBOL_FIELDS, TIED
from .qwen2_moe import RULES, read_moe
from . import qwen2_moe

# transformers' Qwen3MoeConfig defaults (configuration_qwen3_moe.py, 5.23). The experts are num_experts, or
# num_local_experts, which wins when both are given (attribute_map). No head_dim field: the attention reads
# getattr(config, "head_dim", D // H), and the released configs set it (128).
FIELDS = Fields({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 24,
                 "num_attention_heads": 32, "num_key_value_heads": 4, "moe_intermediate_size": 768,
                 "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1},
                {"num_experts": "num_local_experts"})


def read(config: Mapping) -> dict[str, int]:
    return read_moe(config, FIELDS, experts_field="num_experts")


# Biases on q, k, v and o (attention_bias, false in every release); a tied head; a token classifier without bias.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), TIED, NO_TOKEN_BIAS))

# Qwen3MoeConfig's fields that set no size (configuration_qwen3_moe.py, 5.23): Qwen2-MoE's, without
# max_window_layers and layer_types.
CHECKS = validation.fields({f: c for f, c in qwen2_moe.CHECKS.items() if f not in ("max_window_layers", "layer_types")})

READER = Reader("qwen3_moe", read, LAYOUT, SYMBOL_FIELDS | {
    "X": "num_experts", "X_a": "num_experts_per_tok", "F_e": "moe_intermediate_size", "L_f": "mlp_only_layers"}, RULES,
    zero=frozenset({"L_f", "X"}),
    # Qwen3MoeConfig: sliding_window only with use_sliding_window, then every layer (no layer_types).
    windows=every_layer_windowed(4096, "use_sliding_window"), checks=CHECKS)
