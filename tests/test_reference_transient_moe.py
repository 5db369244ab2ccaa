"""A mixture of experts' transient peak at inference: the bound over routings that the command line answers
(derivations.transient.WORST, through ``memory --json``) and the program it is the bound of, at any routing, against
the peak of live tensor bytes torch measures while transformers runs the same forward on the CPU, its routers' picks
replaced by the test's routing (tests/routed_bytes.py): eval mode, eager attention, the experts' eager loop.

- The routing the bound describes (two experts take every token, each token's other picks on experts of its own):
  the measure equals the bound.
- Every token on the same experts, and random routings (hypothesis): the measure equals the program at the
  routing's own counts (one layer: the routing of a layer is one set of counts), and is at most the bound (two
  layers too).

The expected numbers are torch's, never the derivation's.
"""

from __future__ import annotations

import functools
import importlib

import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
import reference
import routed_bytes
from derivations import answers, configs, registry, storage
from derivations import transient as tr
from derivations.components import evaluate
from derivations.symbols import X, X_a, valued
from spec import specs

# The mixtures whose forward at inference is derived (their records declare transient and active counts): the
# family's module (its transient(routing)) and classes, those with a head first. Declaring a forward is claiming it.
VERIFIED = {name: (importlib.import_module(f"derivations.families.{name}"),
                   tuple(sorted(dict.fromkeys(c for by_class in record.transient.values() for c in by_class),
                                key=lambda c: not c.endswith("ForCausalLM"))))
            for name, record in registry.families().items() if record.transient and record.active}

# One layer's routing as symbols: the program at any routing.
CURRENT, PREVIOUS, HIT = sympy.symbols("routed_now routed_before experts_hit", integer=True, nonnegative=True)


@functools.cache
def programs(family: str) -> dict:
    return VERIFIED[family][0].transient(tr.Routing(CURRENT, PREVIOUS, HIT))


def bound(config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool) -> int:
    """What ``memory --json`` answers: the bound over routings, said to be one."""
    out = answers.memory(config, architecture, tokens, None, batch, dtype)
    assert "inference_refused" not in out, out["inference_refused"]
    assert out["transient_routing"] == tr.ROUTED_BOUND
    return out["transient_bytes"] if generate else out["transient_forward_bytes"]


def at_routing(family: str, config: dict, architecture: str, tokens: int, batch: int, dtype: str, generate: bool,
               routing_layer: list[list[int]]) -> int:
    """The family's program at one layer's routing: the largest moment over the loop's consecutive pairs of hit experts
    (the first with none before it), with the routing's experts hit."""
    # The values the command line evaluates its moments at (answers' own: the sizes, the windows, what the program
    # reads from the config), the routing's symbols apart.
    chosen, held, values, _ = answers._held(config, architecture, tokens, None)
    _, windows, _ = answers._cache(config, chosen, held, values, tokens, None, batch)
    at = answers.moment_values(config, held["transient"], values, tokens, batch, storage.FORMATS[dtype], windows)
    transient = programs(family)[chosen.layout][chosen.architecture]
    moments = transient.generate if generate else transient.forward
    rows, hit = routed_bytes.counts(routing_layer)
    sized = valued({k: v for k, v in at.items() if k not in ("x_h", "x_g")})
    # The sizes put in once, each pair of consecutive counts once (many experts hit get the same rows).
    moments = [sympy.sympify(moment).xreplace({s: sympy.Integer(v) for s, v in sized.items()}) for moment in moments]
    pairs = set(zip([0] + rows[:-1], rows or [0]))
    return max(evaluate(moment, {CURRENT: now, PREVIOUS: before, HIT: hit}) for before, now in pairs for moment in moments)


def generates(architecture: str) -> tuple[bool, ...]:
    return (False, True) if architecture.endswith("ForCausalLM") else (False,)


def layers(config: dict) -> int:
    return next(config[f] for f in reference.DEPTH_FIELDS if f in config)


