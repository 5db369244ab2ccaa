"""The reference implementation (Hugging Face transformers) measured the way a derivation is built.

A helper for the tests, not a test module. It builds a transformers model on the meta device (no
memory, no initialisation, ties as the library ties) and sums ``named_parameters()`` under every node
of a :class:`~derivations.components.Part` tree, using the module paths the tree declares.

Importing this module skips the importing test module when torch or transformers is missing, and
fails it instead under CI (``CI`` set), where the cross-check must run.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import re
import sys
from collections.abc import Collection, Iterator, Mapping
from types import ModuleType

import pytest
import sympy

from derivations.components import Part, evaluate
from derivations.flops import LONGEST_CHECKED  # the compute page says how long a sequence the tests run
from derivations.symbols import P as P_SYMBOL
from profiles import under_ci


def require(name: str) -> ModuleType:
    """Import a module of the reference implementation: skip without it, fail under CI."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        reason = f"{name} is not importable ({error}): install the verify extra, pip install -e '.[verify]'"
    # Outside the except block, so that the report is the reason alone, not a chained traceback.
    if under_ci():
        pytest.fail(reason, pytrace=False)  # under CI a missing reference is a broken setup
    pytest.skip(reason, allow_module_level=True)


torch = require("torch")
transformers = require("transformers")
# What every model class imports (about two seconds), imported with this module: a cost of each worker's start, not
# of the first family whose test a worker happens to run (benchmarks/suite.py tells the two apart).
require("transformers.modeling_utils")
hf_init = require("transformers.initialization")
# One thread a process: the suite runs a process a core, and the models it runs on CPU are small (threads that
# outnumber the cores cost more than they bring).
torch.set_num_threads(1)

# Architectures that are a transformers class called with extra arguments.
VARIANTS = {"BertModelWithoutPooler": ("BertModel", {"add_pooling_layer": False}),
            # The name t5-3b's and t5-11b's configs still carry; transformers 5.x has only the new one.
            "T5WithLMHeadModel": ("T5ForConditionalGeneration", {})}


# ---------------------------------------------------------------------------------------------
# Building the model
# ---------------------------------------------------------------------------------------------

def build(architecture: str, config: Mapping, device: str = "meta") -> torch.nn.Module:
    """``architecture`` built from a config.json dict, on the meta device (or another ``device``).

    ``with torch.device("meta")`` (not accelerate's ``init_empty_weights``, which does not tie in
    transformers 5.x) lets ``post_init`` tie the decoder to the embeddings as a real load does. The
    attention and the experts run their eager implementations (the parameters are the same whichever
    runs): the ones whose matrix products FlopCounterMode sees (see :func:`forward_flops`).
    """
    class_name, kwargs = VARIANTS.get(architecture, (architecture, {}))
    # for_model picks the config class from config["model_type"] and applies its defaults, as
    # from_pretrained does for a config.json.
    if device != "meta":  # real weights in the default float32: a config's bfloat16 would mix dtypes on CPU
        config = {k: v for k, v in config.items() if k not in ("torch_dtype", "dtype")}
    hf_config = transformers.AutoConfig.for_model(**config)
    model_class = getattr(transformers, class_name)
    # A class of one tower of a pair (CLIPTextModel on a CLIP config) reads that tower's sub-config, as from_pretrained
    # gives it (its config class's base_config_key).
    key = getattr(model_class.config_class, "base_config_key", None)
    if key and not isinstance(hf_config, model_class.config_class) and hasattr(hf_config, key):
        hf_config = getattr(hf_config, key)
    # ... or, without one, the sub-config of the class's model_type (Gemma3ForCausalLM on a gemma3 config: its
    # text_config, as from_pretrained finds it).
    elif not isinstance(hf_config, model_class.config_class):
        own = [value for value in vars(hf_config).values() if isinstance(value, transformers.PreTrainedConfig)
               and value.model_type == model_class.config_class.model_type]
        hf_config = own[0] if own else hf_config
    hf_config._attn_implementation = "eager"
    hf_config._experts_implementation = "eager"
    with torch.device(device), (_drawing_nothing() if device == "meta" else contextlib.nullcontext()):
        return model_class(hf_config, **kwargs)


