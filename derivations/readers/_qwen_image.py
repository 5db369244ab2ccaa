"""One image as Qwen2.5-VL's and Qwen3-VL's processor cuts it into patches: what ``--image HxW`` gives their FLOPs.

Both families' processor is transformers' Qwen2VLImageProcessor (image_processing_auto maps qwen2_5_vl and qwen3_vl to
it, 5.23). It resizes an image of height x width pixels with ``smart_resize`` (models/qwen2_vl/
image_processing_qwen2_vl.py): each side rounded to a multiple of the factor p S_m (a merged square of patches),
then scaled, keeping the aspect ratio, into [min_pixels, max_pixels]; the image is then a grid (1, h/p, w/p) of
patches (image_grid_thw; one frame, repeated to fill the p_t of a patch):

$$N_\\mathrm{p} = \\frac{h}{p} \\cdot \\frac{w}{p}, \\quad N_\\mathrm{img} = \\frac{N_\\mathrm{p}}{S_\\mathrm{m}^2}$$

The pixel limits are the released processors' (preprocessor_config.json), not the class's defaults (56 x 56 and
28 x 28 x 1280 pixels): Qwen/Qwen2.5-VL-*-Instruct's min_pixels 3136 and max_pixels 12845056 [cite: hub-qwen2.5-vl],
Qwen/Qwen3-VL-*-Instruct's size {shortest_edge 65536, longest_edge 16777216} [cite: hub-qwen3-vl]: what a user of
the checkpoints gets from AutoProcessor. The factor is the config's p S_m (the released processors' patch_size and
merge_size are the configs' own).

Plain integers (and the processor's own floating-point steps, in the same order): the command line runs without SymPy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from ..reading import ConfigError


class Limits(NamedTuple):
    """A released processor's bounds on an image's pixels after resizing (size's shortest_edge, longest_edge)."""

    min_pixels: int
    max_pixels: int


# preprocessor_config.json of the released checkpoints (see the module's docstring).
QWEN2_5_VL = Limits(3136, 12845056)
QWEN3_VL = Limits(65536, 16777216)
# smart_resize refuses an image whose longer side is more than 200 times its shorter.
MAX_RATIO = 200


def smart_resize(height: int, width: int, factor: int, limits: Limits) -> tuple[int, int]:
    """transformers' smart_resize (5.23), step for step: the processor's resized (height, width)."""
    if max(height, width) / min(height, width) > MAX_RATIO:
        raise ConfigError(f"--image {height}x{width}: the processor refuses an aspect ratio above {MAX_RATIO} "
                          f"(got {max(height, width) / min(height, width):.1f})")
    h_bar, w_bar = round(height / factor) * factor, round(width / factor) * factor
    if h_bar * w_bar > limits.max_pixels:
        beta = math.sqrt((height * width) / limits.max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < limits.min_pixels:
        beta = math.sqrt(limits.min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


class Image(NamedTuple):
    """What the processor makes of one image: the size asked for, the size it resizes to, its grid of patches."""

    height: int
    width: int
    resized_height: int
    resized_width: int
    grid_h: int
    grid_w: int

    def json(self) -> dict:
        return {"height": self.height, "width": self.width,
                "resized": [self.resized_height, self.resized_width], "grid_thw": [1, self.grid_h, self.grid_w]}


def image(values: Mapping[str, int], limits: Limits, height: int, width: int) -> tuple[Image, dict[str, int]]:
    """One image of height x width pixels for a tower of patch side p merging S_m x S_m patches (the reader's
    values): the processor's grid, and the sizes it gives, N_p (patches) and N_i (the language model's tokens)."""
    p, merge = values["p"], values["S_m"]
    resized = smart_resize(height, width, p * merge, limits)
    grid = Image(height, width, *resized, resized[0] // p, resized[1] // p)
    patches = grid.grid_h * grid.grid_w
    return grid, {"N_p": patches, "N_i": patches // merge**2}


def window_pairs(grid: Image, merge: int, window: int) -> int:
    """The query-key pairs of one windowed block of Qwen2.5-VL's tower (get_vision_window_index, then attention on
    each window alone): the merged grid cut into squares of ``window`` merged tokens a side, the last row and column
    of windows shorter. A window of a_i by b_j merged tokens holds n = a_i b_j S_m^2 patches, and

    $$\\sum_{i,j} n_{ij}^2 = S_\\mathrm{m}^4 \\Big(\\sum_i a_i^2\\Big) \\Big(\\sum_j b_j^2\\Big)$$"""
    def squares(side: int) -> int:  # the sides' chunks: side // window whole ones, and the rest
        return (side // window) * window**2 + (side % window) ** 2

    return merge**4 * squares(grid.grid_h // merge) * squares(grid.grid_w // merge)
