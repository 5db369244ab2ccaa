"""The Mixtral derivation against transformers' Mixtral classes: total and every node, and the
parameters one token uses, measured by running the model.

The expected numbers are transformers' own, measured on the meta device (see reference.py) or, for the
active count, on a small model with real weights on the CPU; the derivation is evaluated on the same
config dict, through ``derivations.configs.resolve``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import mixtral
from derivations.symbols import D, V, X, X_a
from test_reference_llama import runs

check = reference.check
torch = reference.torch
transformers = reference.transformers


@pytest.mark.parametrize("architecture", mixtral.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", mixtral.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


def test_experts_are_stacked_tensors() -> None:
    # transformers 5.x keeps each layer's experts in two 3-D tensors (no ModuleList of experts): the
    # layout the tree's module paths follow.
    model = reference.build("MixtralModel", {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 16,
                                             "intermediate_size": 8, "num_attention_heads": 2,
                                             "num_key_value_heads": 1, "num_local_experts": 3})
    shapes = {name: tuple(p.shape) for name, p in model.named_parameters() if ".mlp." in name}
    assert shapes == {"layers.0.mlp.gate.weight": (3, 16), "layers.0.mlp.experts.gate_up_proj": (3, 16, 16),
                      "layers.0.mlp.experts.down_proj": (3, 16, 8)}


@pytest.mark.parametrize("architecture", mixtral.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # MixtralConfig's defaults are Mixtral-8x7B's sizes; two layers keep the build small.
    check(architecture, {"model_type": "mixtral", "num_hidden_layers": 2})


@pytest.mark.parametrize("flags", [
    {"tie_word_embeddings": True},
    {"token_classification_bias": False},
    {"tie_word_embeddings": True, "token_classification_bias": False},
    {"head_dim": 32},
    {"head_dim": 0},  # MixtralAttention reads 0 as "not set": hidden_size // num_attention_heads
    {"num_experts": 3},  # MixtralConfig.attribute_map: num_experts sets num_local_experts
    {"num_experts": 3, "num_local_experts": 5},  # ... and wins over it
    {"num_local_experts": 1, "num_experts_per_tok": 1},
    {"hidden_size": 130},  # not a multiple of the heads: each head has the floor, 4 (q_proj has 128 rows)
], ids=["tied", "token-no-bias", "both", "head-dim", "head-dim-0", "num-experts", "alias-wins", "one-expert",
        "floor"])
@pytest.mark.parametrize("architecture", mixtral.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 128,
                         "intermediate_size": 96, "num_attention_heads": 32, "vocab_size": 500, **flags})


def test_tying_is_real() -> None:
    config = {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 64, "intermediate_size": 32,
              "vocab_size": 100, "tie_word_embeddings": True}
    model = reference.build("MixtralForCausalLM", config)
    assert model.lm_head.weight is model.model.embed_tokens.weight
    check("MixtralForCausalLM", config)


# Each refused config, with the words of the reader's one-line message; transformers 5.23 refuses each
# or builds a model whose forward pass fails (test_reference_llama.runs).
REFUSED = [
    ({"num_attention_heads": 6, "num_key_value_heads": 4}, "not a multiple of num_key_value_heads"),
    ({"num_key_value_heads": None}, "num_key_value_heads"),  # a plain int in MixtralConfig
    ({"num_experts_per_tok": 9}, "more than num_local_experts"),  # torch.topk: k out of range
    ({"num_experts": 2, "num_experts_per_tok": 3}, "more than num_experts"),  # the alias, named
    ({"num_local_experts": 0, "num_experts_per_tok": 0}, "num_local_experts"),  # no expert to route to
    ({"head_dim": 7}, "even"),  # MixtralConfig's RoPE check
    ({"hidden_size": 28, "num_attention_heads": 4, "num_key_value_heads": 4}, "even"),  # builds, cannot run
    ({"hidden_size": 2, "num_attention_heads": 4, "num_key_value_heads": 1}, "head size of 0"),
]

MIXTRAL_SMALL = {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 32, "intermediate_size": 16,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 50, "num_local_experts": 4}


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(MIXTRAL_SMALL | config)
    assert not runs(MIXTRAL_SMALL | config)


# Edges the reader accepts because transformers builds and runs them: head_dim 0 read as unset, a router
# that picks no expert (the experts add nothing), heads that do not divide the width (each has the floor).
# (A hidden size whose float32 rows are not a multiple of 16 bytes, such as 34, fails in the default
# grouped-matmul experts kernel but runs with experts_implementation "eager": not the config's fault.)
ACCEPTED = [{"head_dim": 0}, {"num_experts_per_tok": 0}, {"num_attention_heads": 3, "num_key_value_heads": 1}]


@pytest.mark.parametrize("config", ACCEPTED, ids=str)
def test_accepted_by_both(config: dict) -> None:
    assert runs(MIXTRAL_SMALL | config)
    check("MixtralForCausalLM", MIXTRAL_SMALL | config)


@st.composite
def mixtral_configs(draw: st.DrawFn) -> dict:
    kv_heads, groups = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    heads = kv_heads * groups  # key/value heads divide the heads
    experts = draw(st.integers(1, 8))
    config = {"model_type": "mixtral", "vocab_size": draw(st.integers(1, 1000)),
              "num_hidden_layers": draw(st.integers(1, 2)), "intermediate_size": draw(st.integers(1, 64)),
              "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "num_experts_per_tok": draw(st.integers(0, experts))}
    config["num_experts" if draw(st.booleans()) else "num_local_experts"] = experts
    if draw(st.booleans()):
        # head_dim set (even, for the rotary embedding): the heads need not cover the hidden size.
        config["head_dim"] = 2 * draw(st.integers(1, 16))
        config["hidden_size"] = draw(st.integers(1, 128))
    else:
        # head_dim null: hidden_size // heads, even; hidden_size need not be a multiple of the heads.
        config["hidden_size"] = heads * 2 * draw(st.integers(1, 8)) + draw(st.integers(0, heads - 1))
        if draw(st.booleans()):
            config["head_dim"] = None
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


# Meta-device builds take ~20 ms each. No deadline: the first build is slow.
@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(mixtral.ARCHITECTURES)), config=mixtral_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


# ---------------------------------------------------------------------------------------------
# Active parameters per token, measured on the reference implementation
# ---------------------------------------------------------------------------------------------

def test_active_is_total_minus_the_idle_experts_measured_on_the_model() -> None:
    # One expert's size in one layer, read off transformers' stacked tensors (one slice of each), times
    # the experts a token leaves idle, times the layers: the total minus that is the active count.
    for name in mixtral.FAMILY.checkpoints:
        config = configs.load(name)
        model = reference.build("MixtralForCausalLM", config)
        values = registry.checkpoint(name).values
        experts = model.model.layers[0].mlp.experts
        one_expert = experts.gate_up_proj[0].numel() + experts.down_proj[0].numel()
        idle = sum((e.gate_up_proj.shape[0] - values[X_a]) * one_expert for e in
                   (layer.mlp.experts for layer in model.model.layers))
        assert mixtral.ACTIVE["MixtralForCausalLM"].count(values) == reference.total(model) - idle
        assert model.model.layers[0].mlp.gate.top_k == values[X_a]


def used_by_one_token(config: dict, token: int) -> tuple[int, list[int]]:
    """One decoding step of a small Mixtral with real weights: a first token goes into the cache (no
    gradient), then the next token runs, and the parameter entries whose gradient is not zero are
    the weights its forward pass used (the router's picks, not the idle experts; one row of the
    embedding table). Also the experts picked in each layer. With a single position and no cache,
    q_proj and k_proj would get no gradient: softmax over one key is 1, whatever the key. The router
    is counted whole once the hook has seen it score every expert: the weights of the experts it
    passes over get a gradient that is zero but for rounding (the top-k weights are renormalized, so
    the other logits cancel out), so their gradient cannot tell."""
    torch.manual_seed(token)
    model = transformers.MixtralForCausalLM(transformers.AutoConfig.for_model(**config)).eval()
    with torch.no_grad():
        cache = model(torch.tensor([[token + 1]]), use_cache=True).past_key_values
    picked: list[int] = []

    def record(module, inputs, output):
        logits, _, indices = output
        assert logits.shape == (1, module.weight.shape[0])  # one logit per expert: every row read
        picked.append(len(set(indices.flatten().tolist())))  # the experts the one token uses

    for layer in model.model.layers:
        layer.mlp.gate.register_forward_hook(record)
    logits = model(torch.tensor([[token]]), past_key_values=cache, use_cache=True).logits
    logits.sum().backward()
    used = sum(p.numel() if name.endswith("mlp.gate.weight") else int((p.grad != 0).sum())
               for name, p in model.named_parameters() if p.grad is not None)
    return used, picked


@pytest.mark.parametrize("experts, active", [(8, 2), (4, 3), (5, 5), (6, 2)])
def test_active_count_is_what_one_token_uses(experts: int, active: int) -> None:
    config = {"model_type": "mixtral", "vocab_size": 50, "hidden_size": 32, "intermediate_size": 24,
              "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
              "num_local_experts": experts, "num_experts_per_tok": active, "attn_implementation": "eager"}
    values = registry.resolve(config).values
    for token in (3, 17):
        used, picked = used_by_one_token(config, token)
        assert picked == [active] * config["num_hidden_layers"]  # the router's top-k, in every layer
        # The forward pass reads one row of the token table; the convention counts the whole table.
        assert used == mixtral.active_without_embedding.count(values) + values[D]
        assert used - values[D] + values[V] * values[D] == mixtral.ACTIVE["MixtralForCausalLM"].count(values)
        assert used < mixtral.ARCHITECTURES["MixtralForCausalLM"].count(values) or experts == active
    assert values[X] == experts


def test_mistral_7b_is_transformers_mistral() -> None:
    # The Mistral 7B of the "8 x 7B" reconciliation: transformers' MistralForCausalLM built with
    # Mixtral-8x7B's sizes (the two papers' Table 1 give the same), against the derivation's dense model.
    config = {**configs.load("mixtral-8x7b"), "model_type": "mistral", "architectures": ["MistralForCausalLM"]}
    model = reference.build("MistralForCausalLM", config)
    values = registry.checkpoint("mixtral-8x7b").values
    assert reference.total(model) == mixtral.mistral_7b.count(values) == 7_241_732_096
    reference.compare(mixtral.mistral_7b, values, model)  # node by node too
