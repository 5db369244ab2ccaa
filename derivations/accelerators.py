"""Accelerators: their memory, their dense bf16 peak and their memory bandwidth, each figure as its vendor writes it.

Every figure is kept as the vendor's own text prints it (``"40 GB"``, ``"312 TFLOPS"``, ``"1555 GB/sec"``) and read
into an exact integer here: bytes, FLOP/s and bytes a second. The FLOP/s are the dense rate (a datasheet's second
figure, marked for sparsity, is twice it and is not used). Where the vendor's text states no dense bf16 rate, the
table has none (``bf16`` is None): a rate printed only "with sparsity" is not halved into one, and the roofline then
bounds by the bandwidth alone (:mod:`derivations.roofline`). A capacity is read in the unit the vendor writes:
NVIDIA writes "GB", read as 10^9 bytes (its H100 PCIe brief writes KiB, MiB and GiB where it means powers of two,
"The KiB, MiB, and GiB notation emphasize the 'power of two' nature of the values" [cite: nvidia-h100-pcie-brief,
Table 3's note]), AMD's table heads its column "VRAM (GiB)", read as 2^30, and Google writes "GB", read as 10^9. A
card whose vendor's own figures were not read is not in the table: no figure here comes from a third party.

Plain Python (no SymPy): the command line reads this table.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from .reading import ConfigError

_FLOPS = {"gflops": 10**9, "tflops": 10**12, "pflops": 10**15}
# NVIDIA's TensorRT-LLM post writes the H200's memory "141 gigabytes (GB)": the unit in words, then its symbol.
_BYTES = {"gb": 10**9, "gigabytes (gb)": 10**9, "gib": 2**30}
_RATES = {"gb/sec": 10**9, "gb/s": 10**9, "gbps": 10**9, "tb/s": 10**12, "tb per second": 10**12}


def _read(text: str, units: dict[str, int]) -> int:
    """A vendor's figure ('312 TFLOPS', '5.3 TB per second', '80GB') as an exact integer."""
    found = re.fullmatch(r"([\d,]+(?:\.\d+)?)\s*(.+)", text.strip())
    assert found and found[2].lower() in units, text
    # "GBps" is bytes a second, "Gbps" bits: the case of the B tells them apart, and a rate here is in bytes.
    assert not found[2].lower().endswith("bps") or found[2][-3] == "B", text
    value = Fraction(found[1].replace(",", "")) * units[found[2].lower()]
    assert value.denominator == 1, text
    return int(value)


class Accelerator(NamedTuple):
    """One accelerator, as its vendor states it: the ``memory``, ``bf16`` (dense) and ``bandwidth`` figures as
    written, where they are written (``source``, a key of :mod:`derivations.sources`, and ``locator``), and
    ``note`` on how they are read. ``bf16`` is None where the vendor's text states no dense bf16 rate (the card
    may well compute in bf16: its datasheet may print a rate with sparsity only, which is not halved here; the
    roofline then bounds by the bandwidth alone). The sources are not imported
    here (``fit`` reads this table, and answers in a fraction of a second): tests/test_accelerators.py holds every
    key to exist."""

    name: str
    vendor: str
    memory: str
    bf16: str | None
    bandwidth: str
    source: str
    locator: str
    note: str = ""

    @property
    def memory_bytes(self) -> int:
        """Memory, bytes."""
        return _read(self.memory, _BYTES)

    @property
    def bf16_flops(self) -> int | None:
        """Dense bf16 peak, FLOP/s; None where the vendor states no dense rate."""
        return None if self.bf16 is None else _read(self.bf16, _FLOPS)

    @property
    def bandwidth_bytes(self) -> int:
        """Memory bandwidth, bytes a second."""
        return _read(self.bandwidth, _RATES)


