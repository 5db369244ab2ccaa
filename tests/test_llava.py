"""LLaVA-1.5: the counts against the loaded hub checkpoint, the paper's names and the parts' own published counts,
and the refusals.

Expected values come from outside the project: a post that loads llava-hf/llava-1.5-7b-hf with transformers and sums
its parameters (7,063,427,072), the paper's "7B" and "13B" (Liu et al. 2023), Llama 2's published totals (Vicuna v1.5
is Llama 2 fine-tuned: 6,738,415,616 and 13,015,864,320 at a vocabulary of 32,000, as the hub lists
lmsys/vicuna-13b-v1.5 and Llama-2-7b), OpenCLIP's profile of ViT-L/14 (its image encoder, 303.97M with its
projection), the released configs, and transformers (tests/specs/llava.py, run by the reference harness, recomputes
every total, node and FLOP count).
"""

import pytest

from derivations import api, configs, registry
from derivations.families import llava
from derivations.symbols import D, N_i, N_p, V

LLAMA_2 = {"llava-1.5-7b-hf": 6_738_415_616, "llava-1.5-13b-hf": 13_015_864_320}


def test_the_loaded_7b_checkpoint_is_the_exact_count():
    assert llava.loaded_7b.rounds(0)
    assert api.count("llava-1.5-7b-hf").total == 7_063_427_072


def test_the_papers_names():
    assert llava.paper_7b.rounds(0) and llava.paper_13b.rounds(0)


@pytest.mark.parametrize("name", sorted(LLAMA_2))
def test_the_language_model_is_llama_2_with_64_more_rows(name):
    # LLaVA's vocabulary is Llama 2's 32,000 and 64 more (the image's token, padding, to a multiple of 64): rows of the
    # embeddings and of the untied head.
    values = registry.checkpoint(name).values
    assert values[V] == 32_000 + 64
    head = values[D] * values[V]
    assert llava.language_model.count(values) + head == LLAMA_2[name] + 2 * 64 * values[D]


def test_the_tower_is_openclips_vit_l_14_at_336_pixels():
    # OpenCLIP's ViT-L-14 image encoder (224 pixels: 16 x 16 patches) is 303.97M with its 1024 x 768 projection; at
    # 336 pixels the tower has 24 x 24 patches: 576 - 256 more position rows of 1024, and no projection.
    values = registry.checkpoint("llava-1.5-7b-hf").values
    assert values[N_p] == 24 * 24 == values[N_i]  # the "default" strategy: one token a patch, no class token
    tower = llava.vision_tower.count(values)
    assert round(tower - (576 - 256) * 1024 + 1024 * 768, -4) == 303_970_000


def test_one_tower_and_the_whole_is_its_parts():
    towers = {llava.vision_tower.count(registry.checkpoint(name).values) for name in llava.FAMILY.checkpoints}
    assert len(towers) == 1
    for name in llava.FAMILY.checkpoints:
        values = registry.checkpoint(name).values
        whole = api.count(name).total
        assert whole == sum(part.count(values) for part in (llava.vision_tower, llava.projector,
                                                             llava.language_model)) + values[D] * values[V]


def test_the_full_strategy_keeps_the_class_token():
    config = configs.load("llava-1.5-7b-hf") | {"vision_feature_select_strategy": "full"}
    assert registry.resolve(config).values[N_i] == 24 * 24 + 1


def test_the_head_is_tied_by_either_config():
    config = configs.load("llava-1.5-7b-hf")
    untied = api.count(config).total
    text = config["text_config"] | {"tie_word_embeddings": True}
    for tied in (config | {"tie_word_embeddings": True}, config | {"text_config": text}):
        assert untied - api.count(tied).total == 4096 * 32_064


@pytest.mark.parametrize("config, message", [
    ({"text_config": {"model_type": "mistral"}}, 'text_config.model_type "mistral" is not derived'),
    ({"vision_config": {"model_type": "siglip_vision_model"}}, "not derived"),
    ({"vision_feature_layer": [-2, -5]}, "a list of feature layers"),
    ({"vision_feature_layer": 25}, "not one of the vision tower's 25 hidden states"),
    ({"vision_feature_select_strategy": "cls"}, "must be \"default\" or \"full\""),
    ({"text_config": {"model_type": "llama", "hidden_size": 30}}, "text_config: hidden_size"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve({"model_type": "llava"} | config)


def test_the_towers_defaults_are_llavaconfigs_where_none_is_given():
    # configuration_llava.py (5.23): without a vision_config, LlavaConfig builds CLIP ViT-L/14 at 336 pixels (its
    # image_seq_length default, 576, is that tower's patches); a vision_config given, even empty, takes
    # CLIPVisionConfig's defaults (ViT-B/32 at 224 pixels: 7 x 7 patches).
    assert registry.resolve({"model_type": "llava"}).values[N_i] == 576
    assert registry.resolve({"model_type": "llava", "vision_config": {}}).values[N_p] == 7 * 7
