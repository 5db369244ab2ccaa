"""How much faster the derivation gives a forward's FLOPs than torch's counter.

Times, in a fresh interpreter each (imports included), best of N:

- ``python -m derivations flops llama-2-7b --seq 4096 --json``
- a script that imports torch and transformers, builds LlamaForCausalLM for the same config on the meta
  device and runs one forward of 4,096 tokens under ``torch.utils.flop_counter.FlopCounterMode``.

Both must print the same forward FLOPs. Prints both times and the ratio; exits 1 if the derivation is not
at least ``MIN_RATIO`` times faster or takes longer than ``BUDGET`` seconds. Usage:
``python benchmarks/flops_vs_torch.py [REPEATS]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINT, TOKENS = "llama-2-7b", 4096
CONFIG = ROOT / "derivations" / "checkpoints" / f"{CHECKPOINT}.json"
MIN_RATIO, BUDGET = 10.0, 0.2

DERIVATION = [sys.executable, "-m", "derivations", "flops", CHECKPOINT, "--seq", str(TOKENS), "--json"]


def on_meta(architecture: str, config: Path, tokens: int) -> str:
    """The start of a script that builds ``architecture`` from ``config`` on the meta device (eager attention)
    and makes ``ids``, one sequence of ``tokens`` tokens."""
    return f"""
import json, torch, transformers
config = transformers.AutoConfig.for_model(**json.load(open({str(config)!r})))
config._attn_implementation = "eager"
with torch.device("meta"):
    model = transformers.{architecture}(config)
ids = torch.zeros(1, {tokens}, dtype=torch.long, device="meta")
"""


TORCH = [sys.executable, "-c", on_meta("LlamaForCausalLM", CONFIG, TOKENS) + """
from torch.utils.flop_counter import FlopCounterMode
with torch.no_grad(), FlopCounterMode(display=False) as counter:
    model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False)
print(counter.get_total_flops())
"""]


def timed(command: list[str], repeats: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise RuntimeError(f"{command[:4]} exited {done.returncode}:\n{done.stderr[-2000:]}")
        out = done.stdout
    return min(times), out


def race(derivation_command: list[str], reference_command: list[str], key: str, what: str, reference_name: str,
         repeats: int) -> int:
    """Time both commands (a fresh process each, best of ``repeats``), check they print the same number (the
    derivation's JSON ``key``), print both times and the ratio; 1 if the derivation misses BUDGET or MIN_RATIO."""
    timed(derivation_command, 1)  # compiles the family once (the first run after a change imports SymPy)
    derivation, printed = timed(derivation_command, repeats)
    reference, counted = timed(reference_command, repeats)
    derived = json.loads(printed)[key]
    if derived != int(counted):
        print(f"the two disagree: derivation {derived:,}, {reference_name} {int(counted):,}")
        return 1
    ratio = reference / derivation
    print(f"{what}: {derived:,} (both)")
    print(f"python -m derivations {derivation_command[3]}: {derivation:.3f} s (best of {repeats}; budget {BUDGET} s)")
    print(f"{reference_name}: {reference:.3f} s (best of {repeats})")
    print(f"ratio: {ratio:.1f}x (required: at least {MIN_RATIO:g}x)")
    return 0 if ratio >= MIN_RATIO and derivation <= BUDGET else 1


def main(argv: list[str]) -> int:
    return race(DERIVATION, TORCH, "forward", f"forward FLOPs of {CHECKPOINT}, {TOKENS} tokens",
                "transformers + FlopCounterMode, meta device", int(argv[0]) if argv else 3)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