ACCELERATORS: dict[str, Accelerator] = {a.name: a for a in (
    # NVIDIA's post on the A100's architecture: Table 1 prints “Peak BF16 Tensor Core | 312 TFLOPS | 624 TFLOPS”,
    # the second “using the new Sparsity feature”; and “the NVIDIA A100 GPU has 40 GB of high-speed HBM2 memory
    # with a class-leading 1555 GB/sec of memory bandwidth” [cite: nvidia-ampere-in-depth, Table 1 and "40 GB HBM2
    # and 40 MB L2 cache"]. The A100 of the post is the SXM4 module (its Figure 1).
    Accelerator("A100-SXM4-40GB", "NVIDIA", "40 GB", "312 TFLOPS", "1555 GB/sec", "nvidia-ampere-in-depth",
                "Table 1 (Peak BF16 Tensor Core, dense) and “40 GB HBM2 and 40 MB L2 cache”",
                "the memory as NVIDIA writes it, 40 GB, read as 10^9 bytes a GB"),
    # NVIDIA's H100 PCIe product brief (PB-11133-001_v02, November 2022), Table 2 “Memory Specifications”:
    # “Memory size | 80 GB” and “Peak memory bandwidth | 2,000 GB/s” [cite: nvidia-h100-pcie-brief, Table 2]. The
    # brief states no FLOP/s at all: no bf16 rate.
    Accelerator("H100-PCIe", "NVIDIA", "80 GB", None, "2,000 GB/s", "nvidia-h100-pcie-brief",
                "Table 2, Memory Specifications (Memory size; Peak memory bandwidth)",
                "the memory as NVIDIA writes it, 80 GB, read as 10^9 bytes a GB; no FLOP/s stated"),
    # NVIDIA's H100 datasheet (3440270, SEP24), “Technical Specifications”, column H100 SXM: “GPU Memory | 80GB” and
    # “GPU Memory Bandwidth | 3.35TB/s”; its “BFLOAT16 Tensor Core* | 1,979 teraFLOPS” is marked “*With sparsity”
    # and no dense rate is printed, so none is taken (halving it would be our figure, not NVIDIA's)
    # [cite: nvidia-h100-datasheet, Technical Specifications].
    Accelerator("H100-SXM", "NVIDIA", "80GB", None, "3.35TB/s", "nvidia-h100-datasheet",
                "“Technical Specifications”, H100 SXM (GPU Memory; GPU Memory Bandwidth)",
                "the memory as NVIDIA writes it, 80GB, read as 10^9 bytes a GB; the bf16 rate printed is “With "
                "sparsity” only"),
    # NVIDIA's TensorRT-LLM post on the H200's launch, “Latest HBM Memory”: “H200 is the first GPU with HBM3e memory
    # with 4.8TB/s of memory bandwidth” and “expands GPU memory capacity nearly 2X to 141 gigabytes (GB)”
    # [cite: tensorrt-llm-h200-launch, "Latest HBM Memory"]. The H200 of the post is the SXM module: it measures
    # “a full HGX (TP8) H200”. No bf16 rate is stated.
    Accelerator("H200-SXM", "NVIDIA", "141 gigabytes (GB)", None, "4.8TB/s", "tensorrt-llm-h200-launch",
                "“Latest HBM Memory”",
                "the memory as NVIDIA writes it, 141 gigabytes (GB), read as 10^9 bytes a GB; no FLOP/s stated"),
    # AMD's ROCm documentation: the MI300X's “Matrix BF16 | 2048 | 1307.4” (FLOPS/clock/CU, peak TFLOPS; the table
    # lists no sparse rate), “peak memory bandwidth of the GPU is 5.3 TB per second”, and 192 in the column
    # “VRAM (GiB)” [cite: rocm-mi300, mi300.md and gpu-arch-specs.rst].
    Accelerator("MI300X", "AMD", "192 GiB", "1307.4 TFLOPS", "5.3 TB per second", "rocm-mi300",
                "mi300.md (Matrix BF16, peak TFLOPS; peak memory bandwidth) and gpu-arch-specs.rst (VRAM (GiB))",
                "the memory as AMD's table heads it, in GiB"),
    # Google Cloud's TPU v5e page: “Peak compute per chip (bf16) | 197 TFLOPs” and “HBM2 capacity and bandwidth |
    # 16 GB, 819 GBps” [cite: google-cloud-tpu-v5e, "Key chip specifications"]. One chip, one TensorCore; no
    # sparse rate is given.
    Accelerator("TPU-v5e", "Google", "16 GB", "197 TFLOPs", "819 GBps", "google-cloud-tpu-v5e",
                "“Key chip specifications” (Peak compute per chip (bf16); HBM2 capacity and bandwidth)",
                "one chip; the memory as Google writes it, 16 GB, read as 10^9 bytes a GB"),
)}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


# The names a person may write: the table's name, and the model alone ("a100", "mi300x"), in any case and with or
# without dashes and spaces; a model with several entries is not a name of any one of them.
_MODELS: dict[str, list[str]] = {}
for _name in ACCELERATORS:
    _MODELS.setdefault(_key(_name.split("-")[0]), []).append(_name)
_NAMES = {**{m: names[0] for m, names in _MODELS.items() if len(names) == 1},
          **{_key(name): name for name in ACCELERATORS}}


def get(name: str) -> Accelerator:
    """An accelerator by name, in any case, with or without dashes ('mi300x', 'A100', 'a100-sxm4-40gb', 'H100 PCIe');
    a :class:`~derivations.reading.ConfigError` lists the known ones, or the entries a model's name ('h100') stands
    for where it has several."""
    found = _NAMES.get(_key(str(name)))
    several = _MODELS.get(_key(str(name)), [])
    if found is None and len(several) > 1:
        raise ConfigError(f"accelerator {name!r} names several: {', '.join(several)} (write one of them)")
    if found is None:
        raise ConfigError(f"unknown accelerator {name!r} (known: {', '.join(ACCELERATORS)})")
    return ACCELERATORS[found]

