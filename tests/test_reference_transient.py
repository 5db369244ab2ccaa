"""The forward's transient peak at inference, derived (derivations.transient, through the command line's compiled
answer ``memory --json``), against the peak of live tensor bytes torch measures while transformers runs the same
forward (tests/live_bytes.py): eval mode, eager attention, on the meta device, in bf16 and fp32, batch 1 and more;
the bare forward (use_cache=False, every token's logits) and generate's forward on the prompt (use_cache=True,
logits_to_keep=1, its cache apart). The expected numbers are torch's, never the derivation's.

The families whose forward is derived are those of :data:`VERIFIED`; every other class's memory answer refuses an
inference total and says why (test_an_underived_class_says_why). The same forwards under sdpa attention:
tests/test_reference_sdpa.py.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import live_bytes  # skips this module without torch/transformers (fails under CI)
import profiles
import reference
from derivations import answers, configs, registry
from derivations.symbols import P
from spec import specs

# The families whose forward at inference is derived and checked here, each with its classes.
VERIFIED = {"llama": ("LlamaForCausalLM", "LlamaModel"), "gpt2": ("GPT2LMHeadModel", "GPT2Model"),
            "bert": ("BertForMaskedLM", "BertModel", "BertModelWithoutPooler"),
            "mistral": ("MistralForCausalLM", "MistralModel"), "qwen2": ("Qwen2ForCausalLM", "Qwen2Model"),
            "qwen3": ("Qwen3ForCausalLM", "Qwen3Model"), "phi3": ("Phi3ForCausalLM", "Phi3Model"),
            "roberta": ("RobertaForMaskedLM", "RobertaModel"),
            "gpt_neox": ("GPTNeoXForCausalLM", "GPTNeoXModel"), "gemma": ("GemmaForCausalLM", "GemmaModel"),
            "gemma2": ("Gemma2ForCausalLM", "Gemma2Model"),
            "gemma3_text": ("Gemma3ForCausalLM", "Gemma3TextModel"),
            "gpt1": ("OpenAIGPTLMHeadModel", "OpenAIGPTModel"),
            "distilbert": ("DistilBertForMaskedLM", "DistilBertModel"),
            "albert": ("AlbertForMaskedLM", "AlbertModel")}


def derived(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool) -> int:
    """What ``memory --json`` answers: ``transient_bytes`` (generate's forward) or ``transient_forward_bytes``."""
    out = answers.memory(config, architecture, tokens, None, batch, dtype, attention="eager")
    assert "inference_refused" not in out, out["inference_refused"]
    if generate:
        assert out["transient_of"] == "generate"
        return out["transient_bytes"]
    return out["transient_forward_bytes"]


def check(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool,
          runs: bool = True) -> None:
    """The derivation equals the measure; ``runs`` False: a drawn config transformers may fail to run (RoBERTa
    without a pad token), which is then not checked (nothing executes)."""
    try:
        measured = live_bytes.measured(architecture, config, dtype, tokens, batch, generate)
    except (TypeError, ValueError, RuntimeError, IndexError):
        if runs:
            raise
        assume(False)
    assert derived(config, architecture, tokens, batch, dtype, generate) == measured, \
        (architecture, tokens, batch, dtype, "generate" if generate else "forward")


def generates(architecture: str) -> tuple[bool, ...]:
    return (False, True) if architecture.endswith(("ForCausalLM", "LMHeadModel")) else (False,)


# Every bundled checkpoint of the verified families, two layers deep and every width as published (the meta device
# holds no data: a width costs nothing), at lengths from one token to past the usual short ones.
# (A checkpoint whose forward takes a path the derivation refuses, said in its answer, would be checked apart.)
REFUSED: dict[str, str] = {}
REAL = [(checkpoint, architecture) for family, classes in VERIFIED.items()
        for checkpoint in registry.families()[family].checkpoints if checkpoint not in REFUSED
        for architecture in classes[:1]]


@pytest.mark.parametrize("checkpoint, architecture", REAL, ids=[c for c, _ in REAL])
def test_real_checkpoints(checkpoint: str, architecture: str) -> None:
    config = reference.shallow(configs.load(checkpoint), 2)
    for tokens, batch, dtype in ((1, 1, "bf16"), (333, 2, "bf16"), (64, 3, "fp32")):
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, dtype, generate)


@pytest.mark.parametrize("family, architecture", [(f, a) for f, classes in VERIFIED.items() for a in classes])
def test_every_verified_class(family: str, architecture: str) -> None:
    # One layer and two (the second layer's input is a tensor of its own), one token and several.
    example = configs.load(registry.families()[family].example)
    for depth, tokens, batch in ((1, 1, 1), (1, 9, 2), (2, 17, 1)):
        config = reference.shallow(example, depth)
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, "bf16", generate)


