"""Does it fit: the longest context and the largest batch a memory holds, found exactly.

What serving holds after a forward over T tokens at a batch of B, ``inference_bytes(T, B)``
(:func:`derivations.answers.inference_bytes`), is non-decreasing in T and in B:

- the weights do not depend on T or B;
- the key/value cache is B · Σ_layers (elements a token leaves in the layer) · kept(T), where kept(T) is T, or
  min(T, w − 1) in a layer with a sliding window of w (:func:`derivations.storage.kept`), and an
  encoder-decoder's cross-attention keeps the T source tokens: each a non-decreasing function of T, times B;
- the forward's transient peak is the largest, over the moments of the forward, of a sum of live tensors' sizes,
  each a product of T, B and the model's sizes with non-negative coefficients: a maximum of non-decreasing
  functions, non-decreasing.

A sum of non-decreasing functions is non-decreasing, so the T that fit a memory of SIZE bytes are 1 to some largest
T: bisection over the integers finds it exactly, in at most 25 evaluations over 1 to 2^24, and the same for B.
:func:`largest` asserts the property at every point it reads (a value read between two others lies between
their values), and the tests check it on the bundled checkpoints.

Plain Python on integers: :mod:`derivations.answers` passes the function (it reads the config), this module
searches it and says why the answer stops where it does.
"""

from __future__ import annotations

from collections.abc import Callable

# What the derivation of inference bytes does not count: the answer is what the model's tensors need, not what a
# process or an engine takes.
# vLLM takes a fixed share of the whole card (gpu_memory_utilization, 0.9 by default) and fills what its weights
# leave with cache blocks; a static cache holds the whole window it was sized for, however few tokens it holds.
NOT_COUNTED = (
    "the framework's own context (CUDA's: a few hundred MB)",
    "the allocator's fragmentation and cached blocks",
    "engines that reserve memory up front (vLLM's gpu_memory_utilization, a static cache's whole window)",
)


def largest(bytes_of: Callable[[int], int], budget: int, highest: int) -> int | None:
    """The largest n in 1..``highest`` with ``bytes_of(n) <= budget``, None where n = 1 does not fit.

    ``bytes_of`` is non-decreasing (the module's docstring says why): then the n that fit are 1 to the answer,
    and bisection keeps ``bytes_of(low) <= budget < bytes_of(high)`` until high = low + 1."""
    low, low_bytes = 1, bytes_of(1)
    if low_bytes > budget:
        return None
    high, high_bytes = highest, bytes_of(highest)
    if high_bytes <= budget:
        return highest
    while high - low > 1:
        middle = (low + high) // 2
        at = bytes_of(middle)
        # Non-decreasing: what is read between two points lies between the values read there.
        assert low_bytes <= at <= high_bytes, f"decreasing at {low}, {middle}, {high}: {low_bytes}, {at}, {high_bytes}"
        if at <= budget:
            low, low_bytes = middle, at
        else:
            high, high_bytes = middle, at
    return low


def longest_context(bytes_of: Callable[[int], int], budget: int, weights: int, longest: int,
                    positions: int | None = None, windows: list[int] | None = None, context: int | None = None) -> dict:
    """``fit --json``'s answer on the length: ``max_tokens``, the largest T with ``bytes_of(T) <= budget`` (T at
    most the ``positions`` of a table of learned positions, and at most ``longest``), what stops it there
    (``max_tokens_limit``: "memory", "positions", "longest" or "weights") and why in words, and the bytes at
    that T and at the next one where the memory stops it. None where not one token fits."""
    highest = longest if positions is None else min(positions, longest)
    found = largest(bytes_of, budget, highest)
    if found is None:
        one = bytes_of(1)
        if weights > budget:
            limit, reason = "weights", "the weights alone pass the memory"
        else:
            limit, reason = "memory", "one token passes the memory"
        return {"max_tokens": None, "max_tokens_limit": limit, "max_tokens_reason": reason,
                "inference_bytes_at_max_tokens": None, "inference_bytes_past_max_tokens": one}
    at = bytes_of(found)
    past = None
    if found < highest:
        past = bytes_of(found + 1)
        limit, reason = "memory", "one more token passes the memory"
    elif positions is not None and positions <= longest:
        # A learned position table has no row for a token past it: the model cannot read more, whatever the memory.
        limit, reason = "positions", f"the model's {positions:,} learned positions end there (a longer input has none)"
    else:
        limit = "longest"
        reason = (f"every length up to {longest:,} fits (the longest this answers)"
                  + (f": past its sliding window ({', '.join(f'{w:,}' for w in windows)}) the cache stops growing"
                     if windows else ""))
    if context is not None and found > context:
        reason += f"; past the {context:,} tokens the config declares"
    return {"max_tokens": found, "max_tokens_limit": limit, "max_tokens_reason": reason,
            "inference_bytes_at_max_tokens": at, "inference_bytes_past_max_tokens": past}


def largest_batch(bytes_of: Callable[[int], int], budget: int, weights: int, longest: int, tokens: int) -> dict:
    """``fit --json``'s answer on the batch at ``tokens`` tokens: ``max_batch``, the largest B with
    ``bytes_of(B) <= budget`` (at most ``longest``), what stops it there (``max_batch_limit``: "memory",
    "longest" or "weights") and why, and the bytes at that B and at the next one. None where one sequence does
    not fit."""
    found = largest(bytes_of, budget, longest)
    if found is None:
        one = bytes_of(1)
        if weights > budget:
            limit, reason = "weights", "the weights alone pass the memory"
        else:
            limit, reason = "memory", f"one sequence of {tokens:,} tokens passes the memory"
        return {"max_batch": None, "max_batch_limit": limit, "max_batch_reason": reason,
                "inference_bytes_at_max_batch": None, "inference_bytes_past_max_batch": one}
    past = None
    if found < longest:
        past = bytes_of(found + 1)
        limit, reason = "memory", "one more sequence passes the memory"
    else:
        limit, reason = "longest", f"every batch up to {longest:,} fits (the largest this answers)"
    return {"max_batch": found, "max_batch_limit": limit, "max_batch_reason": reason,
            "inference_bytes_at_max_batch": bytes_of(found), "inference_bytes_past_max_batch": past}
