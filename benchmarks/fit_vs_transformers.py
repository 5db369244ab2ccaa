"""How fast the derivation answers whether a model fits a card, against measuring it with transformers.

Times, in a fresh interpreter each (imports included), best of N:

- ``python -m derivations fit qwen2.5-7b --gpu A100-SXM4-40GB --json``: the longest context in an A100's 40 GB,
  a search over what serving holds at some 25 lengths, and the largest batch at the config's context;
- ``python -m derivations memory qwen2.5-7b --seq T --json`` at that answer, T;
- a script that imports torch and transformers, builds Qwen2ForCausalLM for the same config on the meta device,
  runs one forward of T tokens with ``use_cache`` and adds the bf16 bytes of its parameters and of the keys and
  values in the cache it returns: what transformers takes to check one length (a search would run it at each
  length it tries).

The three must agree: transformers' weights and cache equal ``memory``'s ``weights_bytes`` + ``kv_cache_bytes`` at
T, and ``fit``'s inference bytes at T hold at least them and at most the card's memory. Prints what it measured, the
times and the ratios; exits 1 if ``fit`` or ``memory`` takes longer than flops_vs_torch's ``BUDGET`` seconds or is
not ``MIN_RATIO`` times faster. Usage: ``python benchmarks/fit_vs_transformers.py [REPEATS]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by a test, not run: its folder, for its sibling
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from flops_vs_torch import BUDGET, MIN_RATIO, ROOT, on_meta, timed  # noqa: E402

CHECKPOINT, ARCHITECTURE, GPU = "qwen2.5-7b", "Qwen2ForCausalLM", "A100-SXM4-40GB"
CONFIG = ROOT / "derivations" / "checkpoints" / f"{CHECKPOINT}.json"

FIT = [sys.executable, "-m", "derivations", "fit", CHECKPOINT, "--gpu", GPU, "--json"]


def memory(tokens: int) -> list[str]:
    return [sys.executable, "-m", "derivations", "memory", CHECKPOINT, "--seq", str(tokens), "--json"]


def transformers(tokens: int) -> list[str]:
    return [sys.executable, "-c", on_meta(ARCHITECTURE, CONFIG, tokens) + """
with torch.no_grad():
    cache = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True, logits_to_keep=1).past_key_values
weights = 2 * sum(p.numel() for p in model.parameters())
print(weights + 2 * sum(layer.keys.numel() + layer.values.numel() for layer in cache.layers))
"""]


def compare(repeats: int) -> tuple[int, float, float, float]:
    """The answer T, and the best times of fit, of memory at T and of transformers at T (seconds)."""
    timed(FIT, 1)  # compiles the family once (the first run after a change imports SymPy)
    fit_time, printed = timed(FIT, repeats)
    answer = json.loads(printed)
    tokens = answer["max_tokens"]
    memory_time, held = timed(memory(tokens), repeats)
    reference_time, measured = timed(transformers(tokens), repeats)
    held = json.loads(held)
    derived = held["weights_bytes"] + held["kv_cache_bytes"]
    if int(measured) != derived or not derived <= answer["inference_bytes_at_max_tokens"] <= answer["memory_bytes"]:
        raise AssertionError(f"they disagree at {tokens:,} tokens: transformers {int(measured):,} bytes, memory "
                             f"{derived:,}, fit {answer['inference_bytes_at_max_tokens']:,}")
    return tokens, fit_time, memory_time, reference_time


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 3
    tokens, fit_time, memory_time, reference_time = compare(repeats)
    print(f"{CHECKPOINT} on {GPU}: the longest context in bf16, batch 1, is {tokens:,} tokens; its weights and "
          "cache are the same bytes in transformers (meta device, one forward with use_cache) and in memory")
    ok = True
    for name, seconds in (("fit", fit_time), ("memory --seq", memory_time)):
        ratio = reference_time / seconds
        ok &= ratio >= MIN_RATIO and seconds <= BUDGET
        print(f"python -m derivations {name}: {seconds:.3f} s (best of {repeats}; budget {BUDGET} s), "
              f"{ratio:.1f}x faster (required: at least {MIN_RATIO:g}x)")
    print(f"transformers at {tokens:,} tokens: {reference_time:.3f} s (best of {repeats})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
