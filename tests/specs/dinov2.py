"""DINOv2: what the reference harness checks (tests/test_reference_families.py)."""


from hypothesis import strategies as st

from spec import Spec
from specs.vit import runs_image
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads, head_size = draw(st.integers(1, 8)), draw(st.integers(1, 32))
    patch = draw(st.integers(1, 16))
    config = {
        "model_type": "dinov2",
        "hidden_size": heads * head_size,
        "num_attention_heads": heads,
        "num_hidden_layers": draw(st.integers(1, 3)),
        "mlp_ratio": draw(st.integers(1, 6)),
        "patch_size": draw(st.sampled_from([patch, [patch, patch]])),
        "num_channels": draw(st.integers(1, 4)),
    }
    # A square image, or one of two sides whose patches make a square grid's count (the position table is resized
    # as a square when the sides differ): rows x columns = k^2, an edge no patch fills dropped.
    if draw(st.booleans()):
        config["image_size"] = draw(st.integers(patch, 4 * patch + 3))
    else:
        rows = draw(st.sampled_from([1, 2, 4]))
        columns = {1: 1, 2: 8, 4: 1}[rows] if draw(st.booleans()) else rows
        config["image_size"] = [rows * patch + draw(st.integers(0, patch - 1)),
                                columns * patch + draw(st.integers(0, patch - 1))]
    maybe_flags(draw, config, "qkv_bias", "use_swiglu_ffn", "use_mask_token")
    maybe_labels(draw, config)
    if draw(st.booleans()):
        # Heads of another width than hidden_size // num_attention_heads (Dinov2Attention reads head_dim).
        config["head_dim"] = draw(st.integers(1, 32))
    elif draw(st.booleans()):
        # Heads that cover less than the width (each the floor of hidden / heads): built, and run.
        config["hidden_size"] += draw(st.integers(0, heads - 1))
    for field in ("mlp_ratio", "num_channels"):
        if draw(st.booleans()):
            del config[field]  # Dinov2Config's default
    return config


runs = runs_image("Dinov2Model")


SPEC = Spec(
    family="dinov2",
    small={"model_type": "dinov2", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "mlp_ratio": 2, "image_size": 32, "patch_size": 8},
    every_class_on_checkpoints=True,
    # A config.json with no sizes: the derivation's defaults must be Dinov2Config's.
    defaults={"num_hidden_layers": 1},
    layouts={"swiglu": {"use_swiglu_ffn": True}, "no_mask_token": {"use_mask_token": False},
             "no_qkv_bias": {"qkv_bias": False},
             "all": {"use_swiglu_ffn": True, "use_mask_token": False, "qkv_bias": False}},
    refused=(
        # A patch larger than the image: no patch, and the convolution refuses an input smaller than its kernel.
        ({"patch_size": 40}, "more than the image"),
        # More heads than the width: a head of no width, which the attention's scale cannot be raised to -1/2.
        ({"num_attention_heads": 65}, "more than hidden_size"),
        # Sides that differ and 4 x 3 patches: the position table is resized as a square of sqrt(12), which fails.
        ({"image_size": [32, 24]}, "not a square number"),
        # mlp_ratio is an int in the strict config class: a float is refused there.
        ({"mlp_ratio": 2.5}, "must be an integer"),
        ({"mlp_ratio": 4.0}, "must be an integer"),
    ),
    accepted=({"image_size": [64, 16]}, {"image_size": [30, 28], "patch_size": 14}, {"head_dim": 3},
              {"hidden_size": 66}, {"mlp_ratio": 3, "use_swiglu_ffn": True}),
    configs=configs(),
    examples=30,
    runs=runs,
)
