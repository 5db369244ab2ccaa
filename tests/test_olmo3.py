"""OLMo 3: its name, and that it is OLMo 2's tree.

Expected values come from outside the project: the release's name, its config, and transformers
(tests/specs/olmo3.py: every total recomputed on the meta device).
"""

from derivations import configs, registry
from derivations.families import olmo2, olmo3


def test_the_name_rounds_from_the_exact_count():
    # [cite: hub-allenai-olmo3]: Olmo-3-1025-7B, "7B".
    assert olmo3.NAME.rounds()


def test_three_sliding_layers_then_a_full_one():
    # Olmo-3-1025-7B's config.json lists 24 sliding_attention layers and 8 full_attention ones, every fourth full,
    # with a sliding_window of 4096 (Olmo3Config's default pattern).
    config = configs.load("olmo-3-7b")
    windows = configs.READERS["olmo3"].windows(config, config["num_hidden_layers"])
    assert windows.count(4096) == 24 and [i for i, w in enumerate(windows) if w is None] == list(range(3, 32, 4))


def test_its_layer_is_olmo2s():
    assert olmo3.layer.total == olmo2.layer.total
    assert registry.checkpoint("olmo-3-7b").total == olmo2.ARCHITECTURES["Olmo2ForCausalLM"].count(
        registry.checkpoint("olmo-3-7b").values)
