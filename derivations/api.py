"""What the command line answers (count, flops, memory, fit), as four functions that return results.

`derivations.count`, `derivations.flop_count`, `derivations.memory_use` and `derivations.fit` are these
functions, exported by
the package (importing `derivations` does not import SymPy; the first call does). Each takes the model first,
as any of:

- a bundled checkpoint name, such as `"bert-base-chinese"` or `"llama-2-7b"` (the configs in
  `derivations/checkpoints/`);
- a path to a `config.json`, as a `str` or a `pathlib.Path`;
- a config as a dict, what `json.load` gives for a `config.json`;
- a Hugging Face model id, such as `"Qwen/Qwen2.5-7B"`: its `config.json` from the local Hugging Face cache,
  else fetched alone from the hub (with the `hub` extra installed), at `revision` if one is given.

Each returns a [`Result`][derivations.api.Result]: the numbers of the command line's `--json` object as
attributes, that object itself, and, for a count and for FLOPs, one [`Component`][derivations.api.Component]
per tensor with its SymPy expression. Input that describes no model raises
[`ConfigError`][derivations.configs.ConfigError] with the command line's one-line message.

A config that transformers would refuse only in a field that sets no size (a dropout of 2.5, an eps of null, a
token id of NaN) is answered all the same, as the command line answers it: the line the command prints on stderr
is the result's `notes`, and is issued as a [`ConfigWarning`][derivations.api.ConfigWarning] (a `UserWarning`;
`warnings.simplefilter("error", ConfigWarning)` turns it into an exception).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import sympy

from . import answers, configs, parallel, registry, render
from .validation import ConfigWarning  # noqa: F401 (the API's warning: derivations.api.ConfigWarning)


@dataclass(frozen=True)
class Component:
    """One component of a count or of FLOPs: a leaf of the derivation, a tensor with its copies folded in.

    Attributes:
        name: Its dotted name, as the command line's table shows it (`"bert.embeddings.word"`).
        expr: Its formula, a SymPy expression in the symbols of `derivations.symbols` (the config's sizes,
            and for FLOPs the sequence's length `s`, an encoder-decoder's decoder length `s_d`): parameters,
            or the forward FLOPs of one sequence.
        latex: That formula in LaTeX.
        value: The formula's value on the model's config: parameters, or forward FLOPs for the whole batch.

    Examples:
        >>> import derivations
        >>> derivations.count("bert-base-chinese").components[0]
        Component(name='bert.embeddings.word', expr=D*V, latex='D V', value=16226304)
    """

    name: str
    expr: sympy.Expr
    latex: str
    value: int


class Result:
    """What [`count`][derivations.api.count], [`flop_count`][derivations.api.flop_count] or
    [`memory_use`][derivations.api.memory_use] answers: the command line's `--json` object, its keys as
    attributes.

    Each function lists the keys of its result. A key the result does not have raises `AttributeError`, which
    names the keys it has.

    Attributes:
        components (tuple[Component, ...]): One [`Component`][derivations.api.Component] per tensor, in the
            order of the command line's table (a count and FLOPs); empty for memory. Each has its SymPy
            expression, where the `--json` object's `"components"` has its LaTeX alone.
        notes (tuple[str, ...]): The lines the command line adds on stderr for this answer, each also issued as a
            [`ConfigWarning`][derivations.api.ConfigWarning]: a field that transformers would refuse though it
            sets no size, a length past the model's context. Empty for most configs.

    Examples:
        >>> import derivations
        >>> result = derivations.count("mixtral-8x7b")
        >>> result
        Result(architecture='MixtralForCausalLM', total=46702792704, active=12879925248)
        >>> result.active
        12879925248
        >>> result.json()["active"]
        12879925248
    """

    def __init__(self, data: dict, components: tuple[Component, ...] = (), notes: tuple[str, ...] = ()) -> None:
        self._data = data
        self.components = components
        self.notes = notes

    def json(self) -> dict:
        """The object the command line's `--json` prints, equal to it: the keys, and `"components"` as
        dicts (`name`, `latex`, and `count` or `flops`).

        Returns:
            The object itself (not a copy).
        """
        return self._data

    def __getattr__(self, name: str):
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"no {name!r} in this result (it has {', '.join(self._data)})") from None

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._data.items() if k != "components")
        return f"{type(self).__name__}({shown})"


def _positive(name: str, value: int | None) -> int | None:
    """A length or a batch, checked as the command line checks it, its refusal naming the argument."""
    if value is None:
        return None
    try:
        return answers.length(str(value))
    except configs.ConfigError as error:
        raise configs.ConfigError(f"{name}: {error}") from None


def _notes(config: Mapping, architecture: str, seq: int | None = None, data: Mapping | None = None) -> tuple[str, ...]:
    """The command line's lines on stderr for this answer (derivations.validation's note, a length past the
    context, eager attention answered where sdpa was meant: ``data``'s attention_note), each issued as a
    ConfigWarning where the caller called."""
    found = [configs.note(config, architecture), None if seq is None else answers.beyond_context(config, seq)]
    if data is not None and data.get("attention_note"):
        found.append(f"note: {data['attention_note']}")
    notes = tuple(note for note in found if note)
    for note in notes:
        warnings.warn(note.removeprefix("note: "), ConfigWarning, stacklevel=3)
    return notes


def _config(model: str | Path | Mapping, revision: str | None) -> dict:
    if isinstance(model, Mapping):
        return dict(model)
    return configs.load(str(model), revision)


def count(model: str | Path | Mapping, architecture: str | None = None, revision: str | None = None) -> Result:
    """The parameters of a model, exactly, component by component: what `derivations count` answers.

    Args:
        model: A bundled checkpoint name, a path to a `config.json`, a config as a dict, or a Hugging Face
            model id ([the models it reads][derivations.api]).
        architecture: The class to count, such as `"BertModel"` or `"GPT2LMHeadModel"`; by default the
            first of the config's `architectures`, else the family's base model.
        revision: A branch, tag or commit of a Hugging Face model id; by default `main`.

    Returns:
        The count, in these attributes:

        - `architecture`: the class counted.
        - `total`: its parameters, a tensor tied to another counted once.
        - `active`: for a mixture of experts alone, the parameters that one token goes through.
        - `components`: one [`Component`][derivations.api.Component] for each tensor of the model; their values
          add up to `total`.

    Raises:
        configs.ConfigError: The model is not found, its config describes no model, or it has no such
            architecture.

    Examples:
        >>> import derivations
        >>> derivations.count("gpt2").total
        124439808
        >>> derivations.count("bert-base-chinese", architecture="BertModel").total
        102267648
        >>> derivations.count({"model_type": "gpt2", "n_layer": 6}).total
        81912576
    """
    config = _config(model, revision)
    data, _ = answers.count(config, architecture)
    resolved = registry.resolve(config, data["architecture"])
    exprs = [row.expr for row in resolved.part.rows()]
    return Result(data, tuple(Component(c["name"], e, render.latex(e), c["count"])
                              for c, e in zip(data["components"], exprs, strict=True)),
                  _notes(config, data["architecture"]))


def flop_count(model: str | Path | Mapping, seq: int | None, architecture: str | None = None, target: int | None = None,
          batch: int = 1, revision: str | None = None, gpu: str | None = None) -> Result:
    """The FLOPs of a forward pass over `seq` tokens, component by component, and those of a training step:
    what `derivations flops` answers. A multiply-add counts 2 FLOPs.

    Args:
        model: A bundled checkpoint name, a path to a `config.json`, a config as a dict, or a Hugging Face
            model id ([the models it reads][derivations.api]).
        seq: The tokens of each sequence (an encoder-decoder's encoder tokens): a whole number from 1, at
            most `2**24`, and at most the rows of a model's table of learned positions. None for a model that
            reads images (ViT): the forward is of an image of the config's size, its patches and class token.
        architecture: The class to count, as for [`count`][derivations.api.count].
        target: An encoder-decoder's decoder tokens; by default `seq`.
        batch: The sequences (or images) in the batch.
        revision: A branch, tag or commit of a Hugging Face model id.
        gpu: An accelerator's name (`"A100"`, `"H100-SXM"`, `"MI300X"`: the table of `derivations/accelerators.py`),
            for the roofline's lower bounds on its time.

    Returns:
        The FLOPs, in these attributes:

        - `architecture`, `seq`, `batch`, and `target` when it was given or differs from `seq`.
        - `forward`: the whole batch's forward pass, every query against every key.
        - `forward_causal`: the same with each query against the keys up to it only.
        - `backward`: twice `forward`.
        - `training_step`: `forward` and `backward`.
        - `full_recomputation`: what recomputing the layers' forward pass adds to a step.
        - `selective_recomputation`: what recomputing attention's products alone adds to a step.
        - `decode`: one generated token a sequence after the `seq` tokens (an encoder-decoder's `target`,
          its source read once), a dict: `cached`, those tokens; `flops`, the step's forward FLOPs for the
          batch, each self-attention layer reading its cached tokens and the new one (at most its sliding
          window); `bytes_read`, what the step reads: `weights_bytes`, the weights at `dtype` (`bf16`; a
          mixture's active ones, `active_weights`), and `kv_cache_bytes`, the batch's key/value cache, as
          [`memory_use`][derivations.api.memory_use] counts it (`kv_cache_windows`). Where there is no such
          step (an encoder; a full table of learned positions) only `cached` and `refused`, the reason.
        - `roofline`: with `gpu` alone, lower bounds (never predictions) on the time of the forward and of the
          decode step on that accelerator, a dict: `accelerator`; its dense bf16 peak as its vendor writes it and in
          FLOP/s (`bf16`, `bf16_flops`) and its memory bandwidth (`bandwidth`, `bandwidth_bytes`); `prefill` and
          `decode`, each `{flops, bytes, compute_seconds, memory_seconds, lower_bound_seconds,
          lower_bound_seconds_float, bound_by}`: max(FLOPs / peak, bytes / bandwidth), the seconds as exact fractions
          written `"p/q"`. Where the vendor states no dense bf16 rate (`bf16` None), each bound is bytes / bandwidth
          alone (still a lower bound: `compute_seconds` None, `bound_by` `"bandwidth only"`) and `bandwidth_only`
          says so (`"NVIDIA states no dense bf16 rate"`; else None). The prefill's FLOPs are `forward_causal`, its bytes the weights read once (as `decode`
          counts them) and the key/value cache written once; the decode step's are `decode`'s `flops` and
          `bytes_read` (or `{refused}`, where there is no such step).
        - `components`: one [`Component`][derivations.api.Component] for each component of the count; their
          values add up to `forward`, each expression a polynomial in `s` (and `s_d`) for one sequence.

    Raises:
        configs.ConfigError: As for [`count`][derivations.api.count]; `seq`, `target` or `batch` out of range; an
            unknown `gpu`.

    Examples:
        >>> import derivations
        >>> flops = derivations.flop_count("gpt2", seq=1024)
        >>> flops.forward, flops.training_step
        (291648307200, 874944921600)
        >>> batch = derivations.flop_count("gpt2", seq=1024, batch=8)
        >>> batch.forward == 8 * flops.forward
        True
        >>> derivations.flop_count("llama-2-7b", seq=4096).decode["flops"]
        15362162688
    """
    from . import flops as _flops

    config = _config(model, revision)
    data, _ = answers.flops(config, architecture, _positive("seq", seq), _positive("target", target),
                                _positive("batch", batch), gpu)
    rows = _flops.rows(registry.resolve(config, data["architecture"]).part)
    return Result(data, tuple(Component(c["name"], r.expr, render.latex(r.expr), c["flops"])
                              for c, r in zip(data["components"], rows, strict=True)),
                  _notes(config, data["architecture"], data["seq"]))


def memory_use(model: str | Path | Mapping, seq: int | None = None, architecture: str | None = None,
           target: int | None = None, batch: int = 1, dtype: str = "bf16", revision: str | None = None,
           tp: int | None = None, devices: int | None = None, memory: str | None = None,
           gpu: str | None = None, attention: str | None = None) -> Result:
    """What a model holds, in bytes: its weights in every format, the key/value cache after `seq` tokens, its
    training state under each optimizer, and its activations. What `derivations memory` answers.

    Args:
        model: A bundled checkpoint name, a path to a `config.json`, a config as a dict, or a Hugging Face
            model id ([the models it reads][derivations.api]).
        seq: The tokens the cache holds and the activations are counted for; by default the config's context
            (`max_position_embeddings`, `n_positions` or `n_ctx`, else 2048). A sliding window keeps only
            its last tokens in the cache.
        architecture: The class to count, as for [`count`][derivations.api.count].
        target: An encoder-decoder's decoder tokens; by default `seq`.
        batch: The sequences in the batch.
        dtype: The weights' format: `fp32`, `bf16`, `fp16`, `fp8`, `int8`, or a 4-bit one with its scales:
            `int4` (GPTQ, AWQ), `nf4` (bitsandbytes), `mxfp4`. Where the config has a `quantization_config`,
            the weights are in its format, and a float `dtype` sets the tensors it leaves unquantized.
        revision: A branch, tag or commit of a Hugging Face model id.
        tp: Tensor parallelism over this many devices: each device's weights and key/value cache.
        devices: Training on this many devices (with `tp`, tensor-parallel groups of `tp`): each device's bytes
            under every ZeRO stage.
        memory: A device's memory, as `"80GB"` or `"24GiB"`: which totals fit.
        gpu: An accelerator whose memory is a device's, as `"A100"` (instead of `memory`).
        attention: The attention the forward's transient peak assumes: `"sdpa"` (transformers' default: no
            T x T scores held) or `"eager"` (every head's scores held). By default sdpa where its forward is
            derived, else eager.

    Returns:
        The bytes, in these attributes (and no `components`):

        - `architecture`, `seq`, `batch`, `dtype`, and `target` for an encoder-decoder.
        - `parameters`: the parameters the weights hold.
        - `weights_bytes`: the weights in `dtype`, or in the config's quantization_config (`quantization`: its
          method, parameters and bytes); `weights_bytes_by_dtype`, a dict of the bytes in each format.
        - `kv_cache_elements` and `kv_cache_bytes`: the key/value cache of the batch after `seq` tokens, kept at
          the weights' width (at 16 bits under a 4-bit format); `kv_cache_windows`, the lengths of its layers'
          sliding windows (an empty list where every layer attends to all tokens).
        - `transient_bytes`: the peak of the tensors the forward that `generate` runs on the prompt holds beside
          the weights and the cache (the last token's logits; derivations.transient), in 16-bit activations (fp32
          for `fp32`); `transient_forward_bytes`, a bare forward's (every token's logits); `transient_of`, which
          forward the first is (`forward` for a class that does not generate); `attention`, the attention they
          assume (`"sdpa"` or `"eager"`), and `attention_note`, why eager where sdpa was meant (its forward not
          derived, or not run by transformers); and `inference_bytes`, the weights, the cache and
          `transient_bytes` added. Where the class's forward is not derived, none of these but
          `inference_refused`, which says why.
        - `training_bytes`: a dict of the bytes of weights, gradients and optimizer states under each
          optimizer: `adam`, `adam-mixed`, `adam-mixed-fp32-grads`, `sgd`, `adam-8bit`.
        - `activations_bytes`, `activations_selective_recomputation_bytes` and
          `activations_full_recomputation_bytes`: what a training step stores at 16 bits (Korthikanti et al.),
          with no recomputation, with selective and with full recomputation; for a model with a width, heads
          and layers; and `training_total_bytes`, mixed-precision Adam's weights, gradients and states with the
          activations kept (no recomputation).
        - `largest_layer`, `largest_layer_copies`, `largest_layer_bytes`: the largest layer a device map places
          whole (one copy of a repeated block, or a tensor outside the blocks), its copies and its bytes in
          `split_dtype` (`dtype`; under a quantization_config, every tensor at the float width it keeps).
        - `tensor_parallel` (with `tp`): a dict of what each device holds, split as Megatron splits the model:
          `parameters_per_device`, `weights_bytes`, `kv_cache_bytes`, `total_bytes`, `kv_heads_per_device` and
          `kv_heads_replicated`, `vocabulary_padded`; and `fits` with `memory` or `gpu`.
        - `zero` (with `devices`): `parameters_per_device`, the activations a device keeps, and `stages`, one dict
          per ZeRO stage: `model_states_bytes` and the totals with activations (`fits...` with `memory` or `gpu`).
        - `device_memory_bytes` (with `memory` or `gpu`).

    Raises:
        configs.ConfigError: As for [`count`][derivations.api.count]; an unknown `dtype` or `attention`; and `seq`,
            `target` or `batch` out of range.

    Examples:
        >>> import derivations
        >>> memory = derivations.memory_use("mistral-7b", seq=8192, dtype="int4")
        >>> memory.weights_bytes, memory.kv_cache_windows
        (4150796288, [4096])
        >>> memory.training_bytes["adam-mixed"]
        115867713536
        >>> memory.inference_bytes == memory.weights_bytes + memory.kv_cache_bytes + memory.transient_bytes
        True
        >>> derivations.memory_use("llama-3-70b", seq=32768, tp=16).tensor_parallel["kv_heads_per_device"]
        1
    """
    config = _config(model, revision)
    data = answers.memory(config, architecture, _positive("seq", seq), _positive("target", target),
                          _positive("batch", batch), dtype, attention=attention)
    data |= parallel.answer(config, architecture, data, _positive("tp", tp), _positive("devices", devices),
                            parallel.capacity(memory, gpu))
    return Result(data, notes=_notes(config, data["architecture"], None if seq is None else data["seq"], data))


def fit(model: str | Path | Mapping, memory: int | str | None = None, gpu: str | None = None, seq: int | None = None,
        architecture: str | None = None, batch: int = 1, dtype: str | None = None, revision: str | None = None,
        attention: str | None = None) -> Result:
    """The longest context and the largest batch that fit a memory, found exactly: what `derivations fit` answers.

    What serving holds after a forward over T tokens at a batch of B (the weights, the key/value cache and the
    forward's transient peak) never decreases as T or B grows, so the largest T, and the largest B, within the
    memory are found exactly on the integers. Not counted: the framework's own context, the allocator's
    fragmentation, and what an engine reserves up front (the result's `not_counted`).

    Args:
        model: A bundled checkpoint name, a path to a `config.json`, a config as a dict, or a Hugging Face
            model id ([the models it reads][derivations.api]).
        memory: The memory, in bytes, or as a person writes it: `"24GB"` (`10**9` bytes a GB; `"80G"` is 80
            GB), `"24GiB"` (`2**30` bytes a GiB).
        gpu: Instead of `memory`, an accelerator's name (`"A100"`, `"MI300X"`, `"TPU-v5e"`), for its memory as its
            vendor states it. Without `memory` and `gpu`, every accelerator of the table.
        seq: The tokens of each sequence the largest batch is found at; by default the config's context.
        architecture: The class, as for [`count`][derivations.api.count].
        batch: The sequences the longest context is found at.
        dtype: The weights' format, as for [`memory_use`][derivations.api.memory_use].
        revision: A branch, tag or commit of a Hugging Face model id.
        attention: The attention the transient peak assumes, as for [`memory_use`][derivations.api.memory_use].

    Returns:
        The answer, in these attributes (and no `components`):

        - `architecture`, `dtype`, `batch`, `seq`; `weights_bytes`, the weights in `dtype`; `attention`, the
          attention the inference bytes assume, and `attention_note` where eager answers for sdpa (why).
        - `memory_bytes`, the memory, and `accelerator`, the accelerator named (None for `memory`).
        - `max_tokens`: the largest T with the inference bytes of T tokens at `batch` within the memory, None
          where not one token fits; `max_tokens_limit`, what stops it there: `"memory"`, `"positions"` (a table
          of learned positions ends there), `"longest"` (every length up to `2**24`, the longest answered, fits: a
          sliding window stops the cache growing) or `"weights"` (they alone do not fit); `max_tokens_reason`, that
          in words; `inference_bytes_at_max_tokens`, the bytes at T; `inference_bytes_past_max_tokens`, at T + 1
          (at 1 where none fits; None where the positions or `2**24` stop it).
        - `max_batch`, `max_batch_limit`, `max_batch_reason`, `inference_bytes_at_max_batch` and
          `inference_bytes_past_max_batch`: the same for the batch at `seq` tokens.
        - Without `memory` and `gpu`: no `memory_bytes`, `accelerator` or answers at the top, but `accelerators`,
          one dict for each accelerator: its `name`, its `memory` as its vendor writes it and in bytes
          (`memory_bytes`), and the keys above.
        - `not_counted`: what the inference bytes leave out, in words.

    Raises:
        configs.ConfigError: As for [`count`][derivations.api.count]; a `memory` that is no size, an unknown
            `gpu`, both; `seq` or `batch` out of range, or `seq` past a table of learned positions.

    Examples:
        >>> import derivations
        >>> answer = derivations.fit("gpt2", memory="1GB")
        >>> answer.max_tokens, answer.max_tokens_limit
        (1024, 'positions')
        >>> derivations.fit("llama-2-70b", gpu="A100").max_tokens_reason
        'the weights alone pass the memory'
    """
    from . import storage

    if isinstance(memory, str):
        memory = storage.parse_bytes(memory)
    if gpu is not None:
        from . import accelerators

        gpu = accelerators.get(gpu).name
    config = _config(model, revision)
    data = answers.fit(config, architecture, memory, gpu, _positive("seq", seq), _positive("batch", batch), dtype,
                       attention)
    return Result(data, notes=_notes(config, data["architecture"], data=data))
