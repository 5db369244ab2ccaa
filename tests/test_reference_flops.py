"""The derived FLOPs against what torch counts when transformers runs the model.

``torch.utils.flop_counter.FlopCounterMode`` counts the matrix products that execute (2 FLOPs a
multiply-add); the expected numbers here are its counts and nanoGPT's printed figure, never the
derivation's. reference.check compares the FLOPs of a sample of every family's checks (real checkpoints,
defaults, layouts, random configs); this module makes sure that every class of every family runs, on its
example checkpoint, and adds what a sample cannot: the whole depth, the backward pass, and the mixtures
of experts at their real layouts.
"""

from __future__ import annotations

import pytest

import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, flops, registry
from derivations.components import evaluate
from derivations.symbols import s, s_d

torch = reference.torch
shallow, FEW_EXPERTS = reference.shallow, reference.FEW_EXPERTS
FAMILIES = {name: module for name, module in registry.families().items() if name != "gpt3"}

def classes(module) -> list[str]:
    # Not the classes whose FLOPs are refused (tests/spec.py: no_forward).
    return [name for name in module.classes
            if (name not in reference.VARIANTS or name == "BertModelWithoutPooler")
            and name not in reference.spec_of(module.model_type).no_forward]


# In `make test`, one in two of each family's classes, its first included (profiles.spread).
CASES = profiles.spread([(name, architecture) for name, module in FAMILIES.items() for architecture in classes(module)], 2)


@pytest.mark.parametrize("family, architecture", CASES, ids=[f"{f}-{a}" for f, a in CASES])
def test_every_class_on_its_example(family: str, architecture: str) -> None:
    # One layer of each stack of the example checkpoint (two for a mixture: a dense one and one with experts),
    # every other size as published: the check must run, not be skipped.
    config = shallow(configs.load(FAMILIES[family].example), 2 if reference.mixture(FAMILIES[family].model_type) else 1)
    if reference.mixture(config["model_type"]):
        config |= FEW_EXPERTS  # the released layouts run in test_mixtures_at_their_layouts
    if architecture in reference.spec_of(config["model_type"]).data_dependent and not reference.composite(config):
        config["vocab_size"] = 512  # it runs on CPU: a small table (a composite's shallow narrows its language model)
        if isinstance(config.get("pad_token_id"), int) and config["pad_token_id"] >= 512:
            config["pad_token_id"] = 0  # ... which must hold the padding row
    assert reference.check_flops(architecture, config), f"{architecture} did not run"


# The families whose main class runs on the meta device (not a mixture's routing, not a composite's placing of the
# image's tokens by the ids' values, which run on CPU, narrowed, above).
DENSE = [name for name, module in FAMILIES.items() if not reference.mixture(module.model_type)
         and module.main not in reference.spec_of(module.model_type).data_dependent]
# In `make test`, one dense family in four at its whole depth (each meets every class at one layer above; its
# rows are each layer's times L, which the whole depth of the others checks).
WHOLE = profiles.spread(DENSE, 4, group=lambda _: "dense")


@pytest.mark.parametrize("family", WHOLE)
def test_whole_depth(family: str) -> None:
    # The family's main class on its example checkpoint, every layer, on the meta device.
    module = FAMILIES[family]
    architecture = module.main
    assert reference.check_flops(architecture, configs.load(module.example)), f"{architecture} did not run"


def test_nanogpt_forward() -> None:
    # nanoGPT's transformer_sizing notebook prints 291,648,307,200 for GPT-2 small's forward over 1,024 tokens.
    config = configs.load("gpt2")
    resolved = registry.resolve(config, "GPT2LMHeadModel")
    derived = evaluate(flops.forward(resolved.part), {**resolved.values, s: 1024})
    measured = reference.forward_flops(reference.build("GPT2LMHeadModel", config), "GPT2LMHeadModel", 1024)
    assert derived == measured == 291_648_307_200


@pytest.mark.parametrize("checkpoint, narrow", [
    ("gpt2", {"n_embd": 96, "n_head": 4}),
    ("llama-2-7b", {"hidden_size": 128, "intermediate_size": 344, "num_attention_heads": 8, "num_key_value_heads": 2}),
    ("t5-small", {"d_model": 64, "d_ff": 128, "d_kv": 16, "num_heads": 4}),
], ids=["gpt2", "llama", "t5"])
def test_backward_is_twice_the_forward(checkpoint: str, narrow: dict) -> None:
    # A training step on real (random) weights: FlopCounterMode sees the forward and the backward; the backward
    # of every product is two products of its size (the gradients of both operands), so the step is three forwards.
    config = shallow(configs.load(checkpoint), 1) | {"vocab_size": 512} | narrow
    architecture = registry.resolve(config).part.name
    model = reference.build(architecture, config, "cpu")
    tokens = 9
    ids = torch.randint(0, 512, (1, tokens))
    inputs = {"input_ids": ids, "labels": ids}
    if model.config.is_encoder_decoder:
        inputs["decoder_input_ids"] = ids
    else:
        inputs["attention_mask"] = torch.ones_like(ids)
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        model(**inputs, use_cache=False).loss.backward()
    resolved = registry.resolve(config, architecture)
    step = flops.training(resolved.part).step
    assert counter.get_total_flops() == evaluate(step, {**resolved.values, s: tokens, s_d: tokens})


