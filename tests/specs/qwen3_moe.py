"""Qwen3-MoE: what the reference harness checks (tests/test_reference_families.py); its sizes, layouts, refused and
random configs are Qwen2-MoE's (tests/specs/qwen2_moe.py). What only the two have (the active count, measured by
running one token) is in tests/test_reference_qwen_moe.py."""

import reference
from spec import Spec
from strategies import windows
from specs.qwen2_moe import LAYOUTS, REFUSED, SIZES, configs

SPEC = Spec(
    family="qwen3_moe",
    small=SIZES | {"model_type": "qwen3_moe"},
    defaults={"num_hidden_layers": 1},
    # attention_bias gives all four projections a bias; num_local_experts wins over num_experts.
    layouts=LAYOUTS | {"bias": {"attention_bias": True}, "num-local-experts": {"num_local_experts": 3}},
    refused=REFUSED,
    configs=configs("qwen3_moe"),
    examples=30,
    runs=reference.builds_and_runs,
    windows=windows("use_sliding_window"),
)
