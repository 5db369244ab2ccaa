"""Qwen2.5-VL: what the reference harness checks (tests/test_reference_families.py). Its language model's random
configs are Qwen2's grouped-query decoders (tests/strategies.grouped_query), written at the top level (as the released
configs do) or inside text_config; its vision transformer's sizes are drawn here."""

from collections.abc import Callable, Mapping

from hypothesis import strategies as st

from spec import Spec
from strategies import grouped_query

CLASSES = ("Qwen2_5_VLForConditionalGeneration", "Qwen2_5_VLModel")
# The classes that read an image: their FLOPs need its size (--image HxW; the processor sizes it, not the config),
# which the harness does not give: tests/test_qwen_image.py checks them on one image against FlopCounterMode.
IMAGE = (*CLASSES, "Qwen2_5_VisionTransformerPretrainedModel")


@st.composite
def tower(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 4))
    vision = {"depth": draw(st.integers(1, 2)), "hidden_size": heads * 2 * draw(st.integers(1, 8)),
              "num_heads": heads, "intermediate_size": draw(st.integers(1, 64)),
              "in_channels": draw(st.integers(1, 4)), "patch_size": draw(st.integers(1, 4)),
              "temporal_patch_size": draw(st.integers(1, 3)), "spatial_merge_size": draw(st.integers(1, 3)),
              "out_hidden_size": draw(st.integers(1, 64))}
    # The others left out at random (their defaults); the width and its heads always given (a head of 2 at least).
    return {k: v for k, v in vision.items() if k in ("depth", "hidden_size", "num_heads", "out_hidden_size")
            or draw(st.booleans())}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text = draw(grouped_query("qwen2_5_vl", head_dim=False))
    for field in ("token_classification_bias", "num_labels"):
        text.pop(field, None)
    vision = draw(tower())
    if draw(st.booleans()):  # as released: the language model's fields at the top level
        return text | {"vision_config": vision}
    tie = text.pop("tie_word_embeddings", None)
    inner = {k: v for k, v in text.items() if k != "model_type"} | {"model_type": "qwen2_5_vl_text"}
    config = {"model_type": "qwen2_5_vl", "text_config": inner, "vision_config": vision}
    if tie is not None:  # on the whole config, or inside text_config (which a pre-v5 save wrote)
        (config if draw(st.booleans()) else inner)["tie_word_embeddings"] = tie
    return config


def runs_on_text(model_class: str) -> Callable[[Mapping], bool]:
    """Whether transformers builds ``model_class`` from a config (on the CPU) and runs it on three text tokens:
    Qwen2.5-VL's and Qwen3-VL's (their images' grids are no config's)."""
    def runs(config: Mapping) -> bool:
        import torch
        import transformers

        try:
            model = getattr(transformers, model_class)(transformers.AutoConfig.for_model(**config))
            with torch.no_grad():
                model(input_ids=torch.tensor([[1, 2, 3]]))
        except Exception:  # the config class, the constructor or the forward pass refuses it
            return False
        return True
    return runs


runs = runs_on_text("Qwen2_5_VLForConditionalGeneration")


SMALL_TOWER = {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 4, "patch_size": 4,
               "out_hidden_size": 64}
TEXT = {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 8, "num_key_value_heads": 2}
# Its rotary sections (mrope_section, [16, 24, 24] by default) sum to half a head: 4 of 8 here, else the forward fails.
ROPE = {"rope_scaling": {"type": "mrope", "mrope_section": [1, 1, 2]}}
SMALL = {"model_type": "qwen2_5_vl", **TEXT, **ROPE, "vision_config": SMALL_TOWER}
SPEC = Spec(
    family="qwen2_5_vl",
    small=SMALL,
    real=[(name, {"num_hidden_layers": 1, "vision_config": {"depth": 1}}) for name in
          ("qwen2.5-vl-3b-instruct", "qwen2.5-vl-7b-instruct")],
    # Qwen2_5_VLTextConfig's defaults are the 72B model's sizes: one layer of each stack.
    defaults={"num_hidden_layers": 1, "vision_config": {"depth": 1}},
    layouts={"tied": {"tie_word_embeddings": True},
             "nested": {"text_config": TEXT | {"model_type": "qwen2_5_vl_text"}, "hidden_size": 32},
             "text-tied": {"text_config": TEXT | {"tie_word_embeddings": True}},
             "head-dim": {"head_dim": 16},  # ignored: the heads are hidden_size // num_attention_heads
             "old-vision": {"vision_config": SMALL_TOWER | {"model_type": "qwen2_5_vl", "in_chans": 5}}},
    refused=(
        ({"hidden_size": 68}, "not a multiple of num_attention_heads"),
        ({"num_key_value_heads": 3}, "num_key_value_heads"),
        ({"vision_config": SMALL_TOWER | {"patch_size": [4, 4]}}, "patch_size must be an integer"),
        ({"vision_config": SMALL_TOWER | {"num_heads": 64}}, "a head size of 0"),
    ),
    accepted=({"vision_config": SMALL_TOWER | {"out_hidden_size": 64, "spatial_merge_size": 1}},),
    configs=configs(),
    examples=20,
    runs=runs,
    data_dependent=CLASSES,
    no_forward=IMAGE,
)
