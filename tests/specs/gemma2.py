"""Gemma 2: what the reference harness checks (tests/test_reference_families.py); its sizes, layouts and random
configs are Gemma's (tests/specs/gemma.py). Nothing is Gemma 2's alone: it has no tests/test_reference_gemma2.py."""

import reference
from spec import Spec
from strategies import windows
from specs.gemma import LAYOUTS, SIZES, configs

SPEC = Spec(
    family="gemma2",
    small=SIZES | {"model_type": "gemma2"},
    defaults={"num_hidden_layers": 1},
    layouts=LAYOUTS,
    refused=[({"hidden_size": 68}, "not a multiple of num_attention_heads"),  # validate_architecture
             ({"num_key_value_heads": None}, "num_key_value_heads")],
    configs=configs("gemma2"),
    examples=40,
    runs=reference.builds_and_runs,
    windows=windows("layer_types"),
)