@contextlib.contextmanager
def _drawing_nothing() -> Iterator[None]:
    """torch's and transformers' initializers made to do nothing: on the meta device a tensor holds no data, so they
    draw nothing, yet they took four fifths of a build's time (a call each tensor). Only the initializers: the model's
    own post_init still runs (it ties the head to the embeddings, and gathers the tied keys)."""
    def nothing(tensor, *args, **kwargs):
        return tensor

    kept: list[tuple[object, str, object]] = []
    modules = [sys.modules[name] for name in hf_init.TORCH_MODULES_TO_PATCH if name in sys.modules]
    try:
        for module in modules:
            for name in hf_init.TORCH_INIT_FUNCTIONS:
                if hasattr(module, name):
                    kept.append((module, name, getattr(module, name)))
                    setattr(module, name, nothing)
        # transformers' own initializers call the originals it recorded at import.
        for name, function in list(hf_init.TORCH_INIT_FUNCTIONS.items()):
            kept.append((hf_init.TORCH_INIT_FUNCTIONS, name, function))
            hf_init.TORCH_INIT_FUNCTIONS[name] = nothing
        yield
    finally:
        for owner, name, original in reversed(kept):
            if isinstance(owner, dict):
                owner[name] = original
            else:
                setattr(owner, name, original)


def builds_and_runs(config: Mapping) -> bool:
    """Whether transformers builds the causal LM of a small config (real weights, on the CPU) and runs one forward
    pass on it: what a reader must accept. (A decoder's reader refuses what fails here.)"""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
            with torch.no_grad():
                model(torch.tensor([[1, 2, 3]]))
    except Exception:  # the config class, the constructor or the forward pass refuses it
        return False
    return True


def total(model: torch.nn.Module) -> int:
    """Trainable parameters, each tensor once (``parameters()`` de-duplicates tied tensors)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# ---------------------------------------------------------------------------------------------
# Mapping the tree onto parameter names
# ---------------------------------------------------------------------------------------------

def patterns(root: Part, names: Collection[str] = ()) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Parameter-name regexes per node, and the one regex of each leaf that has a path.

    Only nodes that reach a module are listed: a node with a path, or a group whose descendants have
    one. A node with a path covers that module (or parameter); a group without one covers what its
    children cover. A repeated node with a path is a ModuleList: ``layer`` covers ``layer\\.\\d+``, or,
    if it selects its copies (:attr:`Part.copies`), the numbers of the copies that the parameter
    ``names`` show to have (or to lack) the selected path.
    """
    nodes: dict[str, list[str]] = {}
    leaves: dict[str, str] = {}

    def visit(part: Part, qualified: str, module: str) -> list[str]:
        if part.path is not None:
            module = f"{module}\\.{re.escape(part.path)}" if module else re.escape(part.path)
            if part.copies:
                module += _selected(module, part.copies, names)
            elif part.repeat != 1:
                module += r"\.\d+"
        else:
            # Without a module of its own the copies of a repeated node cannot be told apart.
            assert part.repeat == 1, f"{qualified}: repeated but has no module path"
        covered = [p for c in part.children for p in visit(c, f"{qualified}.{c.name}", module)]
        if part.path is not None:
            covered = [module]
            if part.expr is not None:
                leaves[qualified] = module
        if covered:
            nodes[qualified] = covered
        return covered

    visit(root, root.name, "")
    return nodes, leaves


def _selected(module: str, copies: str, names: Collection[str]) -> str:
    """The regex of the copies of ``module`` (a ModuleList) that have ``copies``, or lack it after "!"."""
    wanted = copies.removeprefix("!")
    every = {m[1] for name in names if (m := re.match(rf"{module}\.(\d+)\.", name))}
    having = {m[1] for name in names if (m := re.match(rf"{module}\.(\d+)\.{re.escape(wanted)}(\.|$)", name))}
    chosen = sorted(every - having if copies.startswith("!") else having, key=int)
    return rf"\.(?:{'|'.join(chosen)})" if chosen else r"\.(?!)"  # (?!) matches nothing: no such copy


@functools.lru_cache(maxsize=4096)
def _covering(patterns: tuple[str, ...]) -> re.Pattern:
    """The parameters any of ``patterns`` names, or inside those modules: one regex, compiled once (the check runs
    it on every name of every model)."""
    return re.compile(rf"(?:{'|'.join(patterns)})(?:\..+)?")


# Leaves that the derivation keeps outside the module transformers stores them in: T5 keeps a stack's
# relative position bias in the first block's attention, and the derivation counts it once per stack,
# beside the repeated block, not in every copy of it.
HOISTED = {"relative_bias"}