MIXTURES = [(name, checkpoint) for name, module in FAMILIES.items()
            if reference.mixture(module.model_type) for checkpoint in module.checkpoints]


@pytest.mark.parametrize("family, checkpoint", MIXTURES, ids=[c for _, c in MIXTURES])
def test_mixtures_at_their_layouts(family: str, checkpoint: str) -> None:
    # Each released mixture with its experts, experts per token, groups and shared experts as published, its
    # widths narrowed and its depth cut so that it runs on CPU: the routed FLOPs do not depend on the routing.
    config = shallow(configs.load(checkpoint), 2)
    architecture = FAMILIES[family].main
    assert reference.check_flops(architecture, config), f"{checkpoint} did not run"


# ---------------------------------------------------------------------------------------------
# One generated token after T cached ones (flops --json's "decode")
# ---------------------------------------------------------------------------------------------

def derived_decode(config: dict, architecture: str, cached: int, source: int | None = None, batch: int = 1) -> int:
    """What the command answers, through answers.flops (the compiled rows, the reader's windows per layer)."""
    from derivations import answers

    seq, target = (cached, None) if source is None else (source, cached)
    step = answers.flops(config, architecture, seq, target, batch)[0]["decode"]
    assert "refused" not in step, step
    return step["flops"]


# (checkpoint, what changes, T cached, encoder tokens): two layers of each stack, on the meta device. Windows
# shorter than T: Mistral's every layer; Gemma 2's even layers (the odd ones attend to all); Qwen2's layers from
# max_window_layers on; gpt-oss alternating too. Batch 2 on one of them.
DECODE = [
    ("gpt2", {}, 100, None, 1),
    ("llama-2-7b", {}, 1000, None, 2),
    ("mistral-7b", {"sliding_window": 64}, 1000, None, 1),
    ("mistral-7b", {"sliding_window": 64}, 63, None, 1),
    ("gemma-2-2b", {"sliding_window": 32}, 300, None, 1),
    ("gemma-3-1b", {"sliding_window": 32, "sliding_window_pattern": 2}, 300, None, 1),
    ("qwen2-7b", {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1}, 40, None, 1),
    ("pythia-70m", {}, 7, None, 1),
    ("phi-3-mini-4k", {}, 50, None, 1),
    ("t5-small", {}, 20, 50, 1),
    # Whisper: its encoder ran once on the window's frames; the new token reads them in cross-attention alone.
    ("whisper-tiny", {}, 20, None, 1),
]


@pytest.mark.parametrize("checkpoint, change, cached, source, batch", DECODE,
                         ids=[f"{c}-T{t}" for c, _, t, _, _ in DECODE])
def test_decode_is_one_token_with_a_cache(checkpoint, change, cached, source, batch) -> None:
    config = shallow(configs.load(checkpoint), 2) | change
    architecture = registry.resolve(config).part.name
    measured = reference.decode_flops(reference.build(architecture, config), cached, source, batch)
    assert derived_decode(config, architecture, cached, source, batch) == measured


@pytest.mark.parametrize("checkpoint, change", [
    ("mixtral-8x7b", {}), ("qwen1.5-moe-a2.7b", {}), ("deepseek-v2-lite", {}), ("deepseek-v3", {}),
    ("gpt-oss-20b", {"sliding_window": 4}),
], ids=lambda value: value if isinstance(value, str) else "")
def test_decode_of_a_mixture_on_cpu(checkpoint: str, change: dict) -> None:
    # Narrowed as the mixtures above: each new token runs the experts it is routed to, X_a of them. DeepSeek's
    # latent attention caches the latent and expands all of it again at each token; gpt-oss's even layers
    # attend to a window shorter than T.
    config = shallow(configs.load(checkpoint), 2) | FEW_EXPERTS | change
    architecture = FAMILIES[registry.of_model_type(config["model_type"]).name].main
    torch.manual_seed(0)
    model = reference.build(architecture, config, "cpu")
    assert derived_decode(config, architecture, 6) == reference.decode_flops(model, 6)


@pytest.mark.parametrize("seed", range(6))
def test_decode_on_random_configs(seed: int) -> None:
    # Small Mistral configs (1 to 3 layers, grouped-query heads, a window or none) at a random T on the meta
    # device: the window below, at and above T.
    import random

    draw = random.Random(seed)
    heads = draw.choice([2, 4, 8])
    config = {"model_type": "mistral", "architectures": ["MistralForCausalLM"], "num_hidden_layers": draw.randint(1, 3),
              "hidden_size": heads * draw.choice([8, 16]), "num_attention_heads": heads,
              "num_key_value_heads": draw.choice([k for k in (1, 2, heads) if heads % k == 0]),
              "intermediate_size": draw.randint(8, 100), "vocab_size": draw.randint(16, 300),
              "sliding_window": draw.choice([None, 2, 8, 33, 500])}
    cached = draw.randint(1, 200)
    model = reference.build("MistralForCausalLM", config)
    assert derived_decode(config, "MistralForCausalLM", cached) == reference.decode_flops(model, cached)
