"""DINOv2: the counts against the published configs, the README's "# of params", and Dinov2Config's defaults.

Expected values come from outside the project: the hub configs of facebook/dinov2-small, -base, -large and -giant
(their sizes), the facebookresearch/dinov2 README's model table (21 M, 86 M, 300 M, 1,100 M), the paper (ViT-g/14's
SwiGLU feed-forward), transformers' Dinov2SwiGLUFFN (its width in floats) and transformers itself
(tests/specs/dinov2.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest

from derivations import api, configs, registry
from derivations.claims import rounds_to
from derivations.families import dinov2
from derivations.readers import dinov2 as reader
from derivations.symbols import C_i, D, F, H, L, N_p, p


@pytest.mark.parametrize("name, width, layers, heads, inner", [
    # The hub configs: hidden_size, num_hidden_layers, num_attention_heads; mlp_ratio 4, and SwiGLU in the giant
    # (the paper's ViT-g/14: 1536 wide, 40 blocks, 24 heads, SwiGLU).
    ("dinov2-small", 384, 12, 6, 4 * 384), ("dinov2-base", 768, 12, 12, 4 * 768),
    ("dinov2-large", 1024, 24, 16, 4 * 1024), ("dinov2-giant", 1536, 40, 24, 4096),
])
def test_the_released_sizes(name, width, layers, heads, inner):
    values = registry.checkpoint(name).values
    assert (values[D], values[L], values[H], values[F]) == (width, layers, heads, inner)
    # 518-pixel images in 14-pixel patches: 37 a side.
    assert (values[N_p], values[p], values[C_i]) == (37 * 37, 14, 3)


def test_the_swiglu_width_is_transformers_float_expression():
    # Dinov2SwiGLUFFN: hidden_features = int(hidden_size * mlp_ratio); (int(hidden_features * 2 / 3) + 7) // 8 * 8.
    for hidden in range(1, 2000):
        for ratio in (1, 2, 3, 4, 5):
            features = int(hidden * ratio)
            assert reader.inner_width(hidden, ratio, True) == (int(features * 2 / 3) + 7) // 8 * 8, (hidden, ratio)
            assert reader.inner_width(hidden, ratio, False) == features


def test_the_readmes_86m_is_the_224_pixel_table():
    # At the hub's 518 pixels ViT-B/14 is 86.58M (87M); at 224 pixels, as DINOv2 is evaluated, 85.7M: 86M.
    assert not any(dinov2.base_86m.rounds(i) for i in range(2))
    assert all(dinov2.base_86m_224.rounds(i) for i in range(2))


def test_no_count_gives_the_readmes_21m():
    # ViT-S/14: 22.06M at 518 pixels, 21.63M at 224 (with or without the mask token): 22M either way. The nearest,
    # 21,628,800 (224 pixels, no mask token), is 21M truncated, not rounded.
    assert not any(claim.rounds(i) for claim in (dinov2.small_21m, dinov2.small_21m_224) for i in range(2))
    assert dinov2.small_21m_224.exact(1) // 10**6 == 21


def test_300m_and_1100m_hold_at_their_last_digit_alone():
    # "300 M" and "1,100 M" round every convention's count at hundreds of millions; to the million, as the table
    # prints 21 M and 86 M, none: ViT-L/14 is 303.2M to 304.4M, ViT-g/14 1,134.8M to 1,136.5M.
    for claim in (dinov2.large_300m, dinov2.large_300m_224, dinov2.giant_1100m, dinov2.giant_1100m_224):
        assert all(claim.rounds(i) for i in range(2)), claim.name
        assert not any(rounds_to(claim.exact(i), claim.claim, 10**6) for i in range(2)), claim.name


def test_the_mask_token_is_one_d_vector():
    plain = registry.resolve({"model_type": "dinov2"}).total
    assert plain - registry.resolve({"model_type": "dinov2", "use_mask_token": False}).total == 768


def test_minimal_config_takes_dinov2configs_defaults():
    values = registry.resolve({"model_type": "dinov2"}).values
    # Dinov2Config: 224-pixel images, 14-pixel patches, 3 channels, hidden 768, mlp_ratio 4.
    assert (values[N_p], values[p], values[C_i], values[D], values[F]) == (256, 14, 3, 768, 3072)


def test_flops_are_of_one_image():
    # One 518-pixel image: 1,369 patches and the class token.
    assert dinov2.FAMILY.image_tokens.subs(registry.checkpoint("dinov2-base").values) == 1370
    with pytest.raises(configs.ConfigError, match="leave out --seq"):
        api.flop_count("dinov2-base", 7)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "dinov2", "patch_size": 300}, "more than the image"),
    ({"model_type": "dinov2", "patch_size": [14, 7]}, "not square"),
    ({"model_type": "dinov2", "image_size": [224]}, "height, width"),
    ({"model_type": "dinov2", "image_size": [224, 168]}, "not a square number"),
    ({"model_type": "dinov2", "mlp_ratio": 4.0}, "must be an integer"),
    ({"model_type": "dinov2", "mlp_ratio": True}, "must be an integer"),
    ({"model_type": "dinov2", "num_attention_heads": 1000}, "more than hidden_size"),
    ({"model_type": "dinov2", "use_swiglu_ffn": "true"}, "true or false"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
