"""Llama 4 with its vision tower: what the reference harness checks (tests/test_reference_families.py). Its language
model's sizes and random configs are llama4_text's (tests/specs/llama4_text.py); the model cards' figures are in
tests/test_llama4.py."""

from hypothesis import strategies as st

from spec import Spec
from specs.gemma3 import runs_with_image
from specs.llama4_text import SIZES, configs as text_configs

CLASSES = ("Llama4ForConditionalGeneration",)


@st.composite
def tower(draw: st.DrawFn) -> dict:
    """A vision tower that runs as often as not: heads of a multiple of 4 (its rotary positions pair the head's
    halves), an even side of patches folded by 0.5, the adapter as wide as the fold (F_v = 4 D_v) and the
    projector's input as wide as the adapter's output; else any sizes (the counts hold whether it runs or not)."""
    heads, head = draw(st.integers(1, 4)), 4 * draw(st.integers(1, 4))
    width, patch = heads * head, draw(st.integers(1, 6))
    side = 2 * draw(st.integers(1, 3))
    adapter = draw(st.integers(1, 48))
    config = {"hidden_size": width, "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 2)),
              "intermediate_size": 4 * width, "patch_size": patch, "image_size": side * patch,
              "num_channels": draw(st.integers(1, 4)), "projector_input_dim": adapter,
              "projector_output_dim": adapter, "vision_output_dim": adapter}
    if draw(st.booleans()):
        config |= {"intermediate_size": draw(st.integers(1, 64)), "projector_output_dim": draw(st.integers(1, 48)),
                   "vision_output_dim": draw(st.integers(1, 48)),
                   "image_size": side * patch + draw(st.integers(0, patch - 1)),
                   # A fold of 0.25 where the side has patches for it (fewer: no token, refused).
                   "pixel_shuffle_ratio": draw(st.sampled_from([0.25, 0.5, 1.0] if side >= 4 else [0.5, 1.0]))}
    return config


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text = draw(text_configs())
    text["vocab_size"] = max(text["vocab_size"], 2)
    if draw(st.booleans()):
        # Heads that cover the width: the FLOPs checks run a model with an encoder's attention (the tower's) only
        # there (tests/reference.py runs), and half the draws leave them to the counts.
        text["hidden_size"] = text["num_attention_heads"] * text["head_dim"]
    # The forward embeds the placeholder ids before it puts the image's states in their place: one of the table's.
    config = {"model_type": "llama4", "text_config": text, "vision_config": draw(tower()),
              "image_token_index": text["vocab_size"] - 1}
    if draw(st.booleans()):
        config["tie_word_embeddings"] = draw(st.booleans())  # the whole model's: read by no module
    return config


# Llama 4: the patches a side, folded by the pixel shuffle, squared.
runs = runs_with_image("Llama4ForConditionalGeneration", lambda config: int(
    config.vision_config.image_size // config.vision_config.patch_size * config.vision_config.pixel_shuffle_ratio) ** 2)


SMALL_TOWER = {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128,
               "image_size": 32, "patch_size": 8, "projector_input_dim": 24, "projector_output_dim": 24,
               "vision_output_dim": 24}
SMALL = {"model_type": "llama4", "text_config": SIZES, "vision_config": SMALL_TOWER, "image_token_index": 999}
SPEC = Spec(
    family="llama4",
    small=SMALL,
    every_class_on_checkpoints=True,
    defaults={"text_config": {"num_hidden_layers": 1}, "vision_config": {"num_hidden_layers": 1}},
    layouts={"small": {}, "bias": {"text_config": SIZES | {"attention_bias": True}},
             "tied": {"text_config": SIZES | {"tie_word_embeddings": True}},
             "whole-tied": {"tie_word_embeddings": True},
             "interleaved": {"text_config": SIZES | {"interleave_moe_layer_step": 2}},
             "quarter": {"vision_config": SMALL_TOWER | {"pixel_shuffle_ratio": 0.25, "intermediate_size": 512}}},
    refused=(
        ({"vision_config": SMALL_TOWER | {"hidden_size": 30}}, "not a multiple"),
        ({"vision_config": SMALL_TOWER | {"pixel_shuffle_ratio": 0}}, "pixel_shuffle_ratio"),
        ({"vision_config": SMALL_TOWER | {"pixel_shuffle_ratio": 0.1}}, "into no token"),
        ({"vision_config": SMALL_TOWER | {"patch_size": 40}}, "no patch to embed"),
        ({"text_config": SIZES | {"num_key_value_heads": 3}}, "text_config: num_attention_heads .8. is not a multiple of num_key_value_heads"),
    ),
    accepted=({"vision_config": SMALL_TOWER | {"pixel_shuffle_ratio": 1.0, "intermediate_size": 32}},
              {"tie_word_embeddings": False}),
    configs=configs(),
    examples=20,
    runs=runs,
    data_dependent=CLASSES,
)
