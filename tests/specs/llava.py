"""LLaVA: what the reference harness checks (tests/test_reference_families.py). Its language model's random configs
are LLaMA's (tests/specs/llama.py), its tower's CLIP's (tests/specs/clip.py's tower)."""

from hypothesis import strategies as st

from spec import Spec
from specs.clip import tower
from specs.gemma3 import runs_with_image
from specs.llama import configs as text_configs
from strategies import maybe_flags

CLASSES = ("LlavaForConditionalGeneration", "LlavaModel")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text = draw(text_configs())
    for field in ("num_labels", "token_classification_bias"):
        text.pop(field, None)
    text["vocab_size"] = max(text["vocab_size"], 2)
    vision = draw(tower()) | {"model_type": "clip_vision_model"}
    patch = draw(st.integers(1, 8))
    vision |= {"patch_size": patch, "image_size": draw(st.integers(patch, 4 * patch + 3)),
               "num_channels": draw(st.integers(1, 4))}
    # LlavaModel looks the placeholder id up in the token table before it puts the image's states in its place.
    config = {"model_type": "llava", "text_config": text, "vision_config": vision,
              "image_token_index": text["vocab_size"] - 1}
    layers = vision["num_hidden_layers"]
    if draw(st.booleans()):
        config["vision_feature_layer"] = draw(st.integers(-(layers + 1), layers))
    if draw(st.booleans()):
        config["vision_feature_select_strategy"] = draw(st.sampled_from(["default", "full"]))
    maybe_flags(draw, config, "multimodal_projector_bias", "tie_word_embeddings")
    return config


# LLaVA: a patch a token, and the class token's with "full".
runs = runs_with_image("LlavaForConditionalGeneration", lambda config: (
    config.vision_config.image_size // config.vision_config.patch_size) ** 2
    + (config.vision_feature_select_strategy == "full"))


TEXT = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 8}
SMALL_TOWER = {"model_type": "clip_vision_model", "num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4,
               "intermediate_size": 64, "image_size": 32, "patch_size": 8}
SMALL = {"model_type": "llava", "text_config": TEXT, "vision_config": SMALL_TOWER, "image_token_index": 999}
SPEC = Spec(
    family="llava",
    small=SMALL,
    every_class_on_checkpoints=True,
    defaults={"text_config": {"model_type": "llama", "num_hidden_layers": 1},
              "vision_config": {"model_type": "clip_vision_model", "num_hidden_layers": 1}},
    layouts={"tied": {"tie_word_embeddings": True},
             "text-tied": {"text_config": TEXT | {"tie_word_embeddings": True}},
             "no-projector-bias": {"multimodal_projector_bias": False},
             "bias": {"text_config": TEXT | {"attention_bias": True, "mlp_bias": True}},
             "full": {"vision_feature_select_strategy": "full", "vision_feature_layer": 0}},
    refused=(
        ({"vision_feature_layer": 3}, "not one of the vision tower's 3 hidden states"),
        ({"vision_feature_layer": -4}, "not one of the vision tower's 3 hidden states"),
        ({"vision_feature_select_strategy": "cls"}, "must be \"default\" or \"full\""),
        ({"vision_config": SMALL_TOWER | {"hidden_size": 30}}, "not a multiple"),
        ({"text_config": TEXT | {"hidden_size": 68}}, "not a multiple of num_attention_heads"),
    ),
    accepted=({"vision_feature_layer": 2}, {"vision_feature_layer": -3}, {"vision_feature_select_strategy": "full"},
              {"projector_hidden_act": "relu"}),
    configs=configs(),
    examples=20,
    runs=runs,
    data_dependent=CLASSES,
)
