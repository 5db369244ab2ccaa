"""DeepSeek-V2 (model_type ``deepseek_v2``): config.json -> sizes, as DeepseekV2Config reads them. DeepSeek-V3
(readers.deepseek_v3) reads its own with :func:`read_deepseek`."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, num_labels, padding_index, shown, switch
from ..rules import at_most, divides
from .. import validation
from .llama import DECODER_CHECKS, TIED
from .mixtral import TOP_K

# Which config field sets each size. num_key_value_heads sets no tensor (every head reads the one latent), but a
# config's must divide the heads; the tests set it with them.
SYMBOL_FIELDS = {"V": "vocab_size", "D": "hidden_size", "H": ("num_attention_heads", "num_key_value_heads"),
                 "F": "intermediate_size", "L": "num_hidden_layers", "R_q": "q_lora_rank", "R_kv": "kv_lora_rank",
                 "d_r": "qk_rope_head_dim", "d_n": "qk_nope_head_dim", "d_v": "v_head_dim", "X": "n_routed_experts",
                 "X_a": "num_experts_per_tok", "X_s": "n_shared_experts", "F_e": "moe_intermediate_size",
                 "L_f": "first_k_dense_replace", "C": "num_labels"}

# transformers' DeepseekV2Config defaults (configuration_deepseek_v2.py, 5.23). attribute_map reads num_experts as
# n_routed_experts. num_key_value_heads sets no tensor in latent attention (every head reads the one latent).
FIELDS = Fields({"vocab_size": 102400, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "kv_lora_rank": 512, "q_lora_rank": 1536, "n_routed_experts": 64,
                 "n_shared_experts": 2, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                 "moe_intermediate_size": 1407, "first_k_dense_replace": 0, "num_experts_per_tok": 1},
                {"n_routed_experts": "num_experts"})


# What transformers requires of the sizes. DeepseekV3Config has no check of the heads (V3's rules are the last two).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`DeepseekV2Config` requires the heads {H} to divide the width {D}.")
# The reader takes the least of first_k_dense_replace and the layers, so no config breaks it; the calculator, which
# asks for L_f, says so.
DENSE_LAYERS = at_most("L_f", "L", "{L_f} can be at most {L}: the dense layers are the first of the layers.", refusal="")


def read_deepseek(config: Mapping, fields: Fields, *, divisible: bool) -> dict[str, int]:
    """``divisible``: the config class refuses a width the heads do not divide (DeepseekV2Config's
    validate_architecture; DeepseekV3Config has none)."""
    def get(field: str, minimum: int = 1) -> int:
        return fields.size(config, field, minimum)

    for field in ("first_k_dense_replace", "num_experts_per_tok"):
        if field in config and config[field] is None:
            raise ConfigError(f"{field} must be an integer, got null")
    layers, experts = get("num_hidden_layers"), get("n_routed_experts")
    active = get("num_experts_per_tok", minimum=0)
    TOP_K.check({"X_a": active, "X": experts}, {"X_a": "num_experts_per_tok", "X": fields.written(config, "n_routed_experts")})
    vocabulary = get("vocab_size")
    padding_index(config, vocabulary, default=None)
    heads = get("num_attention_heads")
    if divisible:
        HEADS_DIVIDE_WIDTH.check({"H": heads, "D": get("hidden_size")}, SYMBOL_FIELDS)
    kv_heads = config.get("num_key_value_heads")
    if kv_heads is not None and (isinstance(kv_heads, bool) or not isinstance(kv_heads, int) or kv_heads < 1
                                 or heads % kv_heads):
        raise ConfigError(f"num_key_value_heads must divide num_attention_heads ({heads}), got {shown(kv_heads)}")
    rank = config.get("q_lora_rank", fields.defaults["q_lora_rank"])
    values = {"V": vocabulary, "D": get("hidden_size"), "F": get("intermediate_size"), "L": layers, "H": heads,
              "R_kv": get("kv_lora_rank"), "d_r": get("qk_rope_head_dim"), "d_n": get("qk_nope_head_dim", 0),
              "d_v": get("v_head_dim"), "X": experts, "X_a": active, "X_s": get("n_shared_experts"),
              "F_e": get("moe_intermediate_size"), "L_f": min(get("first_k_dense_replace", 0), layers),
              "C": num_labels(config)}
    if values["d_r"] % 2:
        raise ConfigError(f"qk_rope_head_dim ({values['d_r']}) must be even for rotary position embeddings")
    if rank is not None:
        values["R_q"] = get("q_lora_rank")
    return values


def read(config: Mapping) -> dict[str, int]:
    return read_deepseek(config, FIELDS, divisible=True)


# Queries without compression (q_lora_rank null: V2-Lite), biases on the attention's projections (attention_bias),
# biases on the dense and shared feed-forwards (mlp_bias), a tied head.
NO_Q_LORA = Switch("no_q_lora", lambda config: config.get("q_lora_rank", 1536) is None)
LAYOUT = Layout((NO_Q_LORA, switch("attention_bias", "attention_bias"), switch("mlp_bias", "mlp_bias"), TIED))
# DeepseekV2Config's fields that set no size (configuration_deepseek_v2.py, 5.23): LLaMA's, and the router's.
CHECKS = validation.fields(
    DECODER_CHECKS, pretraining_tp="int | None",
    # The annotation takes null; a training step does not (functional dropout compares it).
    attention_dropout=validation.dropout("float"),
    head_dim="int | None", n_group="int | None", topk_group="int | None", topk_method="str | None",
    norm_topk_prob="bool | None", output_router_logits="bool", routed_scaling_factor="float")

READER = Reader("deepseek_v2", read, LAYOUT, SYMBOL_FIELDS, (HEADS_DIVIDE_WIDTH, TOP_K, DENSE_LAYERS),
                zero=frozenset({"L_f", "d_n"}), checks=CHECKS)
