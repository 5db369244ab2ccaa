"""SmolLM3: its name, and that the layers without rotary embeddings hold what the others hold.

Expected values come from outside the project: the blog, the config, and transformers (tests/specs/smollm3.py: every
total recomputed on the meta device, with no_rope_layers and without).
"""

from derivations import configs, registry
from derivations.families import llama, smollm3


def test_the_name_rounds_from_the_exact_count():
    # [cite: smollm3-blog]: "3B model".
    assert smollm3.NAME.rounds()


def test_the_reported_3_08b_is_the_exact_count_rounded():
    # [cite: aibase-smollm3]: "SmolLM3 has 3.08B parameters, a depth structure of 36 layers".
    assert smollm3.REPORTED.rounds()
    assert round(registry.checkpoint("smollm3-3b").total / 10**7) == 308


def test_no_rope_layers_change_no_count():
    config = configs.load("smollm3-3b")
    # Every fourth of the 36 layers turns no rotary embedding (the blog: NoPE "every 4th layer").
    assert config["no_rope_layers"].count(0) == 9
    everywhere = dict(config, no_rope_layers=[1] * 36)
    assert registry.resolve(config).total == registry.resolve(everywhere).total


def test_its_layer_is_llamas():
    assert smollm3.layer.total == llama.layer.total
