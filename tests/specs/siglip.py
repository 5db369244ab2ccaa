"""SigLIP: what the reference harness checks (tests/test_reference_families.py)."""


from hypothesis import strategies as st

from spec import Spec
from specs.clip import runs_pair, tower
from strategies import maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text, vision = draw(tower()), draw(tower())
    patch = draw(st.integers(1, 16))
    text |= {"vocab_size": draw(st.integers(4, 5000)), "max_position_embeddings": draw(st.integers(2, 100))}
    vision |= {"patch_size": patch, "image_size": draw(st.integers(patch, 5 * patch + 3)),
               "num_channels": draw(st.integers(1, 4))}
    # SiglipModel compares the text head's output with the vision tower's pooled state: as wide, as released
    # configs have them (the head's default width, the text tower's, is left only where the towers are as wide).
    if text["hidden_size"] != vision["hidden_size"] or draw(st.booleans()):
        text["projection_size"] = vision["hidden_size"]
    if draw(st.booleans()):
        vision["vision_use_head"] = draw(st.booleans())
    config = {"model_type": "siglip", "text_config": text, "vision_config": vision}
    maybe_labels(draw, config)
    return config


runs = runs_pair("SiglipModel")


SMALL_TOWER = {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4, "intermediate_size": 64}
SPEC = Spec(
    family="siglip",
    small={"model_type": "siglip", "text_config": SMALL_TOWER | {"vocab_size": 100},
           "vision_config": SMALL_TOWER | {"image_size": 32, "patch_size": 8}},
    every_class_on_checkpoints=True,
    defaults={"text_config": {"num_hidden_layers": 1}, "vision_config": {"num_hidden_layers": 1}},
    layouts={"no_head": {"vision_config": SMALL_TOWER | {"image_size": 32, "patch_size": 8,
                                                          "vision_use_head": False}}},
    refused=(
        ({"vision_config": SMALL_TOWER | {"hidden_size": 30, "image_size": 32, "patch_size": 8}}, "not a multiple"),
        ({"vision_config": SMALL_TOWER | {"image_size": 8, "patch_size": 16}}, "no patch"),
        ({"vision_config": SMALL_TOWER | {"image_size": [32, 32], "patch_size": 8}}, "one integer"),
        # The text head's width against the image's: SiglipModel's product of the two fails.
        ({"text_config": SMALL_TOWER | {"vocab_size": 100, "projection_size": 16}}, "compares the two"),
    ),
    accepted=({"vision_config": SMALL_TOWER | {"image_size": 35, "patch_size": 8}},),
    configs=configs(),
    examples=20,
    runs=runs,
)
