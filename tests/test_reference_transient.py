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
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import live_bytes  # skips this module without torch/transformers (fails under CI)
import profiles
import reference
from derivations import answers, configs, registry
from derivations.symbols import P
from spec import specs



def derived(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool,
            target: int | None = None) -> int:
    """What ``memory --json`` answers: ``transient_bytes`` (generate's forward) or ``transient_forward_bytes``."""
    out = answers.memory(config, architecture, tokens, target, batch, dtype, attention="eager")
    assert "inference_refused" not in out, out["inference_refused"]
    if generate:
        assert out["transient_of"] == "generate"
        return out["transient_bytes"]
    return out["transient_forward_bytes"]


def check(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool,
          runs: bool = True, target: int | None = None) -> None:
    """The derivation equals the measure; ``runs`` False: a drawn config transformers may fail to run (RoBERTa
    without a pad token), which is then not checked (nothing executes); ``target``: an encoder-decoder's decoder
    tokens (default ``tokens``)."""
    try:
        measured = live_bytes.measured(architecture, config, dtype, tokens, batch, generate, target)
    except (TypeError, ValueError, RuntimeError, IndexError):
        if runs:
            raise
        assume(False)
    assert derived(config, architecture, tokens, batch, dtype, generate, target) == measured, \
        (architecture, tokens, target, batch, dtype, "generate" if generate else "forward")


def generates(architecture: str) -> tuple[bool, ...]:
    return (False, True) if architecture.endswith(("ForCausalLM", "LMHeadModel", "ForConditionalGeneration",
                                                    "MTModel")) else (False,)


def verified() -> dict[str, tuple[str, ...]]:
    """The families whose forward at inference is derived (their records' ``transient``), each with its classes,
    those that generate first: every one is checked here, so that declaring a forward is claiming it. The mixtures'
    routings are tests/test_reference_transient_moe.py's."""
    found = {}
    for name, record in registry.families().items():
        if record.transient and not record.active:
            classes = dict.fromkeys(c for by_class in record.transient.values() for c in by_class)
            found[name] = tuple(sorted(classes, key=lambda c: len(generates(c)) == 1))
    return found


VERIFIED = verified()
# In `make test`, every family's classes on its example (one in two, below); the random configs of one family in two and
# the real checkpoints of the others (profiles.sample).
CHECKED = profiles.sample(sorted(VERIFIED), 2, 0)


# Every bundled checkpoint of the verified families, two layers deep and every width as published (the meta device
# holds no data: a width costs nothing), at lengths from one token to past the usual short ones.
# (A checkpoint whose forward takes a path the derivation refuses, said in its answer, would be checked apart.)
REFUSED: dict[str, str] = {}
# In `make test`, one in six of each family's checkpoints (profiles.spread: a family's checkpoints share its class).
REAL = profiles.spread([(checkpoint, VERIFIED[family][0]) for family in profiles.sample(sorted(VERIFIED), 2, 1)
                        for checkpoint in registry.families()[family].checkpoints if checkpoint not in REFUSED],
                       6, group=lambda case: case[1])
# In `make test`, one in two of each family's classes, the first (one that generates) included.
CLASSES = profiles.spread([(f, a) for f, classes in VERIFIED.items() for a in classes], 2)


@pytest.mark.parametrize("checkpoint, architecture", REAL, ids=[c for c, _ in REAL])
def test_real_checkpoints(checkpoint: str, architecture: str) -> None:
    config = reference.shallow(configs.load(checkpoint), 2)
    # An encoder-decoder's decoder reads a target of its own length.
    target = 45 if architecture.endswith(("ForConditionalGeneration", "MTModel")) else None
    for tokens, batch, dtype in ((1, 1, "bf16"), (333, 2, "bf16"), (64, 3, "fp32")):
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, dtype, generate, target=target)


@pytest.mark.parametrize("family, architecture", CLASSES)
def test_every_verified_class(family: str, architecture: str) -> None:
    # One layer and two (the second layer's input is a tensor of its own), one token and several.
    example = configs.load(registry.families()[family].example)
    for depth, tokens, batch in ((1, 1, 1), (1, 9, 2), (2, 17, 1)):
        config = reference.shallow(example, depth)
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, "bf16", generate)


