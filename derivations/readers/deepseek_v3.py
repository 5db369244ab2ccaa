"""DeepSeek-V3 (model_type ``deepseek_v3``): DeepSeek-V2's reader with DeepseekV3Config's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, switch
from .. import validation
from .deepseek_v2 import CHECKS as V2_CHECKS, NO_Q_LORA, READER as V2, SYMBOL_FIELDS, read_deepseek
from .llama import NO_TOKEN_BIAS, TIED

# transformers' DeepseekV3Config defaults (configuration_deepseek_v3.py, 5.23): DeepSeek-V3's sizes. attribute_map
# reads num_local_experts as n_routed_experts, and num_mtp_layers as num_nextn_predict_layers (the
# multi-token-prediction module, which transformers does not build).
FIELDS = Fields({"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432, "num_hidden_layers": 61,
                 "num_attention_heads": 128, "kv_lora_rank": 512, "q_lora_rank": 1536, "n_routed_experts": 256,
                 "n_shared_experts": 1, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                 "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "num_experts_per_tok": 8},
                {"n_routed_experts": "num_local_experts"})


def read(config: Mapping) -> dict[str, int]:
    return read_deepseek(config, FIELDS, divisible=False)


# No mlp_bias in V3: its feed-forwards have none. A token classifier without bias.
LAYOUT = Layout((NO_Q_LORA, switch("attention_bias", "attention_bias"), TIED, NO_TOKEN_BIAS))

# DeepseekV3Config's fields that set no size (configuration_deepseek_v3.py, 5.23): V2's, with its own annotations.
# num_mtp_layers, a module transformers does not build, is checked under that name (attribute_map stores it as
# num_nextn_predict_layers, which is not).
CHECKS = validation.fields(
    {f: c for f, c in V2_CHECKS.items() if f not in ("head_dim", "topk_method")},
    attention_dropout=validation.dropout("float | int"), rope_interleave="bool | None", num_mtp_layers="int",
    # The annotations take null; V3's group-limited routing does not run without groups.
    n_group="int", topk_group="int")

# DeepseekV3Config does not require the heads to divide the width: V2's rules but that one.
READER = Reader("deepseek_v3", read, LAYOUT, SYMBOL_FIELDS, V2.rules[1:], zero=frozenset({"L_f", "d_n"}), checks=CHECKS)
