"""The peak of live tensor bytes while transformers runs a forward: the measure the derived transient peak
(derivations.transient) is checked against. A helper for the tests, not a test module.

:class:`LiveBytes` is a ``TorchDispatchMode``: every tensor an operation returns whose storage is new (not one of
the operation's inputs' storages, nor one seen before) is counted at its storage's bytes (``untyped_storage()
.nbytes()``) until the storage is freed (``weakref.finalize`` on it: torch keeps one Python object per storage
for as long as the storage lives). What existed before the mode was entered (the weights, buffers, the inputs) is
never counted: only what the forward allocates, on the model's device. It counts what torch's operations hand back, not the scratch a
kernel uses inside itself, nor an allocator's rounding: the live set of tensors, as the derivation states it.

The model is built as ``from_pretrained`` builds it for a dtype (``_from_config(dtype=...)``: the default dtype
set while the modules are made, so that buffers made explicitly in fp32, rotary's inverse frequencies, stay
fp32), eval mode, eager attention, on the meta device (no data: every size as on a GPU, nothing computed).

Under sdpa attention the model runs on CPU, with data: on the meta device torch's scaled_dot_product_attention
takes its math path (the scores materialized: ``bmm``, ``_safe_softmax``), and transformers' mask for sdpa reads
whether the 2D mask is all ones (``fast_all``), a value the meta device does not hold. On CPU it runs the flash
kernel, ``_scaled_dot_product_flash_attention_for_cpu`` (the operator the mode sees; it returns the output and the
logsumexp), as a GPU runs its flash or memory-efficient kernel. The tests run such models small. Where CPU's
kernel returns another dtype than a GPU's (:data:`GPU_WIDTHS`: LayerNorm's statistics), the tracker counts the
GPU's width.
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Mapping

import reference  # skips the importing test module without torch/transformers (fails under CI)

torch = reference.torch
transformers = reference.transformers

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


# Where CPU's kernel returns another dtype than a GPU's: native_layer_norm's mean and reciprocal deviation come back
# in the input's dtype on CPU, in fp32 on CUDA (its accumulate type) and from the meta kernel, which the eager
# measurements run (torch.ops.aten.native_layer_norm on bf16: bf16 statistics on CPU, fp32 on meta). On CPU the
# tracker counts each such output at the width a GPU returns it in (None: the storage's own).
GPU_WIDTHS = {torch.ops.aten.native_layer_norm.default: (None, 4, 4)}


class LiveBytes(TorchDispatchMode):
    """Every storage the operations under the mode create, in order: ``events`` holds (serial, +bytes) at its
    birth and (serial, -bytes) when it is freed; :meth:`peak` is the most alive at once."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device = device  # the model's: a tensor elsewhere (a CPU scalar a cache keeps) is not its memory
        self.events: list[tuple[int, int]] = []
        self.serial: dict[int, int] = {}  # a live storage's address (_cdata) -> its serial number
        self.count = 0

    def _free(self, key: int, serial: int, size: int) -> None:
        if self.serial.get(key) == serial:
            del self.serial[key]
        self.events.append((serial, -size))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        # A tensor made outside the dispatcher (torch.tensor(...)) enters through lift_fresh: new, though an input.
        inputs = (set() if func is torch.ops.aten.lift_fresh.default else
                  {t.untyped_storage()._cdata for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)})
        widths = GPU_WIDTHS.get(func) if self.device.type == "cpu" else None
        for index, tensor in enumerate(tree_flatten(out)[0]):
            if not isinstance(tensor, torch.Tensor) or tensor.device != self.device:
                continue
            storage = tensor.untyped_storage()
            key = storage._cdata
            if key in inputs or key in self.serial:
                continue  # a view, an in-place result, or a storage already counted
            self.count += 1
            self.serial[key] = self.count
            size = storage.nbytes()
            if widths is not None and widths[index] is not None:  # as a GPU returns it
                assert storage.nbytes() == tensor.numel() * tensor.element_size(), func
                size = tensor.numel() * widths[index]
            self.events.append((self.count, size))
            weakref.finalize(storage, self._free, key, self.count, size)
        return out

    def peak(self, excluded: frozenset[int] = frozenset()) -> int:
        """The most bytes alive at once, not counting the storages whose serial numbers are ``excluded``."""
        live = most = 0
        for serial, change in self.events:
            if serial not in excluded:
                live += change
                most = max(most, live)
        return most

    def serials(self, tensors) -> frozenset[int]:
        """The serial numbers of the (live) storages of ``tensors``."""
        return frozenset(self.serial[t.untyped_storage()._cdata] for t in tensors
                         if t.untyped_storage()._cdata in self.serial)


# Where each attention implementation is measured (the module's docstring says why).
DEVICES = {"eager": "meta", "sdpa": "cpu"}


