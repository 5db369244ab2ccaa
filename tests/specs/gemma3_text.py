"""Gemma 3's language model: what the reference harness checks (tests/test_reference_families.py); its sizes,
layouts and random configs are Gemma's (tests/specs/gemma.py). Nothing is its alone: it has no
tests/test_reference_gemma3_text.py."""

import reference
from spec import Spec
from strategies import windows
from specs.gemma import LAYOUTS, SIZES, configs

SPEC = Spec(
    family="gemma3_text",
    small=SIZES | {"model_type": "gemma3_text"},
    defaults={"num_hidden_layers": 1},
    layouts=LAYOUTS,
    refused=[({"hidden_size": 68}, "not a multiple of num_attention_heads")],  # validate_architecture
    configs=configs("gemma3_text"),
    examples=40,
    runs=reference.builds_and_runs,
    windows=windows("sliding_window_pattern", "layer_types"),
)
