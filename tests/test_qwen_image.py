"""Qwen2.5-VL and Qwen3-VL on one image (``--image HxW``): the grid is the released processor's (transformers'
smart_resize and Qwen2VLImageProcessor), the FLOPs are FlopCounterMode's count of the model's forward on CPU with
real pixel_values and image_grid_thw (eager attention: the vision tower splits its windows by cu_seqlens), and the
command's refusals are one line each."""

from __future__ import annotations

import functools
import re

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from derivations import answers  # noqa: E402
from derivations.__main__ import run  # noqa: E402
from derivations.readers import _qwen_image  # noqa: E402
from specs import qwen2_5_vl as spec25, qwen3_vl as spec3  # noqa: E402

# The PIL backend (torchvision is not installed): the same smart_resize as the torchvision one.
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize  # noqa: E402

# Sizes that reach each branch of smart_resize: rounded alone, scaled up to min_pixels, scaled down to max_pixels,
# an aspect ratio near the processor's bound.
SIZES = ((1024, 768), (448, 448), (37, 1000), (20, 20), (8000, 6000), (300, 59000), (1, 150))


@pytest.mark.parametrize("limits, factor", [(_qwen_image.QWEN2_5_VL, 28), (_qwen_image.QWEN3_VL, 32), (_qwen_image.QWEN2_5_VL, 8)])
def test_smart_resize_is_transformers(limits, factor):
    for height, width in SIZES:
        assert _qwen_image.smart_resize(height, width, factor, limits) == \
            smart_resize(height, width, factor, limits.min_pixels, limits.max_pixels), (height, width)


def test_the_grid_is_the_processors():
    """The released Qwen2.5-VL processor's settings (preprocessor_config.json) on a real image: its image_grid_thw."""
    import numpy as np

    processor = transformers.Qwen2VLImageProcessorPil(min_pixels=_qwen_image.QWEN2_5_VL.min_pixels,
                                                   max_pixels=_qwen_image.QWEN2_5_VL.max_pixels, patch_size=14,
                                                   merge_size=2)
    height, width = 100, 150
    out = processor(images=[np.zeros((height, width, 3), dtype=np.uint8)], return_tensors="pt")
    grid, sizes = _qwen_image.image({"p": 14, "S_m": 2}, _qwen_image.QWEN2_5_VL, height, width)
    assert out["image_grid_thw"].tolist() == [[1, grid.grid_h, grid.grid_w]]
    assert sizes["N_p"] == out["pixel_values"].shape[0]


# Small configs that run on CPU: Qwen2.5-VL's tower with windows of 2 merged tokens a side (window_size 16 over
# patches of 4 merged 2 x 2), block 1 of 3 attending over the whole image; Qwen3-VL's with its DeepStack blocks.
# The image's placeholder id inside the small vocabulary.
QWEN25 = spec25.SMALL | {"image_token_id": 999, "vision_config": spec25.SMALL_TOWER | {
    "depth": 3, "window_size": 16, "fullatt_block_indexes": [1]}}
QWEN3 = spec3.SMALL | {"image_token_id": 999}
# An image that smart_resize scales up (below min_pixels) to an uneven merged grid: the last windows are partial.
IMAGES = {"Qwen2_5_VLForConditionalGeneration": (QWEN25, (64, 40)),
          "Qwen3VLForConditionalGeneration": (QWEN3, (300, 200))}
TEXT_TOKENS = 5


@functools.cache
def measured(architecture: str) -> tuple[int, dict]:
    """FlopCounterMode's count of one forward on the image and TEXT_TOKENS tokens, and its count per module."""
    from torch.utils.flop_counter import FlopCounterMode

    config, (height, width) = IMAGES[architecture]
    torch.manual_seed(0)
    model = getattr(transformers, architecture)(transformers.AutoConfig.for_model(**config)).eval()
    model.config._attn_implementation = "eager"
    vision = model.config.vision_config
    grid, sizes = _qwen_image.image({"p": vision.patch_size, "S_m": vision.spatial_merge_size},
                                    _qwen_image.QWEN2_5_VL if "2_5" in architecture else _qwen_image.QWEN3_VL,
                                    height, width)
    pixels = torch.randn(sizes["N_p"], vision.in_channels * vision.temporal_patch_size * vision.patch_size ** 2)
    image_id = model.config.image_token_id
    ids = torch.tensor([[image_id] * sizes["N_i"] + [1] * TEXT_TOKENS])
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        # As the processor returns them: 1 for an image's placeholder, 0 for text (the multimodal positions read them).
        model(input_ids=ids, attention_mask=torch.ones_like(ids), mm_token_type_ids=(ids == image_id).long(),
              pixel_values=pixels,
              image_grid_thw=torch.tensor([[1, grid.grid_h, grid.grid_w]]), use_cache=False)
    return counter.get_total_flops(), {name: sum(c.values()) for name, c in counter.get_flop_counts().items()}