@pytest.mark.parametrize("family", sorted(VERIFIED))
@settings(max_examples=profiles.draws(40), deadline=None)
@given(data=st.data())
def test_random_configs(family: str, data: st.DataObject) -> None:
    # The family's random configs (tests/specs/), each class, at a drawn length, batch and dtype.
    spec = specs()[family]
    config = data.draw(spec.configs, label="config")
    if spec.windows is not None:  # sliding windows as the family's configs set them (another mask is built)
        layers = next(config[f] for f in reference.DEPTH_FIELDS if f in config)
        spec.windows(data, config, layers)
    architecture = data.draw(st.sampled_from(VERIFIED[family]), label="architecture")
    try:
        out = answers.memory(config, architecture, 1, None, 1, "bf16")
    except answers.ConfigError:  # a config the reader refuses (windows in layer_types, and none set)
        assume(False)
    assume("inference_refused" not in out)  # an odd rotary head (d_h = 1): refused, said so
    longest = registry.resolve(config, architecture).values.get(P, 40)  # a table of P positions reads P tokens
    tokens = data.draw(st.integers(1, min(40, longest)), label="tokens")
    batch = data.draw(st.integers(1, 3), label="batch")
    dtype = data.draw(st.sampled_from(["bf16", "fp16", "fp32"]), label="dtype")
    generate = data.draw(st.sampled_from(generates(architecture)), label="generate")
    check(config, architecture, tokens, batch, dtype, generate, runs=False)


def test_a_quantized_format_computes_in_16_bits() -> None:
    # Weights in 4 bits are dequantized to 16 bits before each product: the transient is bf16's.
    config = reference.shallow(configs.load("llama-2-7b"), 2)
    quantized = answers.memory(config, None, 100, None, 1, "int4", attention="eager")
    assert quantized["transient_bytes"] == live_bytes.measured("LlamaForCausalLM", config, "bf16", 100, 1, True)


def test_the_inference_total_adds_its_parts() -> None:
    out = answers.memory(configs.load("llama-2-7b"), None, 4096, None, 2, "bf16")
    assert out["inference_bytes"] == out["weights_bytes"] + out["kv_cache_bytes"] + out["transient_bytes"]
    assert answers.inference_bytes(configs.load("llama-2-7b"), None, 4096, 2, "bf16") == out["inference_bytes"]


def test_an_underived_class_says_why() -> None:
    # No guess: a class whose forward is not derived has no transient and no inference total, and says why.
    out = answers.memory(configs.load("llama-2-7b"), "LlamaForSequenceClassification", 100)
    assert "transient_bytes" not in out and "inference_bytes" not in out
    assert out["inference_refused"] == "transient peak not derived for this class yet"
    with pytest.raises(answers.ConfigError, match="not derived"):
        answers.inference_bytes(configs.load("llama-2-7b"), "LlamaForSequenceClassification", 100)
    # A mixture of experts: what its experts hold depends on the routing, which the sizes do not give.
    assert "routed" in answers.memory(configs.load("mixtral-8x7b"), None, 100)["inference_refused"]


def test_another_code_path_is_refused() -> None:
    # GPT-2 with another activation (or its fp32 reordering of attention) runs other statements than the derived ones;
    # so do GPT-NeoX's sequential residual and BERT as a decoder.
    for checkpoint, change in [("gpt2", {"activation_function": "relu"}), ("gpt2", {"reorder_and_upcast_attn": True}),
                               ("bert-base-uncased", {"is_decoder": True}),
                               ("pythia-70m", {"use_parallel_residual": False}),
                               *((name, {field: configs.load(name)[field]}) for name, field in REFUSED.items())]:
        out = answers.memory(configs.load(checkpoint) | change, None, 100, attention="eager")
        assert "transient_bytes" not in out and next(iter(change)) in out["inference_refused"], (checkpoint, change)


@pytest.mark.parametrize("checkpoint, change", [
    ("mistral-7b", {"sliding_window": 16}), ("mistral-7b", {"sliding_window": None}),
    ("qwen2-7b", {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1}),
    ("gemma-2-2b", {"sliding_window": 16}),
    ("gemma-2-2b", {"sliding_window": 16, "attn_logit_softcapping": None, "final_logit_softcapping": None}),
    ("gemma-3-1b", {"sliding_window": 16, "sliding_window_pattern": 2}),
    ("gemma-3-1b", {"sliding_window": 16, "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0}),
], ids=["mistral-window", "mistral-none", "qwen2-both-masks", "gemma2", "gemma2-uncapped", "gemma3-both-kinds",
        "gemma3-capped"])
def test_sliding_windows(checkpoint: str, change: dict) -> None:
    # A window shorter than the tokens: Mistral builds a sliding-window mask instead of the causal one (none without a
    # window), Qwen2 both where some layer slides, Gemma 2 both always (with its softcaps, or without them);
    # generate's cache keeps the window's layers apart.
    config = reference.shallow(configs.load(checkpoint), 2) | change
    architecture = registry.families()[registry.of_model_type(config["model_type"]).name].main
    for tokens, batch in ((40, 2), (5, 1)):
        for generate in (False, True):
            check(config, architecture, tokens, batch, "bf16", generate)
