"""What only Mixtral has, against transformers (the checks every family shares are tests/specs/mixtral.py's): its
experts are stacked tensors, its tied head is the embedding table itself, the parameters one token uses (measured on
the model, and by running it), and the Mistral 7B of its paper.

The active count is measured on a small model with real weights on the CPU; the derivation is evaluated on the same
config dict, through ``derivations.configs.resolve``.
"""

from __future__ import annotations

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import mixtral
from derivations.symbols import D, V, X, X_a

check = reference.check
torch = reference.torch
transformers = reference.transformers


def test_experts_are_stacked_tensors() -> None:
    # transformers 5.x keeps each layer's experts in two 3-D tensors (no ModuleList of experts): the
    # layout the tree's module paths follow.
    model = reference.build("MixtralModel", {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 16,
                                             "intermediate_size": 8, "num_attention_heads": 2,
                                             "num_key_value_heads": 1, "num_local_experts": 3})
    shapes = {name: tuple(p.shape) for name, p in model.named_parameters() if ".mlp." in name}
    assert shapes == {"layers.0.mlp.gate.weight": (3, 16), "layers.0.mlp.experts.gate_up_proj": (3, 16, 16),
                      "layers.0.mlp.experts.down_proj": (3, 16, 8)}


def test_tying_is_real() -> None:
    config = {"model_type": "mixtral", "num_hidden_layers": 1, "hidden_size": 64, "intermediate_size": 32,
              "vocab_size": 100, "tie_word_embeddings": True}
    model = reference.build("MixtralForCausalLM", config)
    assert model.lm_head.weight is model.model.embed_tokens.weight
    check("MixtralForCausalLM", config)


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