@pytest.mark.parametrize("architecture", sorted(IMAGES))
def test_flops_of_an_image_are_flop_counter_modes(architecture):
    config, (height, width) = IMAGES[architecture]
    grid, sizes = _qwen_image.image({"p": 4, "S_m": 2}, _qwen_image.QWEN2_5_VL if "2_5" in architecture
                                    else _qwen_image.QWEN3_VL, height, width)
    result, rows = answers.flops(config, architecture, sizes["N_i"] + TEXT_TOKENS, image=(height, width))
    total, by_module = measured(architecture)
    assert result["forward"] == total
    assert result["image"]["grid_thw"] == [1, grid.grid_h, grid.grid_w]
    # The vision tower (its mergers included) as transformers' module model.visual counts it.
    tower = sum(r["flops"] for r in rows if r["name"].startswith("model.vision_tower."))
    assert tower == by_module[f"{architecture}.model.visual"] if f"{architecture}.model.visual" in by_module \
        else by_module["model.visual"]


def test_full_recomputation_runs_the_blocks_and_the_layers_again():
    """Qwen2.5-VL's tower holds its blocks' attention products, summed over the blocks (its windows' pairs): a full
    recomputation runs them again with the rest of each block, as FlopCounterMode counts the modules
    model.visual.blocks.i and model.language_model.layers.i."""
    architecture = "Qwen2_5_VLForConditionalGeneration"
    config, (height, width) = IMAGES[architecture]
    _, sizes = _qwen_image.image({"p": 4, "S_m": 2}, _qwen_image.QWEN2_5_VL, height, width)
    result, _ = answers.flops(config, architecture, sizes["N_i"] + TEXT_TOKENS, image=(height, width))
    _, by_module = measured(architecture)
    repeated = re.compile(rf"{architecture}\.model\.(visual\.blocks|language_model\.layers)\.\d+")
    assert result["full_recomputation"] == sum(flops for name, flops in by_module.items() if repeated.fullmatch(name))


def test_windowed_pairs_are_fewer_than_the_square():
    """Qwen2.5-VL's windows: with every block full (fullatt_block_indexes all), the pairs are the image's square."""
    config, (height, width) = IMAGES["Qwen2_5_VLForConditionalGeneration"]
    every = config | {"vision_config": config["vision_config"] | {"fullatt_block_indexes": [0, 1, 2]}}
    _, _, values, _ = answers.flop_components(every, None, 300, None, (height, width))
    _, _, windowed, _ = answers.flop_components(config, None, 300, None, (height, width))
    assert values["A_v"] == 3 * values["N_p"] ** 2 > windowed["A_v"]


@pytest.mark.parametrize("argv, words", [
    (["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024"], "give --image HxW"),
    (["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024", "--image", "1024*768"], "HEIGHTxWIDTH"),
    (["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024", "--image", "0x768"], "from 1 to"),
    (["memory", "qwen3-vl-8b-instruct", "--seq", "1024", "--image", "1024"], "HEIGHTxWIDTH"),
    (["flops", "qwen2.5-vl-7b-instruct", "--seq", "1024", "--image", "10x5000"], "aspect ratio"),
    (["flops", "qwen2.5-vl-7b-instruct", "--seq", "16", "--image", "1024x768"], "cannot hold it"),
    (["flops", "gpt2", "--seq", "16", "--image", "64x64"], "leave out --image"),
    (["flops", "qwen2.5-vl-7b-instruct", "--arch", "Qwen2_5_VLTextModel", "--seq", "16", "--image", "64x64"],
     "reads no image"),
    (["memory", "qwen3-vl-8b-instruct", "--arch", "Qwen3VLTextModel", "--seq", "16", "--image", "64x64"],
     "reads no image"),
])
def test_refusals_are_one_line(argv, words):
    ran = run(argv)
    assert ran.status == 2 and words in ran.output and "\n" not in ran.output, ran.output


def test_memory_holds_the_images_tokens():
    """memory with --image: the weights and the cache of --seq tokens, the image's among them, and the grid said."""
    ran = run(["memory", "qwen3-vl-8b-instruct", "--seq", "4096", "--image", "448x448", "--json"])
    assert ran.status == 0
    import json

    result = json.loads(ran.output)
    # Qwen3-VL-8B-Instruct's processor: patches of 16 merged 2 x 2, its preprocessor_config.json's pixel limits.
    height, width = smart_resize(448, 448, 32, 65536, 16777216)
    assert result["image"] == {"height": 448, "width": 448, "resized": [height, width],
                               "grid_thw": [1, height // 16, width // 16]}
    plain = json.loads(run(["memory", "qwen3-vl-8b-instruct", "--seq", "4096", "--json"]).output)
    assert result["kv_cache_bytes"] == plain["kv_cache_bytes"] and result["weights_bytes"] == plain["weights_bytes"]
