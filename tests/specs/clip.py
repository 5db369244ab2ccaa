"""CLIP: what the reference harness checks (tests/test_reference_families.py)."""

from collections.abc import Mapping

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_labels


@st.composite
def tower(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 16))
    config = {"hidden_size": heads * head_size, "num_attention_heads": heads,
              "num_hidden_layers": draw(st.integers(1, 3)), "intermediate_size": draw(st.integers(1, 256))}
    if draw(st.booleans()):
        del config["intermediate_size"]  # the tower's default
    return config


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text, vision = draw(tower()), draw(tower())
    patch = draw(st.integers(1, 16))
    text |= {"vocab_size": draw(st.integers(4, 5000)), "max_position_embeddings": draw(st.integers(2, 100))}
    vision |= {"patch_size": patch, "image_size": draw(st.integers(patch, 5 * patch + 3)),
               "num_channels": draw(st.integers(1, 4))}
    projection = draw(st.integers(1, 128))
    config = {"model_type": "clip", "text_config": text, "vision_config": vision, "projection_dim": projection}
    # The one-tower classes with a projection read their tower's: the same (as every released config has it), or
    # left to the class's default where the pair's is that default.
    for sub in (text, vision):
        if projection != 512 or draw(st.booleans()):
            sub["projection_dim"] = projection
    maybe_labels(draw, config)
    return config


def runs_pair(model_class: str):
    """Whether transformers builds the pair ``model_class`` from a config (on the CPU) and runs it on three tokens
    and one image: CLIP's, and SigLIP's (tests/specs/siglip.py)."""
    def runs(config: Mapping) -> bool:
        import torch
        import transformers

        try:
            model = getattr(transformers, model_class)(transformers.AutoConfig.for_model(**config))
            vision = model.config.vision_config
            with torch.no_grad():
                model(input_ids=torch.tensor([[0, 1, 2]]) % model.config.text_config.vocab_size,
                      pixel_values=torch.zeros(1, vision.num_channels, vision.image_size, vision.image_size))
        except Exception:  # the config class, the constructor or the forward pass refuses it
            return False
        return True
    return runs


runs = runs_pair("CLIPModel")


SMALL_TOWER = {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4, "intermediate_size": 64}
SPEC = Spec(
    family="clip",
    small={"model_type": "clip", "projection_dim": 16,
           "text_config": SMALL_TOWER | {"vocab_size": 100, "projection_dim": 16},
           "vision_config": SMALL_TOWER | {"image_size": 32, "patch_size": 8, "projection_dim": 16}},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be CLIPConfig's (one layer a tower, to build fast).
    defaults={"text_config": {"num_hidden_layers": 1}, "vision_config": {"num_hidden_layers": 1}},
    refused=(
        # The config classes refuse a width their heads do not divide.
        ({"vision_config": SMALL_TOWER | {"hidden_size": 30, "image_size": 32, "patch_size": 8}}, "not a multiple"),
        ({"text_config": SMALL_TOWER | {"hidden_size": 30}}, "not a multiple"),
        # A patch larger than the image: no patch, and the convolution refuses an input smaller than its kernel.
        ({"vision_config": SMALL_TOWER | {"image_size": 8, "patch_size": 16}}, "no patch"),
        # CLIPVisionEmbeddings squares image_size // patch_size: a list fails there.
        ({"vision_config": SMALL_TOWER | {"image_size": [32, 32], "patch_size": 8}}, "one integer"),
    ),
    accepted=({"vision_config": SMALL_TOWER | {"image_size": 35, "patch_size": 8, "projection_dim": 16}},),
    configs=configs(),
    examples=20,
    runs=runs,
)
