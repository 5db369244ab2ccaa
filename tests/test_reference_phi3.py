"""What only Phi-3 has, against transformers (the checks every family shares are tests/specs/phi3.py's): a
default padding row outside a small vocabulary."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from specs.phi3 import SPEC


def test_the_default_padding_row_must_be_in_the_table() -> None:
    # Phi3Config's pad_token_id is 32000: a smaller vocabulary without a pad_token_id cannot be built.
    config = {k: v for k, v in SPEC.small.items() if k != "pad_token_id"}
    with pytest.raises(configs.ConfigError, match="pad_token_id"):
        registry.resolve(config)
    assert not reference.builds_and_runs(config)
