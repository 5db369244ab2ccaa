"""What the model holds, derived, against what torch and transformers hold: the key/value cache transformers
returns, the tensors of every model, the state of each optimizer after a step, and the tensors autograd saves
for the backward pass. The expected numbers are torch's (element counts and storage bytes), never the
derivation's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, memory, registry, storage
from derivations.site import memory as site_memory
from derivations.components import evaluate
from derivations.symbols import D, F, H, H_r, d_h, s
from spec import specs

torch = reference.torch
shallow, FEW_EXPERTS = reference.shallow, reference.FEW_EXPERTS
FAMILIES = {name: family for name, family in registry.families().items() if name != "gpt3"}  # gpt3: GPT-2's configs

# The families whose decoder caches keys and values (GPT-1's transformers code keeps no cache).
CACHING = {name: module for name, module in FAMILIES.items()
           if memory.cache_rows(module.variants[next(iter(module.variants))][module.base])
           and name != "gpt1"}
# Enough layers for every pattern of windows in the families (Gemma 3: five local layers, then a global one).
DEPTH = 7


def example(family: str) -> tuple[str, dict]:
    """The family's main class and its example checkpoint, cut to DEPTH layers; a mixture of experts
    narrowed to run on CPU (its routing reads the weights), its layout as published."""
    module = FAMILIES[family]
    config = shallow(configs.load(module.example), DEPTH)
    if reference.mixture(config["model_type"]):
        config |= FEW_EXPERTS
        # On CPU a length past a window costs its tokens through every layer: windows of at most 64 tokens (Llama 4's
        # chunks are 8,192), the check the same below, at and past them.
        for where in (config, config.get("text_config")):  # a composite's are its language model's
            if isinstance(where, dict):
                where |= {field: min(where[field], 64) for field in ("sliding_window", "attention_chunk_size")
                          if isinstance(where.get(field), int)}
    return module.main, config


def build(architecture: str, config: dict):
    device = "cpu" if reference.mixture(config["model_type"]) else "meta"
    torch.manual_seed(0)
    return reference.build(architecture, config, device)


def windows(config: dict) -> set[int]:
    return {w for w in configs.READERS[config["model_type"]].windows(config, DEPTH) if w is not None}


# In `make test`, one caching family in two (profiles.sample).
@pytest.mark.parametrize("family", profiles.sample(sorted(CACHING), 2, 1))
def test_cache_of_every_family(family: str) -> None:
    # Lengths below, at and past each window (cached: the last window - 1 tokens), and long ones.
    architecture, config = example(family)
    model = build(architecture, config)
    # On CPU (the mixtures) the long length would cost seconds: the windows are what matter there.
    lengths = {1, 5, 333} | ({4096} if model.device.type == "meta" else set())
    lengths |= {w + d for w in windows(config) for d in (-1, 0, 1) if w + d >= 1}
    longest = registry.resolve(config, architecture).values.get(reference.P_SYMBOL)
    source = 11 if model.config.is_encoder_decoder else None
    for tokens in sorted(t for t in lengths if longest is None or t <= longest):
        derived = memory.kv_cache(config, architecture, tokens, source)
        assert derived == reference.cache_elements(model, tokens, source), f"{family}, T = {tokens}"


def test_windowed_examples_exceed_their_windows() -> None:
    # The cache test above reaches past a window for every family that has one in its example checkpoint.
    assert {f for f in CACHING if windows(example(f)[1])} >= {"mistral", "gemma2", "gemma3_text", "phi3", "gpt_oss"}


# The families whose layers may attend to a window, each with how its configs set the windows (its spec's).
WINDOWED = {name: spec.windows for name, spec in specs().items() if spec.windows is not None}
NARROW = {"hidden_size": 32, "intermediate_size": 48, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 16,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8}


def test_every_family_with_windows_draws_them():
    # A reader that reads windows (any other than the default: every layer full) has a spec that draws them.
    from derivations.reading import Reader

    # A composite's windows are its language model's, read in its text_config, and drawn by that model's spec.
    full = Reader._field_defaults["windows"]
    assert set(WINDOWED) == {name for name, family in FAMILIES.items()
                             if configs.READERS[family.model_type].windows is not full
                             and not reference.composite({"model_type": family.model_type})}


@settings(max_examples=profiles.draws(25), deadline=None)
@given(family=st.sampled_from(sorted(WINDOWED)), layers=st.integers(1, 8), tokens=st.integers(1, 40), data=st.data())
def test_random_windows(family: str, layers: int, tokens: int, data: st.DataObject) -> None:
    # Random depths, windows, layer types and switches, on small models that run on CPU.
    config = shallow(configs.load(FAMILIES[family].example), layers) | {"num_hidden_layers": layers}
    config |= {k: v for k, v in NARROW.items() if config.get(k) is not None or k == "hidden_size"}
    if reference.mixture(config["model_type"]):
        config |= FEW_EXPERTS
    WINDOWED[family](data, config, layers)
    architecture = FAMILIES[family].main
    torch.manual_seed(0)
    try:
        measured = reference.cache_elements(reference.build(architecture, config, "cpu"), tokens)
    except (ValueError, TypeError, RuntimeError, IndexError):  # a window transformers cannot run with
        with pytest.raises(configs.ConfigError):
            memory.kv_cache(config, architecture, tokens)
        return
    assert memory.kv_cache(config, architecture, tokens) == measured


# ---------------------------------------------------------------------------------------------
# The tensors of every model (what per-tensor formats and 8-bit optimizer states need)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_tensors_of_every_family(family: str) -> None:
    module = FAMILIES[family]
    config = shallow(configs.load(module.example), 2)
    for architecture in module.table_columns:
        if architecture not in module.architectures:
            continue
        resolved = registry.resolve(config, architecture)
        derived = sorted(size for size, copies, _ in memory.evaluated(resolved.part, resolved.values)
                         for _ in range(copies))
        model = reference.build(architecture, config)
        assert derived == sorted(p.numel() for p in model.parameters() if p.requires_grad), architecture


# ---------------------------------------------------------------------------------------------
# Training state after one optimizer step, on CPU
# ---------------------------------------------------------------------------------------------

SMALL = {"gpt2": {"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "n_positions": 32, "vocab_size": 300},
         "llama": {"model_type": "llama", "hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 300}}


def storage_bytes(tensors) -> int:
    """The bytes of the distinct storages behind ``tensors`` (a tensor shared by two states counts once)."""
    seen = {}
    for t in tensors:
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
    return sum(seen.values())


def step(model, optimizer) -> None:
    ids = torch.randint(0, 300, (2, 9))
    model(input_ids=ids, labels=ids).loss.backward()
    optimizer.step()


def states(optimizer) -> list:
    """Every tensor the optimizer keeps (not Adam's step counters, 0-dimensional)."""
    return [v for state in optimizer.state.values() for v in state.values() if torch.is_tensor(v) and v.dim() > 0]


def held(model, optimizer) -> dict[str, int]:
    return {"weights": storage_bytes(list(model.parameters())),
            "gradients": storage_bytes([p.grad for p in model.parameters()]), "states": storage_bytes(states(optimizer))}


@pytest.mark.parametrize("name", ["adam", "sgd", "adam-mixed", "adam-mixed-fp32-grads"])
@pytest.mark.parametrize("family", sorted(SMALL))
def test_training_state(family: str, name: str) -> None:
    config = SMALL[family]
    architecture = {"gpt2": "GPT2LMHeadModel", "llama": "LlamaForCausalLM"}[family]
    resolved = registry.resolve(config, architecture)
    parameters = resolved.total
    torch.manual_seed(0)
    model = reference.build(architecture, config, "cpu")
    optimizer_spec = storage.OPTIMIZERS[name]
    if name in ("adam", "sgd"):
        optimizer = (torch.optim.AdamW(model.parameters()) if name == "adam"
                     else torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
        step(model, optimizer)
        measured = held(model, optimizer)
    else:
        # Mixed precision as ZeRO describes it: bf16 weights and gradients in the model, an fp32 master copy
        # that AdamW updates (its moments fp32 too), the gradients copied to it (in fp32 for the variant).
        model.to(torch.bfloat16)
        master = [p.detach().float().requires_grad_() for p in model.parameters()]
        optimizer = torch.optim.AdamW(master)
        ids = torch.randint(0, 300, (2, 9))
        model(input_ids=ids, labels=ids).loss.backward()
        if name.endswith("fp32-grads"):
            # Gradients kept in fp32 (accumulated there over micro-batches); the 16-bit ones are let go.
            grads = [p.grad.float() for p in model.parameters()]
            for p in model.parameters():
                p.grad = None
        else:
            grads = [p.grad for p in model.parameters()]
        for m, g in zip(master, grads):
            m.grad = g.float()
        optimizer.step()
        for m in master:
            m.grad = None  # an fp32 copy of a 16-bit gradient is the step's scratch, freed after it
        measured = {"weights": storage_bytes(list(model.parameters())), "gradients": storage_bytes(grads),
                    "states": storage_bytes(states(optimizer) + master)}
    assert measured == {"weights": optimizer_spec.weights * parameters,
                        "gradients": optimizer_spec.gradients * parameters,
                        "states": optimizer_spec.states * parameters}


@pytest.mark.parametrize("family", sorted(SMALL))
def test_adam_8bit(family: str) -> None:
    bnb = reference.require("bitsandbytes")
    config = SMALL[family]
    architecture = {"gpt2": "GPT2LMHeadModel", "llama": "LlamaForCausalLM"}[family]
    resolved = registry.resolve(config, architecture)
    torch.manual_seed(0)
    model = reference.build(architecture, config, "cpu")
    optimizer = bnb.optim.Adam8bit(model.parameters())
    step(model, optimizer)
    sizes = [(size, copies) for size, copies, _ in memory.evaluated(resolved.part, resolved.values)]
    assert held(model, optimizer)["states"] == storage.adam_8bit_states(sizes)
    # Some tensors below the 8-bit threshold, some above: both branches of the rule are measured.
    assert min(size for size, _ in sizes) < storage.ADAM_8BIT_MIN_SIZE <= max(size for size, _ in sizes)


# ---------------------------------------------------------------------------------------------
# Activations saved for the backward pass
# ---------------------------------------------------------------------------------------------

def saved_per_layer(model, layers, ids) -> list[int]:
    """Bytes of the distinct storages autograd saves in each layer's forward (not the weights), each storage
    counted in the first layer that saves it."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen: set[int] = set()
    per_layer = [0] * len(layers)
    current = [None]

    def pack(tensor):
        pointer = tensor.untyped_storage().data_ptr()
        if pointer not in weights and pointer not in seen:
            seen.add(pointer)
            if current[0] is not None:
                per_layer[current[0]] += tensor.untyped_storage().nbytes()
        return tensor

    for i, layer in enumerate(layers):
        layer.register_forward_pre_hook(lambda module, args, i=i: current.__setitem__(0, i))
        layer.register_forward_hook(lambda module, args, output: current.__setitem__(0, None))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        model(input_ids=ids, use_cache=False)
    return per_layer


@settings(max_examples=profiles.draws(10), deadline=None)
@given(heads=st.sampled_from([1, 2, 4]), head_size=st.sampled_from([4, 8]), inner=st.integers(8, 80),
       tokens=st.integers(1, 24), batch=st.integers(1, 2), dropout=st.sampled_from([0.0, 0.1]))
def test_gpt2_saved_tensors(heads: int, head_size: int, inner: int, tokens: int, batch: int, dropout: float) -> None:
    width = heads * head_size
    config = {"model_type": "gpt2", "n_embd": width, "n_head": heads, "n_inner": inner, "n_layer": 2,
              "n_positions": 32, "vocab_size": 100, "attn_pdrop": dropout, "resid_pdrop": dropout, "embd_pdrop": 0.0}
    torch.manual_seed(0)
    model = reference.build("GPT2LMHeadModel", config, "cpu").train()
    measured = saved_per_layer(model, model.transformer.h, torch.randint(0, 100, (batch, tokens)))
    elements = sum(site_memory.gpt2_saved.values()) + (site_memory.gpt2_dropout if dropout else 0)
    derived = 4 * batch * evaluate(elements, {s: tokens, D: width, F: inner, H: heads})
    assert measured == [derived, derived]


@settings(max_examples=profiles.draws(20), deadline=None)
@given(heads=st.sampled_from([2, 4]), kv=st.sampled_from([1, 2]), head_size=st.sampled_from([4, 8]),
       width=st.sampled_from([16, 32]), inner=st.integers(8, 80), tokens=st.integers(1, 24), batch=st.integers(1, 2))
def test_llama_saved_tensors(heads: int, kv: int, head_size: int, width: int, inner: int, tokens: int,
                             batch: int) -> None:
    config = {"model_type": "llama", "hidden_size": width, "intermediate_size": inner, "num_attention_heads": heads,
              "num_key_value_heads": kv, "head_dim": head_size, "num_hidden_layers": 2, "vocab_size": 100}
    torch.manual_seed(0)
    model = reference.build("LlamaForCausalLM", config, "cpu").train()
    measured = saved_per_layer(model, model.model.layers, torch.randint(0, 100, (batch, tokens)))
    values = {s: tokens, D: width, F: inner, H: heads, d_h: head_size, H_r: site_memory.repeated_heads(heads, kv, batch)}
    layer = 4 * batch * evaluate(sum(site_memory.llama_saved.values()), values)
    # The rotary cos and sin are the model's, kept first by layer 0 (batch 1: they do not depend on the batch).
    rotary = 4 * evaluate(site_memory.llama_rotary, values)
    assert measured == [layer + rotary, layer]

