"""What only LLaMA has, against transformers (the checks every family shares are tests/specs/llama.py's): the tied
head of Llama 3.2 is the embedding table itself, and the page counts it so; the modules bitsandbytes quantizes."""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import llama
from derivations.site import references


def test_tying_is_real() -> None:
    model = reference.build("LlamaForCausalLM", configs.load("llama-3.2-1b") | {"num_hidden_layers": 1})
    assert model.lm_head.weight is model.model.embed_tokens.weight


def test_quantized_modules_are_the_seven_projections() -> None:
    # [cite: bitsandbytes-834]: transformers quantizes every nn.Linear but the ones get_keys_to_not_convert names
    # (the output embedding); the miscount halves exactly those.
    from transformers.quantizers.base import get_keys_to_not_convert

    config = configs.load("llama-2-7b") | {"num_hidden_layers": 2}
    model = reference.build("LlamaForCausalLM", config)
    skipped = set(get_keys_to_not_convert(model))
    quantized = sum(m.weight.numel() for name, m in model.named_modules()
                    if isinstance(m, reference.torch.nn.Linear) and name not in skipped)
    assert skipped == {"lm_head"}
    assert quantized == llama.quantized_weights.subs(registry.resolve(config).values)


@pytest.mark.parametrize("checkpoint", llama.TIED_CHECKPOINTS)
def test_the_page_counts_a_class_as_its_checkpoint_builds_it(checkpoint: str) -> None:
    # `num:llama.LlamaForCausalLM @ llama-3.2-1b` (and the checkpoint table) must be the tied model that
    # config builds in transformers, not the plain (untied) layout evaluated on its sizes.
    model = reference.build("LlamaForCausalLM", configs.load(checkpoint))
    shown = references.number_text(f"llama.LlamaForCausalLM @ {checkpoint}")
    assert shown == f"{reference.total(model):,}"