def reference_counts(root: Part, model: torch.nn.Module) -> dict[str, int]:
    """Per node of ``root`` (see :func:`patterns`), the parameters of ``model`` it covers.

    Asserts first that each named parameter falls under exactly one leaf: none missed by the
    derivation, none counted twice. A node covers the parameters inside its modules; of those, only a
    :data:`HOISTED` leaf's may belong to a leaf elsewhere in the tree (they are counted there).
    """
    # Tied tensors once, under the name met first; frozen ones (Marian's sinusoidal tables, which it
    # registers as parameters with requires_grad off) are not learned, so no derivation counts them.
    named = {name: p for name, p in model.named_parameters() if p.requires_grad}
    nodes, leaves = patterns(root, named)
    owner: dict[str, str] = {}
    compiled = {q: _covering((pattern,)) for q, pattern in leaves.items()}
    for name in named:
        owners = [q for q, regex in compiled.items() if regex.fullmatch(name)]
        assert len(owners) == 1, f"{name} is covered by {len(owners)} leaves: {owners}"
        owner[name] = owners[0]
    counts: dict[str, int] = {}
    for q, pats in nodes.items():
        regex = _covering(tuple(pats))
        inside = [name for name in named if regex.fullmatch(name)]
        foreign = {owner[name] for name in inside if not _below(owner[name], q)}
        assert all(leaf.rsplit(".", 1)[-1] in HOISTED for leaf in foreign), f"{q} holds parameters of {foreign}"
        counts[q] = sum(named[name].numel() for name in inside if _below(owner[name], q))
    return counts


def _below(qualified: str, node: str) -> bool:
    """``qualified`` is ``node`` or a part inside it (dotted names of the tree)."""
    return qualified == node or qualified.startswith(node + ".")


def compare(part: Part, values: Mapping[sympy.Symbol, int], model: torch.nn.Module) -> None:
    """The derivation equals the model: in total, and at every node that reaches a module."""
    assert part.count(values) == total(model)
    derived, measured = derived_counts(part, values), reference_counts(part, model)
    assert derived.keys() == measured.keys()
    mismatched = {q: (derived[q], measured[q]) for q in derived if derived[q] != measured[q]}
    assert not mismatched, f"node: (derivation, transformers) {mismatched}"


def check(architecture: str, config: Mapping) -> None:
    """The derivation equals transformers for ``architecture`` built from the config.json dict ``config``,
    in total and node by node, and so do the FLOPs of one forward (:func:`check_flops`); the derivation is
    reached through ``derivations.registry.resolve``, config reading, layout and class selection included."""
    from derivations import registry

    resolved = registry.resolve(config, architecture)
    model = build(architecture, config)
    compare(resolved.part, resolved.values, model)
    if sampled(architecture, config):
        check_flops(architecture, config, model, resolved)
    if sampled(architecture, config, 1) and not mixture(config.get("model_type")):
        check_cache(architecture, config, model)


def sampled(architecture: str, config: Mapping, which: int = 0) -> bool:
    """One check in FLOPS_SAMPLE also runs the forward and compares its FLOPs (``which`` 0); one in
    CACHE_SAMPLE the key/value cache it returns (``which`` 1); chosen by a hash, so that a failure reproduces:
    running every one would cost the suite more than its time allows. Every class of every family is run on its
    example checkpoint in tests/test_reference_flops.py, every caching family's cache (lengths below, at and past
    its windows, and random windows) in tests/test_reference_memory.py."""
    every = FLOPS_SAMPLE if which == 0 else CACHE_SAMPLE
    return _digest(architecture, config) % every == which


# A quarter as many in `make test` (tests/profiles.py): the dedicated modules above run every family's forward.
FLOPS_SAMPLE = 16 if under_ci() else 64
CACHE_SAMPLE = 32 if under_ci() else 128


def _digest(architecture: str, config: Mapping) -> int:
    import hashlib

    return int(hashlib.sha256(repr((architecture, sorted(config.items(), key=str))).encode()).hexdigest(), 16)


# Models whose forward picks tensors by their values, which the meta device does not hold: the mixtures of
# experts (routing) and the classes a family's spec names (T5's sequence classifier finds the end-of-sequence
# tokens). They run on CPU, with random weights, where they are small enough to build in a moment; the large ones
# are checked shrunk (tests/test_reference_flops.py).
CPU_LIMIT = 40_000_000  # parameters (one layer of each stack of mBART-large, its table cut to 512 rows: 33M)


