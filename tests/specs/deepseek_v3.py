"""DeepSeek-V3: what the reference harness checks (tests/test_reference_families.py); its sizes, layouts, refused
and random configs are DeepSeek-V2's (tests/specs/deepseek_v2.py). What only the two have (the router's correction
bias, a buffer in transformers; the active count, measured by running one token) is in
tests/test_reference_deepseek.py."""

import reference
from spec import Spec
from specs.deepseek_v2 import LAYOUTS, REFUSED, SIZES, configs

SPEC = Spec(
    family="deepseek_v3",
    small=SIZES | {"model_type": "deepseek_v3"},
    defaults={"num_hidden_layers": 1},
    layouts=LAYOUTS,
    refused=REFUSED,
    configs=configs("deepseek_v3"),
    examples=30,
    runs=reference.builds_and_runs,
)
