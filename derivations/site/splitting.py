"""What the memory page shows of splitting a model over devices (derivations.parallel): the largest layer of a few
checkpoints, one model's weights and cache a device under tensor parallelism, and training a device under ZeRO.
A page names these ``splitting.NAME`` and its tables ``<!-- split:KIND CHECKPOINT -->``."""

from __future__ import annotations

import html

from .. import answers, configs, parallel, render
from .expanders import _bytes, _table
from .references import UnknownReference

# Llama 3's vocabulary, and the rows Megatron pads it to over 8 devices.
TENSOR_PARALLEL_EXAMPLE = 8
LLAMA3_VOCABULARY = configs.load("llama-3-8b")["vocab_size"]
LLAMA3_PADDED = parallel.padded_vocabulary(LLAMA3_VOCABULARY, TENSOR_PARALLEL_EXAMPLE)
VOCABULARY_MULTIPLE = parallel.VOCABULARY_MULTIPLE

# The checkpoints whose largest layer the page lists: an embedding larger than a layer, and layers larger than it.
LARGEST = ("llama-3-8b", "llama-2-70b", "mixtral-8x7b", "qwen2.5-7b", "deepseek-v3")
# The devices and the length of the tensor-parallel table (16: more devices than Llama 3 70B's 8 key/value heads).
DEVICES = (1, 2, 4, 8, 16)
TENSOR_PARALLEL_TOKENS = 32 * 1024
# Training: a sequence of 8K tokens, on 64 devices, without and with tensor parallelism over 8.
TRAINING_TOKENS, TRAINING_DEVICES, TRAINING_TP = 8 * 1024, 64, (1, 8)


def _answer(checkpoint: str, tokens: int, **split) -> dict:
    config = configs.load(checkpoint)
    result = answers.memory(config, None, tokens)
    return result | parallel.answer(config, None, result, **split)


def expand(text: str, tex) -> str:
    """``largest`` (the largest layer of :data:`LARGEST`), ``tensor-parallel CHECKPOINT`` (weights and cache a device
    over :data:`DEVICES`), ``zero CHECKPOINT`` (a device's training bytes under each ZeRO stage)."""
    kind, _, checkpoint = text.strip().partition(" ")
    checkpoint = checkpoint.strip()
    if kind == "largest":
        rows = []
        for name in LARGEST:
            result = _answer(name, 1)
            rows.append([f"<code>{name}</code>", f"<code>{html.escape(result['largest_layer'])}</code>",
                         render.number(result["largest_layer_copies"]), _bytes(result["largest_layer_bytes"])])
        return _table(["checkpoint", "largest layer", "copies", "bytes, bf16"], rows,
                      "The largest layer a device map places whole, in bf16")
    if kind == "tensor-parallel" and checkpoint:
        rows = []
        for devices in DEVICES:
            split = _answer(checkpoint, TENSOR_PARALLEL_TOKENS, tp=devices)["tensor_parallel"]
            heads = render.number(split["kv_heads_per_device"]) + (" (replicated)" if split["kv_heads_replicated"]
                                                                   else "")
            rows.append([render.number(devices), heads, _bytes(split["weights_bytes"]), _bytes(split["kv_cache_bytes"]),
                         _bytes(split["total_bytes"])])
        return _table(["devices", "key/value heads a device", "weights a device", "cache a device",
                       "weights + cache"], rows,
                      f"<code>{checkpoint}</code> in bf16, one sequence of {render.number(TENSOR_PARALLEL_TOKENS)} "
                      "tokens, split as Megatron splits it (the vocabulary padded)")
    if kind == "zero" and checkpoint:
        columns = [_answer(checkpoint, TRAINING_TOKENS, tp=tp, devices=TRAINING_DEVICES)["zero"] for tp in TRAINING_TP]
        rows = [["activations, selective recomputation",
                 *(_bytes(z["activations_selective_recomputation_bytes"]) for z in columns)]]
        for stage in parallel.STAGES:
            rows.append([f"ZeRO-{stage}: model states", *(_bytes(z["stages"][stage]["model_states_bytes"])
                                                         for z in columns)])
            rows.append([f"ZeRO-{stage}: and activations",
                         *(_bytes(z["stages"][stage]["total_selective_recomputation_bytes"]) for z in columns)])
        head = ["a device holds", *(f"tensor parallel {z['tensor_parallel']}, data parallel {z['data_parallel']}"
                                   for z in columns)]
        return _table(head, rows, f"<code>{checkpoint}</code> trained on {render.number(TRAINING_DEVICES)} devices, "
                                  f"mixed-precision Adam, one sequence of {render.number(TRAINING_TOKENS)} tokens a "
                                  "replica")
    raise UnknownReference(f"split:{text}: write split:largest, tensor-parallel CHECKPOINT or zero CHECKPOINT")
