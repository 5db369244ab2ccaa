"""Qwen2-MoE (model_type ``qwen2_moe``: Qwen1.5-MoE, Qwen2-57B-A14B): config.json -> sizes, as Qwen2MoeConfig
reads them, and which layers hold experts. Qwen3-MoE (readers.qwen3_moe) reads its own with :func:`read_moe`."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, qwen_windows, shown, switch
from ..rules import at_most
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, TIED, read_decoder
from .mixtral import TOP_K

# transformers' Qwen2MoeConfig defaults (configuration_qwen2_moe.py, 5.23): Qwen1.5-MoE-A2.7B's sizes. The number
# of experts is num_experts (a num_local_experts in config.json is not read). num_key_value_heads null fails (the
# attention divides by it); there is no head_dim field (Qwen2MoeAttention: getattr(config, "head_dim", D // H)).
FIELDS = Fields({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 24,
                 "num_attention_heads": 16, "num_key_value_heads": 16, "moe_intermediate_size": 1408,
                 "shared_expert_intermediate_size": 5632, "num_experts": 60, "num_experts_per_tok": 4,
                 "decoder_sparse_step": 1})


def dense_layers(config: Mapping, fields: Fields, layers: int, experts: int) -> int:
    """How many layers keep a dense feed-forward, as the decoder layer decides: layer i holds experts when it is
    not in mlp_only_layers, there are experts, and i + 1 is a multiple of decoder_sparse_step."""
    step = fields.size(config, "decoder_sparse_step")
    only = config.get("mlp_only_layers")
    only = [] if only is None else only
    if not isinstance(only, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in only):
        raise ConfigError(f"mlp_only_layers must be a list of layer numbers, got {shown(config.get('mlp_only_layers'))}")
    sparse = [i for i in range(layers) if i not in only and experts > 0 and (i + 1) % step == 0]
    return layers - len(sparse)


# The dense layers are some of the layers: the reader counts them (dense_layers), so no config breaks it; the
# calculator, which asks for L_f, says so.
DENSE_LAYERS = at_most("L_f", "L", "{L_f} can be at most {L}: the dense layers are some of the layers.", refusal="")
RULES = (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD, TOP_K, DENSE_LAYERS)


def read_moe(config: Mapping, fields: Fields, *, experts_field: str) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        raise ConfigError("head_dim must be an integer when given (the attention reads it as it is), got null")
    values = read_decoder(config, fields, divisible=False, zero_head_dim=False)  # null key/value heads: refused
    experts = fields.size(config, experts_field, minimum=0)
    active = fields.size(config, "num_experts_per_tok", minimum=0)
    if experts:  # none: every layer is dense, and the router picks nothing
        TOP_K.check({"X_a": active, "X": experts}, {"X_a": "num_experts_per_tok", "X": fields.written(config, experts_field)})
    return values | {"X": experts, "X_a": active, "F_e": fields.size(config, "moe_intermediate_size"),
                     "L_f": dense_layers(config, fields, values["L"], experts)}


def read(config: Mapping) -> dict[str, int]:
    return read_moe(config, FIELDS, experts_field="num_experts") | {
        "F_s": FIELDS.size(config, "shared_expert_intermediate_size")}


# Biases on q, k and v unless qkv_bias is false (true by default and in every release); a tied head; a token
# classifier without bias.
LAYOUT = Layout((switch("no_qkv_bias", "qkv_bias", True, on=False), TIED, NO_TOKEN_BIAS))

# Qwen2MoeConfig's fields that set no size (configuration_qwen2_moe.py, 5.23): Qwen2's, and the router's.
CHECKS = validation.fields(DECODER_CHECKS, use_sliding_window="bool", sliding_window="int | None",
                           max_window_layers="int", layer_types="list[str] | None", norm_topk_prob="bool",
                           output_router_logits="bool", router_aux_loss_coef="float")

READER = Reader("qwen2_moe", read, LAYOUT, SYMBOL_FIELDS | {
    "X": "num_experts", "X_a": "num_experts_per_tok", "F_e": "moe_intermediate_size",
    "F_s": "shared_expert_intermediate_size", "L_f": "mlp_only_layers"}, RULES,
    zero=frozenset({"L_f", "X"}), windows=lambda config, layers: qwen_windows(config, layers, alternate=True),
    checks=CHECKS)