@pytest.mark.parametrize("family", CHECKED)
# A drawn config transformers cannot run is skipped (assume): RoBERTa's kin, without a pad token, often are.
@settings(max_examples=profiles.draws(40), deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_random_configs(family: str, data: st.DataObject) -> None:
    # The family's random configs (tests/specs/), each class, at a drawn length, batch and dtype.
    spec = specs()[family]
    config = data.draw(spec.configs, label="config")
    if spec.windows is not None:  # sliding windows as the family's configs set them (another mask is built)
        layers = next(config[f] for f in reference.DEPTH_FIELDS if f in config)
        spec.windows(data, config, layers)
    if "encoder_attention_heads" in config:  # Marian's, BART's: decoder heads as the encoder's, the one H read
        config["decoder_attention_heads"] = config["encoder_attention_heads"]
    architecture = data.draw(st.sampled_from(VERIFIED[family]), label="architecture")
    dtype = data.draw(st.sampled_from(["bf16", "fp16", "fp32"]), label="dtype")
    try:
        out = answers.memory(config, architecture, 1, None, 1, dtype)
    except answers.ConfigError:  # a config the reader refuses (windows in layer_types, and none set)
        assume(False)
    # Refused, and said so: an odd rotary head (d_h = 1), T5 in fp16 or with an activation of its own.
    assume("inference_refused" not in out)
    longest = registry.resolve(config, architecture).values.get(P, 40)  # a table of P positions reads P tokens
    tokens = data.draw(st.integers(1, min(40, longest)), label="tokens")
    # An encoder-decoder's target (a decoder alone reads none).
    target = data.draw(st.one_of(st.none(), st.integers(1, min(40, longest))), label="target")
    batch = data.draw(st.integers(1, 3), label="batch")
    generate = data.draw(st.sampled_from(generates(architecture)), label="generate")
    check(config, architecture, tokens, batch, dtype, generate, runs=False, target=target)


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
    # A mixture of experts: what its experts hold depends on the routing; the answer is the most any routing holds,
    # said so (tests/test_reference_transient_moe.py), and a class of it not derived says so as any other.
    assert "transient_routing" in answers.memory(configs.load("deepseek-v3"), None, 100)
    refused = answers.memory(configs.load("mixtral-8x7b"), "MixtralForSequenceClassification", 100)
    assert refused["inference_refused"] == "transient peak not derived for this class yet"


def test_another_code_path_is_refused() -> None:
    # GPT-2 with another activation (or its fp32 reordering of attention) runs other statements than the derived ones;
    # so do GPT-NeoX's sequential residual and BERT as a decoder.
    for checkpoint, change in [("gpt2", {"activation_function": "relu"}), ("gpt2", {"reorder_and_upcast_attn": True}),
                               ("bert-base-uncased", {"is_decoder": True}),
                               ("pythia-70m", {"use_parallel_residual": False}),
                               # BLOOM's products split by pretraining_tp, GPTBigCode's gelu_new in Python, Falcon
                               # with ALiBi.
                               ("bloom-560m", {"slow_but_exact": True, "pretraining_tp": 2}),
                               ("santacoder", {"activation_function": "gelu_new"}),
                               ("falcon-7b", {"alibi": True}),
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


def test_t5_refuses_the_forwards_it_does_not_follow() -> None:
    config = reference.shallow(configs.load("t5-small"), 1)
    # In fp16 transformers keeps wo in fp32 (and clamps each block's output): another forward than bf16's.
    assert "wo" in reference.transformers.T5PreTrainedModel._keep_in_fp32_modules
    assert "fp16" in answers.memory(config, None, 10, None, 1, "fp16")["inference_refused"]
    # Fewer than 4 buckets: transformers' forward divides by zero.
    few = config | {"relative_attention_num_buckets": 3}
    with pytest.raises(ZeroDivisionError):
        live_bytes.measured("T5EncoderModel", few, "bf16", 4, 1, False)
    assert "B >= 4" in answers.memory(few, None, 10)["inference_refused"]
    # Another activation: gated SiLU (one op where gated GELU is written in Python), PReLU (a module of its own).
    for change in ({"feed_forward_proj": "gated-silu"}, {"feed_forward_proj": "prelu"}):
        assert "transient_bytes" not in answers.memory(config | change, None, 10)


def test_marian_refuses_the_forwards_it_does_not_follow() -> None:
    config = reference.shallow(configs.load("transformer-base"), 1)
    # In fp16 each encoder layer asks whether its output is finite (a value, which the meta device does not hold),
    # and clamps it where it is not: a forward that depends on the values.
    with pytest.raises(RuntimeError, match="meta"):
        live_bytes.measured("MarianMTModel", config, "fp16", 4, 1, False)
    assert "fp16" in answers.memory(config, None, 10, None, 1, "fp16")["inference_refused"]
    # The decoder's heads are not the reader's H (the encoder's) where they differ.
    other = answers.memory(config | {"decoder_attention_heads": 4}, None, 10)
    assert "decoder_attention_heads" in other["inference_refused"]
    # MarianForCausalLM with a decoder deeper than the encoder: generate's cache has a layer for each encoder layer,
    # and fails.
    deeper = config | {"decoder_layers": 2}
    with pytest.raises(IndexError):
        live_bytes.measured("MarianForCausalLM", deeper, "bf16", 4, 1, True)
    assert "L >= L_d" in answers.memory(deeper, "MarianForCausalLM", 10)["inference_refused"]
    # Where the stacks share a table, a decoder vocabulary larger than it: a padding index counted back from the
    # decoder's rows lies past the shared table's, and the embedding fails.
    larger = config | {"decoder_vocab_size": config["vocab_size"] + 1, "pad_token_id": -1}
    with pytest.raises(AssertionError, match="Padding_idx"):
        live_bytes.measured("MarianMTModel", larger, "bf16", 4, 1, False)
    assert "V >= V_d" in answers.memory(larger, None, 10)["inference_refused"]
