"""GLM-4.5 (model_type ``glm4_moe``): LLaMA's reader for the attention, DeepSeek-V3's fields for the mixture, with
Glm4MoeConfig's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, shown, switch
from .. import validation
from .deepseek_v2 import DENSE_LAYERS
from .deepseek_v3 import CHECKS as V3_CHECKS
from .llama import KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS as LLAMA_FIELDS, TIED, read_decoder
from .mixtral import TOP_K

# transformers' Glm4MoeConfig defaults (configuration_glm4_moe.py, 5.23): GLM-4.5-Air's sizes, but for the head
# size. attribute_map reads num_local_experts as n_routed_experts, and num_mtp_layers as num_nextn_predict_layers
# (the multi-token-prediction layer, which transformers does not build). The config has no head_dim field:
# Glm4MoeAttention reads getattr(config, "head_dim", hidden_size // num_attention_heads), and the released configs
# set it (128; the default width gives 4096 // 96 = 42).
FIELDS = Fields({"vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 10944, "num_hidden_layers": 46,
                 "num_attention_heads": 96, "num_key_value_heads": 8, "moe_intermediate_size": 1408,
                 "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8,
                 "first_k_dense_replace": 1},
                {"n_routed_experts": "num_local_experts"})

SYMBOL_FIELDS = {f: LLAMA_FIELDS[f] for f in ("V", "D", "H", "K", "d_h", "F", "L")} | {
    "X": "n_routed_experts", "X_a": "num_experts_per_tok", "X_s": "n_shared_experts", "F_e": "moe_intermediate_size",
    "L_f": "first_k_dense_replace"}


def rotary_factor(config: Mapping) -> float:
    """partial_rotary_factor as Glm4MoeRotaryEmbedding reads it: from rope_parameters (or the old rope_scaling),
    else the top-level field, else 0.5 (Glm4MoeConfig.__post_init__'s default)."""
    for nested in ("rope_parameters", "rope_scaling"):
        inner = config.get(nested)
        if isinstance(inner, Mapping) and "partial_rotary_factor" in inner:
            return inner["partial_rotary_factor"]
    factor = config.get("partial_rotary_factor", 0.5)
    # null: Glm4MoeConfig leaves it out of rope_parameters, and the rotary embedding turns the whole head.
    return 1.0 if factor is None else factor


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        # getattr finds the attribute, None, and the projections cannot be sized.
        raise ConfigError("head_dim must be an integer when given (Glm4MoeAttention reads it as it is), got null")
    for field in ("first_k_dense_replace", "num_experts_per_tok", "n_shared_experts", "n_routed_experts",
                  "moe_intermediate_size"):
        if field in config and config[field] is None:
            raise ConfigError(f"{field} must be an integer, got null")
    # LLaMA's reading of the attention, but for its even head (read_decoder's EVEN_HEAD): the head sized first.
    head = config.get("head_dim")
    values = read_decoder(dict(config) | {"head_dim": 2}, FIELDS, divisible=False, zero_head_dim=False)
    values["d_h"] = values["D"] // values["H"] if head is None else FIELDS.size({"head_dim": head}, "head_dim")
    if values["d_h"] == 0:
        raise ConfigError(f"hidden_size ({values['D']}) is smaller than num_attention_heads ({values['H']}): a head "
                          "size of 0")
    values.pop("C")  # no task heads: Glm4MoeModel and Glm4MoeForCausalLM only
    # Rotary embeddings turn the first int(d_h * partial_rotary_factor) coordinates of each head, rounded up to
    # pairs: a width above the head's (an odd head turned whole) fails in the forward pass. read_decoder checked an
    # even head (LLaMA's rule); a partial rotation runs on odd heads, and is checked here instead.
    factor = rotary_factor(config)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 <= factor <= 1:
        raise ConfigError(f"partial_rotary_factor must be a number from 0 to 1, got {shown(factor)}")
    turned = int(values["d_h"] * factor)
    if values["d_h"] > 1 and turned + turned % 2 > values["d_h"]:
        raise ConfigError(f"the rotary width ({turned + turned % 2}, pairs of int(head_dim * partial_rotary_factor)) "
                          f"exceeds the head size ({values['d_h']})")
    experts = FIELDS.size(config, "n_routed_experts")
    active = FIELDS.size(config, "num_experts_per_tok", minimum=0)
    TOP_K.check({"X_a": active, "X": experts},
                {"X_a": "num_experts_per_tok", "X": FIELDS.written(config, "n_routed_experts")})
    return values | {"X": experts, "X_a": active, "X_s": FIELDS.size(config, "n_shared_experts", minimum=0),
                     "F_e": FIELDS.size(config, "moe_intermediate_size"),
                     "L_f": min(FIELDS.size(config, "first_k_dense_replace", minimum=0), values["L"])}


# No biases on q, k and v (attention_bias false; o_proj never has one), an RMSNorm of each query and key head
# (use_qk_norm), a tied head. The plain layout is GLM-4.5-Air's (biases, no norms); GLM-4.5 adds the norms.
LAYOUT = Layout((switch("no_attention_bias", "attention_bias", on=False), switch("qk_norm", "use_qk_norm"), TIED))

# Glm4MoeConfig's fields that set no size (configuration_glm4_moe.py, 5.23): DeepSeek-V3's router fields (no
# rope_interleave), its own qk norm, and LLaMA's.
CHECKS = validation.fields({f: c for f, c in V3_CHECKS.items() if f not in ("rope_interleave", "pretraining_tp")},
                           use_qk_norm="bool", norm_topk_prob="bool")  # Glm4MoeConfig refuses null

READER = Reader("glm4_moe", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, TOP_K, DENSE_LAYERS),
                zero=frozenset({"L_f", "X_s"}), checks=CHECKS)
