"""What only Qwen2 has, against transformers (the checks every family shares are tests/specs/qwen2.py's): a minimal
config has 32 key/value heads, not as many as its heads."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry


def test_a_minimal_config_has_32_key_value_heads() -> None:
    # Qwen2Config's default num_key_value_heads is 32, not "as many as the heads": 16 heads cannot share them.
    config = {"model_type": "qwen2", "num_attention_heads": 16, "hidden_size": 64, "num_hidden_layers": 1,
              "vocab_size": 100, "intermediate_size": 8}
    with pytest.raises(configs.ConfigError, match="num_key_value_heads"):
        registry.resolve(config)
    assert not reference.builds_and_runs(config)
