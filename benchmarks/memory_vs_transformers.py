"""How fast the derivation answers what a model's key/value cache holds, against asking transformers.

Times, in a fresh interpreter each (imports included), best of N:

- ``python -m derivations memory mistral-7b --seq 8192 --json`` (its ``kv_cache_elements``);
- a script that imports torch and transformers, builds MistralForCausalLM for the same config on the meta
  device, runs one forward of 8,192 tokens with ``use_cache`` and counts the elements of the keys and values
  in the cache it returns (its sliding-window layers keep their window).

Both must give the same element count. Prints both times and the ratio; exits 1 if the derivation takes
longer than flops_vs_torch's ``BUDGET`` seconds or is not ``MIN_RATIO`` times faster. Usage:
``python benchmarks/memory_vs_transformers.py [REPEATS]``.
"""

from __future__ import annotations

import sys

from flops_vs_torch import ROOT, on_meta, race  # the script's folder is on the path: its sibling

CHECKPOINT, TOKENS = "mistral-7b", 8192
CONFIG = ROOT / "derivations" / "checkpoints" / f"{CHECKPOINT}.json"

DERIVATION = [sys.executable, "-m", "derivations", "memory", CHECKPOINT, "--seq", str(TOKENS), "--json"]
TRANSFORMERS = [sys.executable, "-c", on_meta("MistralForCausalLM", CONFIG, TOKENS) + """
with torch.no_grad():
    cache = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True).past_key_values
print(sum(layer.keys.numel() + layer.values.numel() for layer in cache.layers))
"""]


def main(argv: list[str]) -> int:
    return race(DERIVATION, TRANSFORMERS, "kv_cache_elements",
                f"key/value cache of {CHECKPOINT} after {TOKENS} tokens, elements",
                "transformers, meta device, one forward with use_cache", int(argv[0]) if argv else 3)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