# Every bundled checkpoint of the verified families, two layers deep, its widths narrowed (it runs on the CPU) and
# its experts, picks, groups and shared experts as published.
EVERY_CHECKPOINT = [(family, checkpoint, architecture) for family, (_, classes) in VERIFIED.items()
                    for checkpoint in registry.families()[family].checkpoints for architecture in classes[:1]]
# On CPU with real weights, seconds a checkpoint: each family's running example in `make test`, every one in CI.
REAL = profiles.cases(EVERY_CHECKPOINT, [case for case in EVERY_CHECKPOINT
                                         if case[1] == registry.families()[case[0]].example])


# In `make test`, one family's example in two for each routing (profiles.sample): the others take the other.
WORST, SAME = profiles.sample(REAL, 2, 0), profiles.sample(REAL, 2, 1)


@pytest.mark.parametrize("family, checkpoint, architecture", WORST, ids=[c for _, c, _ in WORST])
def test_the_worst_routing_is_the_bound(family: str, checkpoint: str, architecture: str) -> None:
    config = reference.shallow(configs.load(checkpoint), 2)
    values = registry.resolve(config, architecture).values
    experts, picked = values[X], values[X_a]
    # Short lengths, where the experts' loop is the peak, and a long one, where attention's scores are.
    for tokens, batch, dtype in ((1, 1, "bf16"), (9, 2, "bf16"), (17, 1, "fp32"), (333, 2, "bf16")):
        routing = [routed_bytes.worst(tokens * batch, picked, experts)] * routed_bytes.layers_routed(architecture,
                                                                                                  config, dtype)
        for generate in generates(architecture):
            measured = routed_bytes.measured(architecture, config, dtype, tokens, batch, generate, routing)
            assert measured == bound(config, architecture, tokens, batch, dtype, generate), \
                (checkpoint, tokens, batch, dtype, generate)


@pytest.mark.parametrize("family, checkpoint, architecture", SAME, ids=[c for _, c, _ in SAME])
def test_every_token_on_the_same_experts(family: str, checkpoint: str, architecture: str) -> None:
    # The routing the brief names: the program at its counts, and the bound where it is the worst (two picks or
    # fewer: no other pick to spread).
    config = reference.shallow(configs.load(checkpoint), 1)
    values = registry.resolve(config, architecture).values
    picked = values[X_a]
    for tokens, batch, dtype in ((1, 1, "bf16"), (9, 2, "bf16"), (17, 1, "fp32")):
        routing = routed_bytes.same_experts(tokens * batch, picked)
        for generate in generates(architecture):
            assert routed_bytes.layers_routed(architecture, config, dtype) == 1
            measured = routed_bytes.measured(architecture, config, dtype, tokens, batch, generate, [routing])
            assert measured == at_routing(family, config, architecture, tokens, batch, dtype, generate, routing)
            worst = bound(config, architecture, tokens, batch, dtype, generate)
            assert measured <= worst and (measured == worst) == (picked <= 2 or tokens * batch == 1)


# What a family's random configs change to take the path derived (the others are refused, said so): every layer of
# the Qwen mixtures holds experts.
DERIVED_LAYOUT = {family: {"mlp_only_layers": [], "decoder_sparse_step": 1} for family in ("qwen2_moe", "qwen3_moe")}


@st.composite
def routings(draw: st.DrawFn, rows: int, experts: int, picked: int) -> list[list[int]]:
    """A routing: each row's ``picked`` distinct experts, drawn."""
    return [draw(st.permutations(range(experts)))[:picked] for _ in range(rows)]


