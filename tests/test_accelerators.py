"""The accelerators' table (derivations/accelerators.py): each figure is read from the vendor's words exactly, each
entry cites a source that exists, and a name is found in the forms a person writes."""

import pytest

from derivations import accelerators, sources
from derivations.reading import ConfigError


def test_every_accelerator_cites_a_source_and_has_positive_figures():
    assert accelerators.ACCELERATORS
    for name, card in accelerators.ACCELERATORS.items():
        source = sources.get(card.source)
        assert source.url.startswith("https://") and (source.revision or source.read), name
        assert card.locator, name
        assert card.memory_bytes > 0 and card.bandwidth_bytes > 0, name
        assert card.bf16_flops is None or card.bf16_flops > 0, name


# The vendors' words, as read (the comments in derivations/accelerators.py quote the sentences):
# NVIDIA's A100 post, Table 1 “Peak BF16 Tensor Core | 312 TFLOPS | 624 TFLOPS” (the second with sparsity) and
# “40 GB of high-speed HBM2 memory with a class-leading 1555 GB/sec” [cite: nvidia-ampere-in-depth];
# AMD's ROCm documentation, “Matrix BF16 | 2048 | 1307.4”, “5.3 TB per second”, and 192 under “VRAM (GiB)”
# [cite: rocm-mi300]; Google Cloud's TPU v5e page, “Peak compute per chip (bf16) | 197 TFLOPs” and “HBM2 capacity
# and bandwidth | 16 GB, 819 GBps” [cite: google-cloud-tpu-v5e] (GB and GBps: bytes, 10^9);
# NVIDIA's H100 PCIe brief, Table 2 “Memory size | 80 GB” and “Peak memory bandwidth | 2,000 GB/s”, and no FLOP/s
# [cite: nvidia-h100-pcie-brief, Table 2]; NVIDIA's H100 datasheet, H100 SXM “GPU Memory | 80GB”, “GPU Memory
# Bandwidth | 3.35TB/s”, and bf16 only as “1,979 teraFLOPS” “*With sparsity” [cite: nvidia-h100-datasheet]; NVIDIA's
# TensorRT-LLM post, the H200's “4.8TB/s of memory bandwidth” and “141 gigabytes (GB)” [cite: tensorrt-llm-h200-launch].
# None: the vendor's text states no dense bf16 rate (the sparse one is not halved into one).
@pytest.mark.parametrize(("name", "memory", "bf16", "bandwidth"), [
    ("A100-SXM4-40GB", 40 * 10**9, 312 * 10**12, 1555 * 10**9),
    ("H100-PCIe", 80 * 10**9, None, 2000 * 10**9),
    ("H100-SXM", 80 * 10**9, None, 335 * 10**10),
    ("H200-SXM", 141 * 10**9, None, 48 * 10**11),
    ("MI300X", 192 * 2**30, 13074 * 10**11, 53 * 10**11),
    ("TPU-v5e", 16 * 10**9, 197 * 10**12, 819 * 10**9),
])
def test_the_figures_are_the_vendors_read_exactly(name, memory, bf16, bandwidth):
    card = accelerators.ACCELERATORS[name]
    assert (card.memory_bytes, card.bf16_flops, card.bandwidth_bytes) == (memory, bf16, bandwidth)


@pytest.mark.parametrize(("written", "name"), [
    ("mi300x", "MI300X"), ("MI300X", "MI300X"), ("mi-300x", "MI300X"), ("a100", "A100-SXM4-40GB"),
    ("A100-SXM4-40GB", "A100-SXM4-40GB"), ("a100 sxm4 40gb", "A100-SXM4-40GB"), ("tpu v5e", "TPU-v5e"),
    ("TPU-v5e", "TPU-v5e"), ("h100-sxm", "H100-SXM"), ("H100 SXM", "H100-SXM"), ("H100 PCIe", "H100-PCIe"),
    ("h100pcie", "H100-PCIe"), ("h200", "H200-SXM"), ("H200 SXM", "H200-SXM"),
])
def test_a_name_is_found_in_any_case_with_or_without_dashes(written, name):
    assert accelerators.get(written).name == name


def test_an_unknown_name_lists_the_known_ones_on_one_line():
    with pytest.raises(ConfigError) as refused:
        accelerators.get("Z9000")
    message = str(refused.value)
    assert "\n" not in message and "'Z9000'" in message
    assert all(name in message for name in accelerators.ACCELERATORS)


def test_a_rate_in_bits_is_not_read_as_bytes():
    # Google's page writes its interconnect in Gbps (bits) beside its memory's GBps (bytes).
    assert accelerators._read("819 GBps", accelerators._RATES) == 819 * 10**9
    with pytest.raises(AssertionError):
        accelerators._read("1600 Gbps", accelerators._RATES)


def test_a_model_with_several_entries_is_refused_on_one_line_naming_them():
    # Two H100s, the PCIe card and the SXM module, with different bandwidths: "h100" alone is neither.
    with pytest.raises(ConfigError) as refused:
        accelerators.get("h100")
    message = str(refused.value)
    assert "\n" not in message and "'h100'" in message
    assert "H100-PCIe" in message and "H100-SXM" in message and "A100" not in message


def test_the_vendors_text_is_kept_as_written():
    # The quoted text is what the tables and fit show: NVIDIA's own spelling, spaces and commas included.
    assert [(card.memory, card.bandwidth) for card in map(accelerators.get, ("H100-PCIe", "H100-SXM", "H200"))] == [
        ("80 GB", "2,000 GB/s"), ("80GB", "3.35TB/s"), ("141 gigabytes (GB)", "4.8TB/s")]
    # GiB is 2^30 where a vendor writes it (AMD's “VRAM (GiB)”); a unit the table does not know is not guessed.
    assert accelerators._read("192 GiB", accelerators._BYTES) == 192 * 2**30
    with pytest.raises(AssertionError):
        accelerators._read("80 GT", accelerators._BYTES)
