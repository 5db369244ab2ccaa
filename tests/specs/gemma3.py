"""Gemma 3 with its vision encoder: what the reference harness checks (tests/test_reference_families.py). Its
language model's sizes and random configs are Gemma's (tests/specs/gemma.py), its tower's SigLIP's
(tests/specs/clip.py's tower)."""

from collections.abc import Callable, Mapping

from hypothesis import strategies as st

from spec import Spec
from specs.clip import tower
from specs.gemma import SIZES, configs as text_configs
from strategies import maybe_labels

CLASSES = ("Gemma3ForConditionalGeneration", "Gemma3Model", "Gemma3ForSequenceClassification")


@st.composite
def configs(draw: st.DrawFn) -> dict:
    text = draw(text_configs("gemma3_text"))
    text.pop("num_labels", None)
    vision = draw(tower())
    # A square of n x n patches, pooled to a square whose side divides n (as every release: 64 to 16).
    side, patch = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    per_side = draw(st.sampled_from([d for d in range(1, side + 1) if side % d == 0]))
    vision |= {"patch_size": patch, "image_size": side * patch + draw(st.integers(0, patch - 1)),
               "num_channels": draw(st.integers(1, 4)), "vision_use_head": draw(st.booleans())}
    config = {"model_type": "gemma3", "text_config": text, "vision_config": vision,
              "mm_tokens_per_image": per_side**2}
    # The whole model's head is tied as the config says, the language model's own classes' as text_config does:
    # derived where the two agree (as in every release).
    if "tie_word_embeddings" in text or draw(st.booleans()):
        config["tie_word_embeddings"] = text.setdefault("tie_word_embeddings", True)
    maybe_labels(draw, config)
    if "num_labels" in config:  # the language model's classifier reads text_config's: the same, as derived
        text["num_labels"] = config["num_labels"]
    return config


def runs_with_image(model_class: str, tokens: Callable) -> Callable[[Mapping], bool]:
    """Whether transformers builds ``model_class`` from a config (on the CPU) and runs it on one image of the config's
    size, its ``tokens(config)`` placeholder tokens first, and a text token: Gemma 3's, LLaVA's and Llama 4's."""
    def runs(config: Mapping) -> bool:
        import torch
        import transformers

        try:
            model = getattr(transformers, model_class)(transformers.AutoConfig.for_model(**config))
            vision = model.config.vision_config
            ids = torch.tensor([[model.config.image_token_id] * tokens(model.config) + [0]])
            with torch.no_grad():
                model(input_ids=ids,
                      pixel_values=torch.zeros(1, vision.num_channels, vision.image_size, vision.image_size))
        except Exception:  # the config class, the constructor or the forward pass refuses it
            return False
        return True
    return runs


# Gemma 3: the image is mm_tokens_per_image tokens.
runs = runs_with_image("Gemma3ForConditionalGeneration", lambda config: config.mm_tokens_per_image)


SMALL_TOWER = {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4, "intermediate_size": 64,
               "image_size": 32, "patch_size": 8, "vision_use_head": False}
SMALL = {"model_type": "gemma3", "text_config": SIZES | {"model_type": "gemma3_text"}, "vision_config": SMALL_TOWER,
         "mm_tokens_per_image": 4}
SPEC = Spec(
    family="gemma3",
    small=SMALL,
    every_class_on_checkpoints=True,
    # transformers' own defaults build a model that cannot run (SigLIP's 14 x 14 patches do not pool to 256 tokens:
    # the reader refuses them); an image of 16 x 16 patches does.
    defaults={"text_config": {"model_type": "gemma3_text", "num_hidden_layers": 1},
              "vision_config": {"num_hidden_layers": 1, "image_size": 256}},
    layouts={"head": {"vision_config": SMALL_TOWER | {"vision_use_head": True}},
             "untied": {"tie_word_embeddings": False, "text_config": SMALL["text_config"] | {"tie_word_embeddings": False}},
             "bias": {"text_config": SMALL["text_config"] | {"attention_bias": True}}},
    refused=(
        ({"mm_tokens_per_image": 5}, "not what the projector pools"),
        ({"mm_tokens_per_image": 25}, "not what the projector pools"),
        ({"vision_config": SMALL_TOWER | {"hidden_size": 30}}, "not a multiple"),
        ({"text_config": SIZES | {"hidden_size": 68}}, "not a multiple of num_attention_heads"),
        ({"vision_config": SMALL_TOWER | {"model_type": "clip_vision_model"}}, "not derived"),
    ),
    accepted=({"mm_tokens_per_image": 1}, {"mm_tokens_per_image": 16}),
    configs=configs(),
    examples=20,
    runs=runs,
    data_dependent=CLASSES,
)