@pytest.mark.parametrize("family", profiles.sample(sorted(VERIFIED), 2, 0))
@settings(max_examples=profiles.draws(30), deadline=None)
@given(data=st.data())
def test_random_routings(family: str, data: st.DataObject) -> None:
    # The family's random configs (tests/specs/), each class, at a drawn length, batch, dtype and routing of every
    # layer: one layer, the program at the routing; any depth, at most the bound.
    spec = specs()[family]
    config = data.draw(spec.configs, label="config") | DERIVED_LAYOUT.get(family, {})
    architecture = data.draw(st.sampled_from(VERIFIED[family][1]), label="architecture")
    try:
        out = answers.memory(config, architecture, 1, None, 1, "bf16")
    except answers.ConfigError:
        assume(False)
    assume("inference_refused" not in out)
    values = registry.resolve(config, architecture).values
    experts, picked = values[X], values[X_a]
    tokens = data.draw(st.integers(1, 40), label="tokens")
    batch = data.draw(st.integers(1, 3), label="batch")
    dtype = data.draw(st.sampled_from(["bf16", "fp16", "fp32"]), label="dtype")
    generate = data.draw(st.sampled_from(generates(architecture)), label="generate")
    try:
        routers = routed_bytes.layers_routed(architecture, config, dtype)
    except (TypeError, ValueError, RuntimeError, IndexError):  # a drawn config transformers cannot build
        assume(False)
    routing = [data.draw(routings(tokens * batch, experts, picked), label=f"routing {i}") for i in range(routers)]
    try:
        measured = routed_bytes.measured(architecture, config, dtype, tokens, batch, generate, routing)
    except (TypeError, ValueError, RuntimeError, IndexError):  # a drawn config transformers cannot run
        assume(False)
    assert measured <= bound(config, architecture, tokens, batch, dtype, generate)
    if layers(config) == 1:  # its one layer's routing, or none (a dense layer: no routing to bound)
        assert measured == (at_routing(family, config, architecture, tokens, batch, dtype, generate, routing[0])
                            if routing else bound(config, architecture, tokens, batch, dtype, generate))


# Edges of each family, two layers: no pick (the experts add nothing), one pick (no expert before the one the loop
# runs), every expert picked, a window shorter than the tokens; DeepSeek's dense layers (none, every one), its
# group-limited routing (V2's released config: 8 groups, a token's experts from 3; or from one, where the worst
# routing spreads within the first group).
EDGES = [("mixtral", "mixtral-8x7b", {"num_experts_per_tok": 0}),
         ("mixtral", "mixtral-8x7b", {"num_experts_per_tok": 1}),
         ("mixtral", "mixtral-8x7b", {"num_local_experts": 3, "num_experts_per_tok": 3}),
         ("mixtral", "mixtral-8x7b", {"sliding_window": 4}),
         ("qwen2_moe", "qwen1.5-moe-a2.7b", {"num_experts_per_tok": 0}),
         ("qwen2_moe", "qwen1.5-moe-a2.7b", {"num_experts_per_tok": 1, "norm_topk_prob": True}),
         ("qwen2_moe", "qwen1.5-moe-a2.7b", {"num_experts": 5, "num_experts_per_tok": 5}),
         ("qwen2_moe", "qwen1.5-moe-a2.7b", {"use_sliding_window": True, "sliding_window": 4, "max_window_layers": 1}),
         ("qwen3_moe", "qwen3-30b-a3b", {"num_experts_per_tok": 1, "norm_topk_prob": False}),
         ("qwen3_moe", "qwen3-30b-a3b", {"use_sliding_window": True, "sliding_window": 4}),
         ("gpt_oss", "gpt-oss-20b", {"num_experts_per_tok": 0}), ("gpt_oss", "gpt-oss-20b", {"num_experts_per_tok": 1}),
         ("gpt_oss", "gpt-oss-20b", {"num_local_experts": 3, "num_experts_per_tok": 3}),
         ("gpt_oss", "gpt-oss-20b", {"sliding_window": 4}),
         ("deepseek_v2", "deepseek-v2", {"topk_method": "group_limited_greedy", "n_group": 8, "topk_group": 3}),
         ("deepseek_v2", "deepseek-v2", {"topk_method": "group_limited_greedy", "n_group": 8, "topk_group": 1}),
         ("deepseek_v2", "deepseek-v2", {"first_k_dense_replace": 0}),
         ("deepseek_v2", "deepseek-v2", {"first_k_dense_replace": 2}),
         ("deepseek_v2", "deepseek-v2-lite", {"num_experts_per_tok": 1}),
         ("deepseek_v2", "deepseek-v2-lite", {"num_experts_per_tok": 0}),
         ("deepseek_v3", "deepseek-v3", {"topk_group": 1}), ("deepseek_v3", "deepseek-v3", {"rope_interleave": False}),
         ("deepseek_v3", "deepseek-v3", {"norm_topk_prob": False, "first_k_dense_replace": 0}),
         ("deepseek_v3", "deepseek-v3", {"q_lora_rank": None, "num_experts_per_tok": 1}),
         ("deepseek_v3", "deepseek-v3", {"n_group": 4, "topk_group": 2, "num_experts_per_tok": 3})]


