"""Reading configs: the layouts a reader declares are the ones its family lays out."""

import pytest

from derivations import configs, registry
from derivations.reading import ConfigError, Layout, Switch, switch

TWO_FLAGS_AND_A_CHOICE = Layout((switch("cross_attention", "add_cross_attention"),
                                 switch("untied", "tie_word_embeddings", True, on=False),
                                 Switch("summary", lambda config: config.get("summary", ""), ("", "a", "b"))))


def test_a_layout_key_names_the_flags_set_then_the_choice():
    assert TWO_FLAGS_AND_A_CHOICE.of({}) == ""
    assert TWO_FLAGS_AND_A_CHOICE.of({"tie_word_embeddings": False}) == "untied"
    assert TWO_FLAGS_AND_A_CHOICE.of({"add_cross_attention": True, "tie_word_embeddings": False,
                                      "summary": "b"}) == "cross_attention+untied+b"
    with pytest.raises(ConfigError, match="tie_word_embeddings must be true or false"):
        TWO_FLAGS_AND_A_CHOICE.of({"tie_word_embeddings": "no"})


def test_every_layout_is_laid_out_once_with_its_keywords():
    settings = TWO_FLAGS_AND_A_CHOICE.settings()
    assert len(settings) == 2 * 2 * 3 and next(iter(settings)) == ""  # the plain layout first
    assert settings["cross_attention+a"] == {"cross_attention": True, "untied": False, "summary": "a"}
    variants = TWO_FLAGS_AND_A_CHOICE.variants(lambda **layout: layout)
    assert all(TWO_FLAGS_AND_A_CHOICE.key(**layout) == key for key, layout in variants.items())


@pytest.mark.parametrize("model_type", sorted(configs.READERS))
def test_each_family_lays_out_every_layout_its_reader_can_read(model_type):
    reader, family = configs.READERS[model_type], registry.of_model_type(model_type)
    assert list(family.variants) == list(reader.layout.settings())
    assert family.model_type == model_type and family.name == reader.module


@pytest.mark.parametrize("name", configs.bundled())
def test_every_bundled_config_asks_for_a_layout_its_family_has(name):
    config = configs.load(name)
    reader = configs.READERS[config["model_type"]]
    assert reader.layout.of(config) in registry.of_model_type(reader.model_type).variants


def test_a_qwen2_moe_window_must_be_set_with_use_sliding_window():
    # Qwen2MoeConfig (5.23) keeps sliding_window None when use_sliding_window is set, and Qwen2MoeModel builds its
    # sliding-window mask on every forward, which raises without a window: even with max_window_layers 0, where no
    # layer slides (both found by tests/test_reference_memory.py's random windows). Qwen2's config makes them full.
    from derivations import answers

    config = configs.load("qwen1.5-moe-a2.7b") | {"use_sliding_window": True, "sliding_window": None,
                                                   "max_window_layers": 4}
    for bound in (4, 0):
        with pytest.raises(ConfigError, match="sliding_window must be set"):
            answers.memory(config | {"max_window_layers": bound}, None, 16)
    qwen2 = configs.load("qwen2-7b") | {"use_sliding_window": True, "sliding_window": None, "max_window_layers": 4}
    assert answers.memory(qwen2, None, 16)["kv_cache_windows"] == []