@functools.cache
def mixture(model_type: str | None) -> bool:
    """The model_type's classes route tokens to experts (X experts in its base class's count)."""
    from derivations import configs, registry
    from derivations.symbols import X

    if model_type not in configs.READERS:
        return False
    family = registry.of_model_type(model_type)
    return X in family.architectures[family.base].total.free_symbols


def image_tokens(model_type: str | None):
    """The tokens one image is, for a model_type that reads images (None for one that reads tokens)."""
    from derivations import configs, registry

    return registry.of_model_type(model_type).image_tokens if model_type in configs.READERS else None


@functools.cache
def encoder(model_type: str | None) -> bool:
    """The model_type's base class reads its input with an encoder (BERT and its kin, T5, Marian): an attention
    whose queries see every key of their own sequence, where a decoder's see only those before them."""
    from derivations import configs, registry

    if model_type not in configs.READERS:
        return False
    family = registry.of_model_type(model_type)
    return any(not op.causal and op.keys is None
               for _, part, _ in family.architectures[family.base].walk() for op in part.ops)


def spec_of(model_type: str | None):
    """The spec (tests/specs/) of the family whose reader reads ``model_type``; for a tower's sub-config (CLIP's
    clip_text_model, which the one-tower classes are built from), the pair's."""
    from derivations import configs, registry
    from spec import Spec, specs

    if model_type not in configs.READERS:
        pair = TOWERS.get(model_type)
        return specs()[pair] if pair in specs() else Spec(family=str(model_type))
    return specs()[registry.of_model_type(model_type).name]


# The model_types of a pair's tower configs (the one-tower classes are built from them), and the pair's.
TOWERS = {"clip_text_model": "clip", "clip_vision_model": "clip", "siglip_text_model": "siglip",
          "siglip_vision_model": "siglip"}


def data_dependent(architecture: str, config: Mapping) -> bool:
    """The class's forward reads the values of its weights or tokens: it must run on CPU to be measured."""
    model_type = config.get("model_type")
    return mixture(model_type) or architecture in spec_of(model_type).data_dependent


# ---------------------------------------------------------------------------------------------
# Configs cut down to run: fewer layers, and a mixture narrowed
# ---------------------------------------------------------------------------------------------

# The fields that set the depth, as the families' configs name them.
DEPTH_FIELDS = ("num_hidden_layers", "n_layer", "num_layers", "num_decoder_layers", "encoder_layers", "decoder_layers",
                "n_layers")
# The lists of one entry a layer, cut with the depth (transformers checks their length against it).
PER_LAYER_FIELDS = ("layer_types", "no_rope_layers")
# Small widths for the mixtures, which run on CPU with real weights: every field that sets the layout (experts,
# experts per token, groups, shared experts, dense first layers) stays as published.
NARROW = {"hidden_size": 64, "intermediate_size": 64, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 32,
          "vocab_size": 256, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "kv_lora_rank": 16,
          "q_lora_rank": 24, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 16}
# Eight experts, two a token, in two groups of which one is used (DeepSeek-V3's group-limited routing).
FEW_EXPERTS = {"num_local_experts": 8, "num_experts": 8, "n_routed_experts": 8, "num_experts_per_tok": 2, "n_group": 2,
               "topk_group": 1}