def one_group(family: str, config: dict) -> bool:
    """Whether the router keeps each token's experts in one group (DeepSeek's group-limited routing, topk_group 1)."""
    grouped = {"deepseek_v2": config.get("topk_method") == "group_limited_greedy", "deepseek_v3": True}
    return grouped.get(family, False) and config.get("topk_group") == 1


# In `make test`, one edge in two (profiles.sample).
EDGE_CASES = profiles.sample(EDGES, 2, 1)


@pytest.mark.parametrize("family, checkpoint, change", EDGE_CASES,
                         ids=[f"{c}-{'-'.join(map(str, ch.values()))}" for _, c, ch in EDGE_CASES])
def test_edges(family: str, checkpoint: str, change: dict) -> None:
    config = reference.shallow(configs.load(checkpoint), 2) | change
    architecture = VERIFIED[family][1][0]
    values = registry.resolve(config, architecture).values
    groups = config.get("n_group") or {"deepseek_v3": 8}.get(family, 1)  # DeepseekV3Config's default: 8
    reach = values[X] // groups if one_group(family, config) else values[X]
    for tokens, batch, dtype in ((1, 1, "bf16"), (9, 2, "bf16"), (6, 1, "fp32")):
        routing = routed_bytes.worst(tokens * batch, values[X_a], reach)
        for generate in generates(architecture):
            measured = routed_bytes.measured(architecture, config, dtype, tokens, batch, generate,
                                             [routing] * routed_bytes.layers_routed(architecture, config, dtype))
            assert measured == bound(config, architecture, tokens, batch, dtype, generate), \
                (change, tokens, batch, dtype, generate)


def test_glm_queries_are_normed_after_the_keys_and_values_are_projected():
    # A random draw's config (every layer dense, two query heads to one key/value head, use_qk_norm): Glm4MoeAttention
    # projects q, k and v before it norms q, so the norm's peak holds k and v (0.14.0 derived 51 bytes; torch holds 54).
    config = {"model_type": "glm4_moe", "vocab_size": 1, "hidden_size": 1, "intermediate_size": 1,
              "moe_intermediate_size": 1, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
              "head_dim": 1, "n_routed_experts": 1, "num_experts_per_tok": 0, "n_shared_experts": 0,
              "first_k_dense_replace": 1, "use_qk_norm": True}
    for architecture in VERIFIED["glm4_moe"][1]:
        for generate in generates(architecture):
            measured = routed_bytes.measured(architecture, config, "bf16", 1, 1, generate, [])
            assert measured == bound(config, architecture, 1, 1, "bf16", generate), (architecture, generate)


@pytest.mark.parametrize("checkpoint, change", [("qwen1.5-moe-a2.7b", {"mlp_only_layers": [0]}),
                                                ("qwen1.5-moe-a2.7b", {"decoder_sparse_step": 2})])
def test_a_layout_not_derived_is_refused(checkpoint: str, change: dict) -> None:
    # Dense layers among a Qwen mixture's sparse ones (none in the releases): their places are not derived, said so.
    out = answers.memory(configs.load(checkpoint) | change, None, 100)
    assert "transient_bytes" not in out and next(iter(change)) in out["inference_refused"]
