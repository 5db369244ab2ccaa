"""ViT: what the reference harness checks (tests/test_reference_families.py)."""

from collections.abc import Mapping

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    patch = draw(st.integers(1, 16))
    config = {
        "model_type": "vit",
        "hidden_size": heads * head_size,
        "num_attention_heads": heads,
        "num_hidden_layers": draw(st.integers(1, 3)),
        "intermediate_size": draw(st.integers(1, 512)),
        "patch_size": draw(st.sampled_from([patch, [patch, patch]])),
        "num_channels": draw(st.integers(1, 4)),
        "encoder_stride": draw(st.integers(1, 8)),
    }
    # An image of one side or of two (height, width), each at least a patch; an edge that no patch fills is dropped.
    height, width = (draw(st.integers(patch, 4 * patch + 3)) for _ in range(2))
    config["image_size"] = draw(st.sampled_from([height, [height, width]]))
    maybe_flags(draw, config, "qkv_bias")
    maybe_labels(draw, config)
    if draw(st.booleans()):
        config["pooler_output_size"] = draw(st.integers(1, 64))
    if draw(st.booleans()):
        # Heads of another width than hidden_size // num_attention_heads (ViTAttention reads head_dim).
        config["head_dim"] = draw(st.integers(1, 32))
    elif draw(st.booleans()):
        # Heads that cover less than the width (each the floor of hidden / heads): built, and run.
        config["hidden_size"] += draw(st.integers(0, heads - 1))
    for field in ("intermediate_size", "num_channels", "encoder_stride"):
        if draw(st.booleans()):
            del config[field]  # ViTConfig's default
    return config


def runs_image(model_class: str):
    """Whether transformers builds ``model_class`` from a config (on the CPU) and runs it on one image of its size:
    ViT's, and DINOv2's (tests/specs/dinov2.py)."""
    def runs(config: Mapping) -> bool:
        import torch
        import transformers

        try:
            model = getattr(transformers, model_class)(transformers.AutoConfig.for_model(**config))
            size = model.config.image_size
            height, width = size if isinstance(size, (list, tuple)) else (size, size)
            with torch.no_grad():
                model(torch.zeros(1, model.config.num_channels, height, width))
        except Exception:  # the config class, the constructor or the forward pass refuses it
            return False
        return True
    return runs


runs = runs_image("ViTModel")


SPEC = Spec(
    family="vit",
    small={"model_type": "vit", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "intermediate_size": 128, "image_size": 32, "patch_size": 8},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be ViTConfig's.
    defaults={"num_hidden_layers": 1},
    layouts={"no_qkv_bias": {"qkv_bias": False}},
    refused=(
        # A patch larger than the image: no patch, and the convolution refuses an input smaller than its kernel.
        ({"patch_size": 40}, "more than the image"),
        # More heads than the width: a head of no width, which the forward cannot view.
        ({"num_attention_heads": 65}, "more than hidden_size"),
    ),
    accepted=({"image_size": [32, 24]}, {"head_dim": 3}, {"hidden_size": 66}, {"pooler_output_size": 5}),
    configs=configs(),
    examples=30,
    runs=runs,
)