# A model that joins a vision tower to a language model runs on CPU (its forward finds the image's tokens by the
# values of the ids): each sub-config narrowed, the image as published (its patches and the tokens it becomes).
NARROW_SUB = {"text_config": {"hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 4,
                              "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 256},
              "vision_config": {"hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 4}}
# ... and what a composite's narrowed language model needs beside (Qwen2.5-VL's rotary sections: half of a head of
# 16, as the released [16, 24, 24] are of 128; its layers, which Qwen2_5_VLTextConfig's default makes 80).
NARROW_EXTRA = {"qwen2_5_vl": {"text_config": {"rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
                                               "num_hidden_layers": 1}}}
# ... and what replaces a released sub-config's own, set over the narrowed widths: Qwen3-VL's text_config writes its
# rotary sections, [24, 20, 20] of a head of 128, which transformers prefers to rope_parameters (half of the narrowed
# head of 16); Llama 4's tower folds each 2 x 2 patches into one token of 4 D_v features, which its adapter's first
# matrix reads (intermediate_size: 4 x 64), and its adapter's and projector's widths (projector_input_dim,
# projector_output_dim, vision_output_dim) and the dense layers' (intermediate_size_mlp) narrowed.
NARROW_OVER = {"qwen3_vl": {"text_config": {"rope_scaling": {"rope_type": "default", "mrope_interleaved": True,
                                                             "mrope_section": [2, 3, 3]}}},
               "llama4": {"vision_config": {"intermediate_size": 256, "projector_input_dim": 64,
                                            "projector_output_dim": 64, "vision_output_dim": 64},
                          "text_config": {"intermediate_size_mlp": 64}}}


def composite(config: Mapping) -> bool:
    """Whether the config's model joins a vision tower to a language model: its reader reads the tokens an image
    becomes among the text's (N_i), where a pair's towers (CLIP's) each read their own input."""
    from derivations import configs

    model_type = config.get("model_type")
    return model_type in configs.READERS and "N_i" in configs.READERS[model_type].fields


def shallow(config: dict, depth: int = 2) -> dict:
    """The config with at most ``depth`` layers in each stack (and, for a mixture of experts or a model that joins a
    vision tower to a language model, small widths: it runs on CPU); everything else as published."""
    out = {k: (min(v, depth) if k in DEPTH_FIELDS and isinstance(v, int) else v) for k, v in config.items()}
    if composite(config):
        out |= {k: {**shallow(out.get(k) or {}, depth), **narrow} for k, narrow in NARROW_SUB.items()}
        # One precision for the whole model: AutoModel.from_config builds a sub-model in its sub-config's torch_dtype
        # (LLaVA's text_config says float16), which a CPU forward cannot mix with the tower's float32.
        out |= {k: {f: v for f, v in out[k].items() if f not in ("torch_dtype", "dtype")} for k in NARROW_SUB}
        # The image's placeholder id inside the narrowed vocabulary (LLaVA looks it up in the token table first).
        vocabulary = NARROW_SUB["text_config"]["vocab_size"]
        if isinstance(out.get("image_token_index"), int) and out["image_token_index"] >= vocabulary:
            out["image_token_index"] = vocabulary - 1
        extra = NARROW_EXTRA.get(config.get("model_type"), {})
        out |= {k: {**extra.get(k, {}), **out[k]} if k in out else v for k, v in extra.items()}
        out |= {k: {**out.get(k, {}), **v} for k, v in NARROW_OVER.get(config.get("model_type"), {}).items()}
    out |= {k: out[k][:depth] for k in PER_LAYER_FIELDS if isinstance(out.get(k), list)}
    if mixture(config.get("model_type")):
        out |= {k: v for k, v in NARROW.items() if out.get(k) is not None}
        if isinstance(out.get("pad_token_id"), int) and out["pad_token_id"] >= out.get("vocab_size", 0):
            out["pad_token_id"] = None  # outside the narrowed vocabulary; the padding row sets no size
        if "kv_lora_rank" in out:
            out["num_key_value_heads"] = out["num_attention_heads"]  # latent attention: one key/value per head
        if "first_k_dense_replace" in out:
            out["first_k_dense_replace"] = min(out["first_k_dense_replace"], depth - 1)
    return out


def runs(resolved, config: Mapping) -> bool:
    """Whether the forward runs as the derivation describes it. Two edges that transformers builds do not: an
    encoder whose heads do not cover its width (BERT's output map is D by D: the forward fails), and a rotary
    head of 1 coordinate (the rotation's 2 broadcast over it, so the scores are over 2, not d_h)."""
    from derivations.symbols import D, H, d_h

    if image_tokens(config.get("model_type")) is not None:
        return True  # a vision transformer's output map reads H d_h, whatever the width
    values, reads = resolved.values, encoder(config.get("model_type"))
    if reads and H in values and d_h in values and values[H] * values[d_h] != values[D]:
        return False
    return not (not reads and values.get(d_h) == 1)


def lengths(architecture: str, config: Mapping, device: str = "meta") -> tuple[int, int]:
    """A sequence length and a decoder length for one check, varied from config to config (as a hash of
    both, so that a failure reproduces): from 1 to LONGEST_CHECKED on the meta device, where no length costs
    anything; up to 9 on CPU."""
    digest = _digest(architecture, config) // 16  # CI's FLOPS_SAMPLE: the same lengths in `make test` and in CI
    choices = (1, 2, 7, 64, 333, 1024, LONGEST_CHECKED) if device == "meta" else (1, 2, 5, 9)
    return choices[digest % len(choices)], choices[(digest // 7) % len(choices)]


def check_flops(architecture: str, config: Mapping, model: torch.nn.Module | None = None, resolved=None) -> bool:
    """The derived forward FLOPs of one sequence equal FlopCounterMode's count of the model's forward (eager
    attention, eager experts) at a length drawn by :func:`lengths`. Returns whether the check ran: not for a
    model that must run on CPU (data_dependent) and is larger than CPU_LIMIT (left to the shrunk checks),
    nor for a config whose forward does not run (:func:`runs`, and those transformers fails on)."""
    from derivations import flops, registry
    from derivations.symbols import N_i, P, s, s_d

    if architecture in spec_of(config.get("model_type")).no_forward:
        return False  # its FLOPs are refused (tests/spec.py)
    resolved = resolved if resolved is not None else registry.resolve(config, architecture)
    if not runs(resolved, config):
        return False
    if data_dependent(architecture, config):
        if resolved.part.count(resolved.values) > CPU_LIMIT:
            return False
        torch.manual_seed(0)
        model = build(architecture, config, "cpu")
    elif model is None:
        model = build(architecture, config)
    device = next(model.parameters()).device.type
    tokens, target = lengths(architecture, config, device)
    # A table of P positions reads at most P tokens.
    longest = resolved.values.get(P)
    tokens, target = (tokens, target) if longest is None else (min(tokens, longest), min(target, longest))
    if architecture in spec_of(config.get("model_type")).shifted:
        target = tokens
    forward = flops.forward(resolved.part)
    # A class that reads an image among its text reads the N_i tokens it becomes before the text's.
    placeholders = resolved.values[N_i] if N_i in forward.free_symbols else None
    derived = evaluate(forward, {**resolved.values, s: tokens + (placeholders or 0), s_d: target})
    try:
        measured = forward_flops(model, architecture, tokens, target, placeholders)
    except (RuntimeError, ValueError, TypeError, AttributeError, ZeroDivisionError, IndexError):
        # Configs that transformers builds and cannot run (one relative-position bucket, no pad token for
        # RoBERTa's positions, no decoder start token): nothing executes, so there is nothing to count.
        # tests/test_reference_flops.py asserts that its checks ran: every class on each family's example
        # checkpoint, each dense family's main class at full depth, each released mixture's layout.
        return False
    assert derived == measured, f"{architecture}, s = {tokens}, s_dec = {target}: derived {derived:,}, torch {measured:,}"
    return True


# ---------------------------------------------------------------------------------------------
# What the model computes
# ---------------------------------------------------------------------------------------------

def forward_flops(model: torch.nn.Module, architecture: str, tokens: int, target: int | None = None,
                  placeholders: int | None = None) -> int:
    """The FLOPs that ``torch.utils.flop_counter.FlopCounterMode`` counts in one forward of ``model`` over one
    sequence of ``tokens`` tokens (and ``target`` decoder tokens for an encoder-decoder; ``tokens`` if None),
    with the default inputs of a user: ids and an all-ones attention mask, no cache, no encoder states for a
    decoder alone. A multiple-choice class reads one choice. On the model's own device: meta where it runs
    there (no data is read), CPU for the mixtures of experts, whose routing picks tensors by their values."""
    from torch.utils.flop_counter import FlopCounterMode
    import inspect

    device = next(model.parameters()).device
    accepted = inspect.signature(model.forward).parameters
    # A class that reads images is given one of its config's size (its vision tower's tokens are the image's).
    pixels = {"pixel_values": image(model.config, device)} if "pixel_values" in accepted else {}
    # An image alone (Llama4VisionModel keeps the default main_input_name, but its forward takes no ids).
    if model.main_input_name == "pixel_values" or ("pixel_values" in accepted and "input_ids" not in accepted):
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            model(**pixels)
        return counter.get_total_flops()
    if model.main_input_name == "input_features":  # speech: one window of the config's frames, the decoder's tokens
        inputs = {"input_features": features(model.config, device)}
        if "decoder_input_ids" in accepted:
            # With a mask of ones, as for a decoder alone (no search for packed sequences on the meta device).
            inputs["decoder_input_ids"] = torch.zeros((1, tokens), dtype=torch.long, device=device)
            inputs["decoder_attention_mask"] = torch.ones((1, tokens), dtype=torch.long, device=device)
        if "use_cache" in accepted:
            inputs["use_cache"] = False
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            model(**inputs)
        return counter.get_total_flops()
    shape = (1, 1, tokens) if architecture.endswith("MultipleChoice") else (1, tokens)
    vocabulary = model.config.get_text_config().vocab_size
    ids = (torch.zeros(shape, dtype=torch.long, device=device) if device.type == "meta"
           else torch.randint(0, vocabulary, shape, device=device))
    classifies = architecture in spec_of(model.config.model_type).data_dependent
    if placeholders is not None:  # the image's N_i placeholder tokens, then the text's (none of them the placeholder)
        ids[ids == model.config.image_token_id] = 0
        ids = torch.cat([torch.full((1, placeholders), model.config.image_token_id, device=device), ids], dim=1)
        shape = ids.shape
    if classifies and architecture.endswith("ForSequenceClassification") and placeholders is None:
        # It classifies the state at the end-of-sequence token (T5's, BART's): one, the last.
        ids[..., :-1] = ids[..., :-1].remainder(vocabulary - 1)
        ids[..., :-1] += ids[..., :-1] >= model.config.eos_token_id
        ids[..., -1] = model.config.eos_token_id
    inputs = {"input_ids": ids, **pixels}
    masked = spec_of(model.config.model_type).masked
    if not bidirectional(model) or masked is True or architecture in (masked or ()):
        # All ones, as a tokenizer gives: without it a decoder looks for packed sequences in the position ids,
        # a test of their values that the meta device cannot answer. (An encoder given one tests whether it
        # is all ones instead: no mask is the same mask.)
        inputs["attention_mask"] = torch.ones(shape, dtype=torch.long, device=device)
    if "decoder_input_ids" in accepted and model.config.is_encoder_decoder and architecture not in spec_of(model.config.model_type).shifted:
        decoder = (1, tokens if target is None else target)
        # T5 (and Marian) start from the decoder's start token; any ids count the same.
        inputs["decoder_input_ids"] = (torch.zeros(decoder, dtype=torch.long, device=device) if device.type == "meta"
                                       else torch.randint(0, vocabulary, decoder, device=device))
    if "use_cache" in accepted:
        inputs["use_cache"] = False
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(**inputs)
    return counter.get_total_flops()


def image(config, device: torch.device) -> torch.Tensor:
    """One image of the size a vision config declares (``image_size``: one side, or height and width); a pair's
    (CLIP's) vision tower's."""
    config = getattr(config, "vision_config", None) or config
    size = config.image_size
    height, width = size if isinstance(size, (list, tuple)) else (size, size)
    return torch.zeros((1, config.num_channels, height, width), device=device)


def features(config, device: torch.device) -> torch.Tensor:
    """One window of log-mel features of the size a speech config declares: num_mel_bins by twice
    max_source_positions frames (Whisper's encoder refuses any other length; its second convolution halves it)."""
    return torch.zeros((1, config.num_mel_bins, 2 * config.max_source_positions), device=device)


def check_cache(architecture: str, config: Mapping, model: torch.nn.Module | None = None) -> bool:
    """The derived key/value cache (derivations.memory.kv_cache) holds as many elements as the keys and values
    of the cache transformers returns after one forward with use_cache, at lengths drawn by :func:`lengths`
    (an encoder-decoder's source apart). Returns whether it ran: not for a class without a cache."""
    from derivations import memory, registry

    if architecture in spec_of(config.get("model_type")).no_forward:
        return False  # its forward reads an image the config does not size (tests/spec.py)
    resolved = registry.resolve(config, architecture)
    if not memory.cache_rows(resolved.part) or not runs(resolved, config):
        return False
    model = model if model is not None else build(architecture, config)
    if "use_cache" not in inspect.signature(model.forward).parameters:
        return False  # transformers' GPT-1 keeps no cache: each new token recomputes every key and value
    device = next(model.parameters()).device.type
    tokens, source = lengths(architecture, config, device)
    longest = resolved.values.get(P_SYMBOL)
    tokens, source = (tokens, source) if longest is None else (min(tokens, longest), min(source, longest))
    encoder_decoder = getattr(model.config, "is_encoder_decoder", False)
    derived = memory.kv_cache(config, architecture, tokens, source if encoder_decoder else None)
    try:
        measured = cache_elements(model, tokens, source if encoder_decoder else None)
    except (RuntimeError, ValueError, TypeError, AttributeError, ZeroDivisionError, IndexError):
        return False  # configs transformers builds and cannot run (as in check_flops): nothing is cached
    if measured is None:
        return False
    assert derived == measured, f"{architecture}, T = {tokens}: derived {derived:,} cached elements, transformers {measured:,}"
    return True


def cache_elements(model: torch.nn.Module, tokens: int, source: int | None = None) -> int | None:
    """The elements of every key and value tensor in the cache that ``model`` returns after one forward over
    ``tokens`` tokens with use_cache (an encoder-decoder: ``source`` encoder tokens, ``tokens`` decoder ones),
    batch 1: transformers' DynamicCache (with the config, so sliding-window layers keep their window), or an
    EncoderDecoderCache of two."""
    device = next(model.parameters()).device
    vocabulary = model.config.get_text_config().vocab_size

    def ids(length: int) -> torch.Tensor:
        return (torch.zeros((1, length), dtype=torch.long, device=device) if device.type == "meta"
                else torch.randint(0, vocabulary, (1, length), device=device))

    if model.main_input_name == "input_features":  # speech: the encoder reads one window, whatever ``source``
        inputs = {"input_features": features(model.config, device), "decoder_input_ids": ids(tokens),
                  "decoder_attention_mask": torch.ones((1, tokens), dtype=torch.long, device=device)}
    elif source is not None:
        inputs = {"input_ids": ids(source), "decoder_input_ids": ids(tokens)}
    else:
        inputs = {"input_ids": ids(tokens), "attention_mask": torch.ones((1, tokens), dtype=torch.long, device=device)}
    with torch.no_grad():
        cache = getattr(model(**inputs, use_cache=True), "past_key_values", None)
    if cache is None:
        return None  # a class that computes the cache and does not return it (token classifiers, span heads)
    parts = ([cache.self_attention_cache, cache.cross_attention_cache] if hasattr(cache, "cross_attention_cache")
             else [cache])
    return sum(layer.keys.numel() + layer.values.numel() for part in parts for layer in part.layers
               if layer.keys is not None)


def bidirectional(model: torch.nn.Module) -> bool:
    """The model reads its input with an encoder (BERT and its kin, T5, Marian), not a causal decoder."""
    config = model.config
    # An encoder family's class with is_decoder set, or Marian's decoder alone, is causal. A tower of a pair reads
    # as its pair does.
    return encoder(TOWERS.get(config.model_type, config.model_type)) and (config.is_encoder_decoder or not getattr(config, "is_decoder", False))


def derived_counts(root: Part, values: Mapping[sympy.Symbol, int]) -> dict[str, int]:
    """Per node that :func:`patterns` lists, the derivation's count: all copies of all enclosing parts."""
    nodes, _ = patterns(root)
    return {q: evaluate(multiplier * part.total, values)
            for q, part, multiplier in root.walk() if q in nodes}


def decode_flops(model: torch.nn.Module, cached: int, source: int | None = None, batch: int = 1) -> int:
    """The FLOPs FlopCounterMode counts in transformers' forward of ONE new token a sequence after a forward of
    ``cached`` tokens with use_cache (an encoder-decoder: ``cached`` decoder tokens over ``source`` encoder ones,
    then the new decoder token with the encoder's states and the cache: the encoder does not run again). The
    cache is the one transformers builds for that forward (a DynamicCache with the config: sliding-window layers
    keep their window). Zeros on the meta device, random ids on CPU (a mixture routes by value)."""
    from torch.utils.flop_counter import FlopCounterMode

    device = next(model.parameters()).device
    vocabulary = model.config.get_text_config().vocab_size

    def ids(length: int) -> torch.Tensor:
        return (torch.zeros((batch, length), dtype=torch.long, device=device) if device.type == "meta"
                else torch.randint(0, vocabulary, (batch, length), device=device))

    def ones(length: int) -> torch.Tensor:
        return torch.ones((batch, length), dtype=torch.long, device=device)

    with torch.no_grad():
        if model.main_input_name == "input_features":  # speech: the encoder reads one window, whatever ``source``
            audio = torch.zeros((batch, model.config.num_mel_bins, 2 * model.config.max_source_positions),
                                device=device)
            before = model(input_features=audio, decoder_input_ids=ids(cached), decoder_attention_mask=ones(cached),
                           use_cache=True)
            step = {"decoder_input_ids": ids(1), "decoder_attention_mask": ones(cached + 1),
                    "encoder_outputs": (before.encoder_last_hidden_state,)}
        elif source is None:
            before = model(input_ids=ids(cached), attention_mask=ones(cached), use_cache=True)
            step = {"input_ids": ids(1), "attention_mask": ones(cached + 1)}
        else:
            before = model(input_ids=ids(source), decoder_input_ids=ids(cached), use_cache=True)
            step = {"decoder_input_ids": ids(1), "encoder_outputs": (before.encoder_last_hidden_state,)}
        with FlopCounterMode(display=False) as counter:
            model(**step, past_key_values=before.past_key_values, use_cache=True)
    return counter.get_total_flops()
