"""The forward's transient peak at inference under sdpa attention (transformers' default), derived
(derivations.transient.sdpa_attention and sdpa_causal_mask, through the command line's compiled answer ``memory
--json --attention sdpa``), against the peak of live tensor bytes torch measures while transformers runs the same
forward with attn_implementation="sdpa" (tests/live_bytes.py: on CPU, where torch's scaled_dot_product_attention
runs its flash kernel, ``_scaled_dot_product_flash_attention_for_cpu``, and the tracker counts the storages torch's
operators return: the output and the logsumexp, not the kernel's scratch). Eval mode, bf16, fp16 and fp32, batch 1
and more, the bare forward and generate's forward on the prompt. The expected numbers are torch's, never the
derivation's.

On CPU the model computes: the bundled checkpoints are made small (:func:`small`): two layers and narrow widths,
their heads, key/value heads, windows and code paths as published. CPU's LayerNorm returns its statistics in the
input's dtype, a GPU's (and the meta kernel) in fp32: the tracker counts them as a GPU's (live_bytes.GPU_WIDTHS).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import live_bytes  # skips this module without torch/transformers (fails under CI)
import profiles
import reference
from derivations import answers, configs, registry
from derivations.symbols import H, P
from spec import specs

# The families whose forward under sdpa is derived (their records' transient_sdpa), each with its classes, those
# with a language-model head first: every one is checked here, so that declaring a forward is claiming it.
VERIFIED = {name: tuple(sorted(dict.fromkeys(c for by_class in record.transient_sdpa.values() for c in by_class),
                               key=lambda c: not c.endswith(("ForCausalLM", "LMHeadModel", "ForMaskedLM"))))
            for name, record in registry.families().items() if record.transient_sdpa}

# What a small copy of a checkpoint keeps narrow: its head size (and the width, the heads' sizes), its feed-forward
# and its vocabulary.
HEAD, FEED_FORWARD, VOCABULARY = 16, 48, 256
DEPTH = 2


def derived(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool) -> int:
    """What ``memory --json --attention sdpa`` answers: ``transient_bytes`` (generate's forward) or
    ``transient_forward_bytes``."""
    out = answers.memory(config, architecture, tokens, None, batch, dtype, attention="sdpa")
    assert out.get("attention") == "sdpa", out.get("attention_note", out.get("inference_refused"))
    if generate:
        assert out["transient_of"] == "generate"
        return out["transient_bytes"]
    return out["transient_forward_bytes"]


def check(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool,
          runs: bool = True) -> None:
    """The derivation equals the measure; ``runs`` False: a drawn config transformers may fail to run, which is then
    not checked (nothing executes)."""
    try:
        measured = live_bytes.measured(architecture, config, dtype, tokens, batch, generate, attention="sdpa")
    except (TypeError, ValueError, RuntimeError, IndexError):
        if runs:
            raise
        assume(False)
    assert derived(config, architecture, tokens, batch, dtype, generate) == measured, \
        (architecture, tokens, batch, dtype, "generate" if generate else "forward")


def generates(architecture: str) -> tuple[bool, ...]:
    return (False, True) if architecture.endswith(("ForCausalLM", "LMHeadModel")) else (False,)


def small(checkpoint: str) -> dict:
    """A bundled checkpoint made small: :data:`DEPTH` layers, a head of :data:`HEAD` (the width H of them), a narrow
    feed-forward and vocabulary; everything else (heads, key/value heads, windows, softcaps, activations, rotary
    part) as published."""
    config = reference.shallow(configs.load(checkpoint), DEPTH)
    heads = registry.resolve(config, None).values[H]  # as the reader reads it (a default where unsaid)
    # The heads cover the width (LlamaConfig checks it); GPT-2, BERT and Phi-3 have no head_dim: the width sets it.
    # The padding token a row of the narrow vocabulary (Phi3Config's default, 32000, is not).
    if config["model_type"] in ("gpt2", "gpt_bigcode"):  # GPT-2's names (GPTBigCode's too)
        return config | {"n_embd": heads * HEAD, "n_inner": FEED_FORWARD, "vocab_size": VOCABULARY}
    narrow = {"intermediate_size": FEED_FORWARD, "vocab_size": VOCABULARY, "hidden_size": heads * HEAD,
              "pad_token_id": 0}
    without_head_dim = ("phi3", "bert", "roberta", "xlm-roberta", "camembert")
    return config | narrow | ({} if config["model_type"] in without_head_dim else {"head_dim": HEAD})


# In `make test`, one family in two (profiles.sample; the eager checks take theirs from the first on).
CHECKED = profiles.sample(sorted(VERIFIED), 2, 1)
# In `make test`, one in six of each family's checkpoints (profiles.spread: a family's checkpoints share its class).
REAL = profiles.spread([(checkpoint, VERIFIED[family][0]) for family in CHECKED
                        for checkpoint in registry.families()[family].checkpoints], 6, group=lambda case: case[1])
# In `make test`, one in two of each family's classes, the first (one that generates) included.
CLASSES = profiles.spread([(f, a) for f in CHECKED for a in VERIFIED[f]], 2)


@pytest.mark.parametrize("checkpoint, architecture", REAL, ids=[c for c, _ in REAL])
def test_real_checkpoints(checkpoint: str, architecture: str) -> None:
    config = small(checkpoint)
    for tokens, batch, dtype in ((1, 1, "bf16"), (45, 2, "bf16"), (13, 3, "fp32")):
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, dtype, generate)


@pytest.mark.parametrize("family, architecture", CLASSES)
def test_every_verified_class(family: str, architecture: str) -> None:
    # One layer and two (the second layer's input is a tensor of its own), one token and several, fp16 too.
    example = small(registry.families()[family].example)
    for depth, tokens, batch, dtype in ((1, 1, 1, "bf16"), (1, 9, 2, "fp16"), (2, 17, 1, "bf16")):
        config = reference.shallow(example, depth)
        for generate in generates(architecture):
            check(config, architecture, tokens, batch, dtype, generate)


@pytest.mark.parametrize("family", CHECKED)
# Half of BERT's and RoBERTa's drawn configs are decoders, not derived, and some fail on CPU: filtered out.
@settings(max_examples=profiles.draws(40), deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_random_configs(family: str, data: st.DataObject) -> None:
    # The family's random configs (tests/specs/), each class, at a drawn length, batch and dtype, with windows as the
    # family's configs set them: shorter than the tokens (a mask is given to sdpa) or not.
    spec = specs()[family]
    config = data.draw(spec.configs, label="config")
    if spec.windows is not None:
        layers = next(config[f] for f in reference.DEPTH_FIELDS if f in config)
        spec.windows(data, config, layers)
    architecture = data.draw(st.sampled_from(VERIFIED[family]), label="architecture")
    try:
        out = answers.memory(config, architecture, 1, None, 1, "bf16", attention="sdpa")
    except answers.ConfigError:  # a config the reader refuses (windows in layer_types, and none set)
        assume(False)
    assume(out.get("attention") == "sdpa")  # an odd rotary head (d_h = 1): refused, said so
    longest = registry.resolve(config, architecture).values.get(P, 40)
    # On CPU an index past a buffer fails (the meta device reads none): RoBERTa's token types are a buffer of
    # max_position_embeddings.
    longest = min(longest, config.get("max_position_embeddings", longest))
    tokens = data.draw(st.integers(1, min(40, longest)), label="tokens")
    batch = data.draw(st.integers(1, 3), label="batch")
    dtype = data.draw(st.sampled_from(["bf16", "fp16", "fp32"]), label="dtype")
    generate = data.draw(st.sampled_from(generates(architecture)), label="generate")
    check(config, architecture, tokens, batch, dtype, generate, runs=False)


@pytest.mark.parametrize("checkpoint, change", [
    ("mistral-7b", {"sliding_window": 16}), ("mistral-7b", {"sliding_window": 1}),
    ("mistral-7b", {"sliding_window": None}),
    ("qwen2-7b", {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 1}),
    ("qwen2-7b", {"use_sliding_window": True, "sliding_window": 16, "max_window_layers": 0}),
    ("phi-3-mini-4k", {"sliding_window": 16}),
    ("gemma-3-1b", {"sliding_window": 16, "sliding_window_pattern": 2}),
    ("gemma-3-1b", {"sliding_window": 16, "layer_types": ["full_attention", "sliding_attention"]}),
], ids=["mistral-window", "mistral-window-1", "mistral-none", "qwen2-second-slides", "qwen2-both-slide",
        "phi3-window", "gemma3-first-slides", "gemma3-second-slides"])
def test_sliding_windows(checkpoint: str, change: dict) -> None:
    # A window no longer than the tokens: transformers builds the sliding layers' boolean mask for sdpa, which turns
    # it into the activation dtype in each call, and repeats grouped key/value heads; a longer one (or one token
    # below a window of more): no mask, sdpa's is_causal. The first layer slides, or a later one, or both.
    config = small(checkpoint) | change
    architecture = registry.families()[registry.of_model_type(config["model_type"]).name].main
    for tokens, batch in ((40, 2), (16, 1), (15, 3), (1, 2)):
        for generate in (False, True):
            check(config, architecture, tokens, batch, "bf16", generate)


def test_a_wide_head_repeats_grouped_heads() -> None:
    # A head wider than 256: transformers hands sdpa grouped key/value heads repeated (use_gqa_in_sdpa), one token
    # packed instead (pack_gqa).
    config = small("llama-3-8b") | {"head_dim": 264, "num_attention_heads": 4, "num_key_value_heads": 2}
    for tokens, batch in ((7, 2), (1, 2)):
        for generate in (False, True):
            check(config, "LlamaForCausalLM", tokens, batch, "bf16", generate)


def test_gpt2s_reordered_attention_is_eagers_alone() -> None:
    # GPT2Attention reads reorder_and_upcast_attn only under eager attention: under sdpa the forward is the same.
    config = small("gpt2") | {"reorder_and_upcast_attn": True}
    for generate in (False, True):
        check(config, "GPT2LMHeadModel", 12, 2, "bf16", generate)