@functools.cache
def _model(architecture: str, config_json: str, dtype: str, attention: str = "eager") -> torch.nn.Module:
    hf_config = transformers.AutoConfig.for_model(**json.loads(config_json))
    hf_config._attn_implementation = attention
    class_name, kwargs = reference.VARIANTS.get(architecture, (architecture, {}))
    with torch.device(DEVICES[attention]):
        model = getattr(transformers, class_name)._from_config(hf_config, dtype=DTYPES[dtype], **kwargs)
    return model.eval()


def build(architecture: str, config: Mapping, dtype: str, attention: str = "eager") -> torch.nn.Module:
    """``architecture`` from a config.json dict, in ``dtype`` (bf16, fp16, fp32), eval mode, with ``attention``
    (transformers' attn_implementation: eager on the meta device, sdpa on CPU); built once per (class, config, dtype,
    attention)."""
    config = {k: v for k, v in config.items() if k not in ("torch_dtype", "dtype")}
    return _model(architecture, json.dumps(config, sort_keys=True), dtype, attention)


def measured(architecture: str, config: Mapping, dtype: str, tokens: int, batch: int, generate: bool,
             target: int | None = None, attention: str = "eager") -> int:
    """The peak of live tensor bytes in one forward of ``batch`` sequences of ``tokens`` tokens (ids and an
    all-ones attention mask, as a tokenizer gives them): a bare forward (``generate`` False: use_cache=False, the
    logits of every token), or the forward generate runs on the prompt (use_cache=True, logits_to_keep=1), the
    storages its key/value cache holds at the end not counted (the cache is counted apart); ``attention``: eager
    (on the meta device) or sdpa (on CPU). An encoder-decoder: see :func:`measured_encoder_decoder` (``target``: its
    decoder's tokens, default ``tokens``)."""
    import inspect

    model = build(architecture, config, dtype, attention)
    ids = torch.zeros((batch, tokens), dtype=torch.long, device=DEVICES[attention])
    if model.config.is_encoder_decoder:
        return measured_encoder_decoder(model, ids, target or tokens, generate)
    # An encoder is given the ids alone: it asks whether a mask is all ones (a value the meta device does not hold)
    # to build none, and none is built without one. A decoder is given a mask of ones, as a tokenizer gives it; so is
    # an encoder whose forward looks for padding in the ids without one (its spec's ``masked``: DeBERTa-v2's).
    masked = reference.spec_of(model.config.model_type).masked
    bare = reference.bidirectional(model) and not (masked is True or architecture in (masked or ()))
    inputs = {"input_ids": ids} if bare else {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    accepted = inspect.signature(model.forward).parameters
    if "use_cache" in accepted:
        inputs["use_cache"] = generate
    if generate:
        assert "logits_to_keep" in accepted, f"{architecture} does not generate"
        inputs["logits_to_keep"] = 1
    with torch.no_grad(), LiveBytes(ids.device) as live:
        out = model(**inputs)
        excluded = live.serials(cache_tensors(getattr(out, "past_key_values", None)))
    return live.peak(excluded)


def measured_encoder_decoder(model, ids, target: int, generate: bool) -> int:
    """An encoder-decoder's peak: a bare forward reads the source ids alone (an all-ones mask is no mask) and
    ``target`` decoder ids (use_cache=False, the logits of every target token). What generate runs on the prompt:
    the encoder on the source, then the decoder's first step, one start token per sequence, with a cache (each
    layer's self- and cross-attention keys and values go into it, not counted here) and the encoder's states, which
    generate holds through it."""
    def decoder_ids(length: int):
        return torch.zeros((ids.shape[0], length), dtype=torch.long, device="meta")

    if not generate:
        start = decoder_ids(target)
        with torch.no_grad(), LiveBytes(ids.device) as live:
            model(input_ids=ids, decoder_input_ids=start, use_cache=False)
        return live.peak()
    start = decoder_ids(1)
    with torch.no_grad(), LiveBytes(ids.device) as live:
        encoder_outputs = model.get_encoder()(input_ids=ids)
        out = model(encoder_outputs=encoder_outputs, decoder_input_ids=start, use_cache=True)
        excluded = live.serials(cache_tensors(out.past_key_values))
    return live.peak(excluded)


def cache_tensors(cache) -> list:
    """Every tensor a cache holds (an EncoderDecoderCache's two caches): each layer's keys and values, and what else
    a layer keeps (a sliding window's length as a tensor)."""
    if cache is None:
        return []
    caches = [cache.self_attention_cache, cache.cross_attention_cache] if hasattr(cache, "cross_attention_cache") \
        else [cache]
    return [value for part in caches for layer in part.layers for value in vars(layer).values()
            if isinstance(value, torch.Tensor)]
