"""Granite: the model card's figures, and the multipliers that hold no parameter.

Expected values come from outside the project: the model card, the configs, and transformers
(tests/specs/granite.py: every total recomputed on the meta device, with and without the multipliers).
"""

from derivations import configs, registry
from derivations.families import granite, llama


def test_the_cards_figures():
    # [cite: hub-ibm-granite, granite-3.0-8b-instruct's card]: "# Parameters | 2.5B | 8.1B". 2.53 billion rounds to
    # 2.5; 8.17 billion rounds to 8.2, and 8.1 truncates it.
    two, eight = granite.CARD
    assert two.rounds() and not eight.rounds()
    assert registry.checkpoint("granite-3.3-8b").total // 10**8 == 81


def test_the_multipliers_change_no_count():
    # Granite 3.3 8B's config.json sets the four, as numbers (12.0, 0.0078125, 0.22, 16.0).
    config = configs.load("granite-3.3-8b")
    multipliers = ("embedding_multiplier", "attention_multiplier", "residual_multiplier", "logits_scaling")
    assert all(isinstance(config[name], float) for name in multipliers)
    plain = {k: v for k, v in config.items() if k not in multipliers}
    assert registry.checkpoint("granite-3.3-8b").total == registry.resolve(plain).total


def test_its_layer_is_llamas():
    assert granite.layer.total == llama.layer.total
