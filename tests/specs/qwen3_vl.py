"""Qwen3-VL: what the reference harness checks (tests/test_reference_families.py). Its language model's random configs
are Qwen3's grouped-query decoders (tests/strategies.grouped_query) inside text_config, their rotary sections (which
must fill half a head for the forward) drawn to fit; its vision transformer's sizes, positions and DeepStack blocks
are drawn here."""

from hypothesis import strategies as st

from derivations import configs
from spec import Spec
from specs.qwen2_5_vl import runs_on_text
from strategies import grouped_query

CLASSES = ("Qwen3VLForConditionalGeneration", "Qwen3VLModel")
# The classes that read an image: their FLOPs need its size (--image HxW; the processor sizes it, not the config),
# which the harness does not give: tests/test_qwen_image.py checks them on one image against FlopCounterMode.
IMAGE = (*CLASSES, "Qwen3VLVisionModel")


def sections(head_dim: int) -> list[int]:
    """Rotary sections (time, height, width) that fill half a head, as the released [24, 20, 20] fill 64 of 128."""
    half = head_dim // 2
    return [half - 2 * (half // 3), half // 3, half // 3]


@st.composite
def tower(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 4))
    depth = draw(st.integers(1, 2))
    vision = {"depth": depth, "hidden_size": heads * 2 * draw(st.integers(1, 8)), "num_heads": heads,
              "intermediate_size": draw(st.integers(1, 64)), "in_channels": draw(st.integers(1, 4)),
              "patch_size": draw(st.integers(1, 4)), "temporal_patch_size": draw(st.integers(1, 3)),
              "spatial_merge_size": draw(st.integers(1, 3)), "out_hidden_size": draw(st.integers(1, 64)),
              "num_position_embeddings": draw(st.integers(1, 36)),
              # none, or blocks of the tower (an index past the last builds its merger all the same)
              "deepstack_visual_indexes": draw(st.lists(st.integers(0, depth), max_size=3))}
    # The others left out at random (their defaults); the width and its heads always given (a head of 2 at least).
    return {k: v for k, v in vision.items() if k in ("depth", "hidden_size", "num_heads", "out_hidden_size")
            or draw(st.booleans())}


@st.composite
def configs_(draw: st.DrawFn) -> dict:
    text = draw(grouped_query("qwen3_vl_text"))
    for field in ("token_classification_bias", "num_labels"):
        text.pop(field, None)
    text["rope_parameters"] = {"rope_type": "default", "mrope_section": sections(text.get("head_dim", 128))}
    if draw(st.booleans()):
        text["attention_bias"] = draw(st.booleans())
    config = {"model_type": "qwen3_vl", "text_config": text, "vision_config": draw(tower())}
    tie = text.pop("tie_word_embeddings", None)
    if tie is not None:  # on the whole config (which transformers reads), or inside text_config (which it ignores)
        (config if draw(st.booleans()) else text)["tie_word_embeddings"] = tie
    return config


runs = runs_on_text("Qwen3VLForConditionalGeneration")


def shrunk(checkpoint: str) -> dict:
    """A released config with one layer of each stack (the sub-configs are replaced whole: shrink inside them)."""
    config = configs.load(checkpoint)
    return {"text_config": config["text_config"] | {"num_hidden_layers": 1},
            "vision_config": config["vision_config"] | {"depth": 1}}


SMALL_TOWER = {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 4, "patch_size": 4,
               "out_hidden_size": 64, "num_position_embeddings": 16, "deepstack_visual_indexes": [0, 1]}
# A head of 8: rotary sections of 4 (the released [24, 20, 20] are of 128).
TEXT = {"model_type": "qwen3_vl_text", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 8,
        "rope_parameters": {"rope_type": "default", "mrope_section": [2, 1, 1]}}
SMALL = {"model_type": "qwen3_vl", "text_config": TEXT, "vision_config": SMALL_TOWER}
SPEC = Spec(
    family="qwen3_vl",
    small=SMALL,
    real=[(name, shrunk(name)) for name in ("qwen3-vl-2b-instruct", "qwen3-vl-8b-instruct")],
    # Qwen3VLTextConfig's and Qwen3VLVisionConfig's defaults: one layer of each stack.
    defaults={"text_config": {"num_hidden_layers": 1}, "vision_config": {"depth": 1}},
    layouts={"tied": {"tie_word_embeddings": True},
             # ignored: transformers reads the whole config's tie_word_embeddings alone
             "text-tied": {"text_config": TEXT | {"tie_word_embeddings": True}},
             "bias": {"text_config": TEXT | {"attention_bias": True}},
             "no-deepstack": {"vision_config": SMALL_TOWER | {"deepstack_visual_indexes": []}},
             # the released configs' vision model_type, which Qwen3VLConfig renames
             "old-vision": {"vision_config": SMALL_TOWER | {"model_type": "qwen3_vl"}}},
    refused=(
        ({"text_config": TEXT | {"num_key_value_heads": 3}}, "num_key_value_heads"),
        ({"vision_config": SMALL_TOWER | {"patch_size": [4, 4]}}, "patch_size must be an integer"),
        ({"vision_config": SMALL_TOWER | {"num_heads": 64}}, "a head size of 0"),
        ({"vision_config": SMALL_TOWER | {"deepstack_visual_indexes": 3}}, "deepstack_visual_indexes"),
    ),
    # DeepStack blocks past the last (built, never reached); sub-configs that name another model_type (transformers
    # builds Qwen3-VL's own classes from them all the same).
    accepted=({"vision_config": SMALL_TOWER | {"deepstack_visual_indexes": [0, 5, 9]}},
              {"text_config": TEXT | {"model_type": "qwen3"}},
              {"vision_config": SMALL_TOWER | {"model_type": "siglip_vision_model"}}),
    configs=configs_(),
    examples=20,
    runs=runs,
    data_dependent=CLASSES,
    no_forward=IMAGE,
)
