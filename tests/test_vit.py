"""ViT: the counts against torchvision's published ones, the paper's Table 1, and ViTConfig's defaults.

Expected values come from outside the project: torchvision's weights' num_params (ViT_B_16_Weights 86,567,656 and
ViT_L_16_Weights 304,326,632; vit_l_32's 306,535,400), the paper's Table 1 (86M, 307M, 632M), the released configs,
and transformers (tests/specs/vit.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.families import vit
from derivations.symbols import C, C_i, D, N_p, p


def test_torchvision_publishes_the_classifiers_counts():
    # torchvision's ViT-B/16 and ViT-L/16 hold the same tensors as transformers' classifier of 1,000 labels.
    assert api.count("vit-base-patch16-224").total == 86_567_656
    assert api.count("vit-large-patch16-224").total == 304_326_632


def test_vit_l_32_with_its_classifier_is_torchvisions_and_rounds_to_the_papers_307m():
    assert vit.large_307m_patch32.exact(2) == 306_535_400  # torchvision's ViT_L_32_Weights
    assert vit.large_307m_patch32.rounds(2)
    assert not any(vit.large_307m.rounds(i) for i in range(3))  # no count at 16-pixel patches gives 307M


def test_the_papers_base_and_huge_rows():
    assert vit.base_86m.rounds(0) and not vit.base_86m.rounds(2)  # the backbone: 85,798,656
    assert vit.huge_632m.rounds(2) and not vit.huge_632m.rounds(0)  # with the classifier: 632,045,800
    assert vit.huge_632m.exact(2) == 632_045_800


def test_an_image_is_its_patches_and_a_class_token():
    values = registry.checkpoint("vit-base-patch16-224").values
    assert (values[N_p], values[p], values[C_i], values[C]) == (196, 16, 3, 1000)
    assert vit.sequence.subs(values) == 197
    # Pixels no whole patch covers are dropped: 230 by 200 pixels in 16-pixel patches is 14 by 12 of them.
    assert registry.resolve({"model_type": "vit", "image_size": [230, 200]}).values[N_p] == 14 * 12


def test_minimal_config_takes_vitconfigs_defaults():
    values = registry.resolve({"model_type": "vit"}).values
    assert (values[N_p], values[p], values[C_i], values[D]) == (196, 16, 3, 768)


def test_flops_are_of_one_image():
    # fvcore and timm put ViT-B/16 at 17.56 GMACs a 224-pixel image: 35.1 GFLOPs at two a multiply-add.
    result = api.flop_count("vit-base-patch16-224", None)
    assert result.forward // 10**7 == 3512  # 35,127,656,448: the patches' map and every layer on 197 tokens


@pytest.mark.parametrize("config, message", [
    ({"model_type": "vit", "patch_size": 300}, "more than the image"),
    ({"model_type": "vit", "patch_size": [16, 8]}, "not square"),
    ({"model_type": "vit", "image_size": [224]}, "height, width"),
    ({"model_type": "vit", "num_attention_heads": 1000}, "more than hidden_size"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
