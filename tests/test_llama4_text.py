"""Llama 4's language model: the model cards' figures and the active count's convention.

Expected values come from outside the project: the model cards [cite: hub-meta-llama4, “17B (Activated) 109B
(Total)”, “17B (Activated) 400B (Total)”], and transformers (tests/specs/llama4_text.py for every class and layout;
here the active count, measured by running one token, and the vision tower the cards' totals include).
"""

from __future__ import annotations

import pytest

from derivations import configs, registry
from derivations.families import llama4_text
from derivations.symbols import L, L_f, X, X_a

SCOUT, MAVERICK = "llama-4-scout-17b-16e-text", "llama-4-maverick-17b-128e-text"
# Llama-4-Scout-17B-16E's vision_config as published (Maverick's is the same): what the cards' totals add.
VISION = {"hidden_size": 1408, "image_size": 336, "intermediate_size": 5632, "num_attention_heads": 16,
          "num_hidden_layers": 34, "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096,
          "projector_output_dim": 4096, "vision_output_dim": 4096, "multi_modal_projector_bias": False}


@pytest.mark.parametrize("name", [SCOUT, MAVERICK])
def test_the_cards_17b_activated_is_the_language_models_active_count(name: str) -> None:
    # "17B (Activated)" for both: with the input embedding 17.17 and 17.18 billion; without it 16.14 and 16.15
    # would print 16B.
    values = registry.checkpoint(name).values
    assert round(llama4_text.ACTIVE["Llama4ForCausalLM"].count(values) / 10**9) == 17
    assert round(llama4_text.active_without_embedding.count(values) / 10**9) == 16


def test_the_layers_as_the_cards_describe_them():
    # Scout: 16 experts, every layer with experts; Maverick: 128 experts, every other layer (the blog post:
    # "alternating dense and mixture-of-experts (MoE) layers"); one routed expert a token in both.
    scout, maverick = registry.checkpoint(SCOUT).values, registry.checkpoint(MAVERICK).values
    assert (scout[X], scout[L_f]) == (16, 0)
    assert (maverick[X], maverick[L_f], maverick[L]) == (128, 24, 48)
    assert scout[X_a] == maverick[X_a] == 1


def test_the_cards_totals_include_the_vision_tower():
    # "109B (Total)" is the whole checkpoint's: transformers' Llama4ForConditionalGeneration on Scout's published
    # config, which holds this language model and a vision tower with its projector. Its total rounds to 109B; the
    # language model alone (107.8B) would not.
    reference = pytest.importorskip("reference")
    torch, transformers = reference.torch, reference.transformers
    text = {k: v for k, v in configs.load(SCOUT).items() if k != "architectures"}
    config = transformers.Llama4Config(text_config=text, vision_config=VISION)
    with torch.device("meta"):
        model = transformers.Llama4ForConditionalGeneration(config)
    whole = sum(p.numel() for p in model.parameters())
    language = registry.checkpoint(SCOUT).total
    assert round(whole / 10**9) == 109 and round(language / 10**9) == 108
    vision = sum(p.numel() for n, p in model.named_parameters() if "vision_model" in n or "multi_modal_projector" in n)
    assert whole - vision == language


def test_the_active_count_is_what_one_token_reads() -> None:
    # One token through a small model with real weights: the parameters whose gradient is not zero are the ones it
    # used. transformers runs every expert on every token, scaled by the router's score: 0 for the experts the
    # router did not pick, whose gradients stay 0. The input embedding is counted whole, as the convention does.
    reference = pytest.importorskip("reference")
    torch, transformers = reference.torch, reference.transformers
    from specs.llama4_text import SIZES

    config = SIZES | {"moe_layers": [0, 2]}
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
    model(torch.tensor([[7]])).logits.sum().backward()
    used = 0
    for name, p in model.named_parameters():
        if name.endswith("experts.gate_up_proj") or name.endswith("experts.down_proj"):
            used += int((p.grad.flatten(1) != 0).any(dim=1).sum()) * p[0].numel()
        else:
            used += p.numel()
    assert used == llama4_text.ACTIVE["Llama4ForCausalLM"].count(registry.resolve(config).values)
