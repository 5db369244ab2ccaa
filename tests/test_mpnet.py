"""MPNet: the tree against BERT's, the relative bias, and the config class's defaults.

Expected values come from outside the project: the released configs, and transformers (tests/specs/mpnet.py, run
by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry
from derivations.families import bert, mpnet
from derivations.symbols import B, D, H, L, P, T, V


def test_against_bert_no_token_types_and_one_bias():
    assert sympy.expand(mpnet.versus_bert - (B * H - T * D)) == 0
    assert mpnet.layer.total == bert.layer.total


def test_the_bias_is_the_encoders_once():
    # 32 buckets by 12 heads on mpnet-base (its config.json), held once, not by every layer.
    values = registry.checkpoint("mpnet-base").values
    assert (values[B], values[H], values[L]) == (32, 12, 12)
    assert mpnet.relative_bias.count(values) == 32 * 12
    assert sympy.expand(mpnet.encoder.total - L * mpnet.layer.total) == B * H


def test_the_checkpoints_have_the_same_sizes():
    base, sentence = (registry.checkpoint(name).values for name in mpnet.FAMILY.checkpoints)
    assert base == sentence
    assert (base[V], base[P]) == (30527, 514)


def test_minimal_config_takes_mpnetconfigs_defaults():
    values = registry.resolve({"model_type": "mpnet"}).values
    assert (values[V], values[P], values[B], values[D], values[L]) == (30527, 512, 32, 768, 12)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "mpnet", "vocab_size": 1}, "vocab_size must be at least 2"),
    ({"model_type": "mpnet", "relative_attention_num_buckets": 0}, "relative_attention_num_buckets"),
    ({"model_type": "mpnet", "hidden_size": 100}, "multiple"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
