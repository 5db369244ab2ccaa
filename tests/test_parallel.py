"""Splitting a model over devices (derivations.parallel), against what comes from outside the code: Megatron's padding
of the vocabulary as its own code pads it, Korthikanti et al.'s activations with tensor parallelism and ZeRO's
partitions as the papers write them, a model's tensors split by hand from its config.json, and the command line's
form (one line and exit status 2 for a split it cannot make, 100 columns). The reference implementations' own
figures (accelerate's largest layer, transformers' tensor-parallel plans) are tests/test_reference_parallel.py's."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import in_process
import pytest

import derivations
from derivations import configs, parallel


def run_json(*argv: str) -> dict:
    status, out, err = in_process.derivations("memory", *argv, "--json")
    assert status == 0, err
    return json.loads(out)


# ---------------------------------------------------------------------------------------------
# The vocabulary, padded as Megatron pads it
# ---------------------------------------------------------------------------------------------

def megatron_padding(orig_vocab_size: int, make_vocab_size_divisible_by: int, tensor_model_parallel_size: int) -> int:
    # Megatron-LM's _vocab_size_with_padding, as its tokenizer.py wrote it (its unit test keeps this loop as the
    # "old" implementation the closed formula must equal) [cite: megatron-code]; 128 is --make-vocab-size-divisible-by's
    # default.
    after = orig_vocab_size
    multiple = make_vocab_size_divisible_by * tensor_model_parallel_size
    while (after % multiple) != 0:
        after += 1
    return after


@pytest.mark.parametrize("devices", [1, 2, 3, 4, 6, 8, 16, 64])
def test_vocabulary_padded_as_megatron_pads_it(devices: int) -> None:
    for vocabulary in [*range(1, 300_000, 997), 32_000, 50_257, 128_256, 151_936, 256_000]:
        padded = megatron_padding(vocabulary, 128, devices)
        assert parallel.padded_vocabulary(vocabulary, devices) == padded
        assert parallel.slices("vocab", vocabulary, devices) * devices == padded


def test_a_vocabulary_already_a_multiple_is_not_padded() -> None:
    # Llama 2's 32,000 rows are 250 times 128: two devices hold 16,000 each, as they would without padding.
    assert run_json("llama-2-7b", "--tp", "2")["tensor_parallel"]["vocabulary_padded"] == [32_000]


# ---------------------------------------------------------------------------------------------
# A model split by hand from its config.json
# ---------------------------------------------------------------------------------------------

def llama_by_hand(name: str, devices: int) -> tuple[int, int]:
    """The parameters and the key/value cache elements a token leaves, on one device, for a LLaMA-shaped checkpoint
    (untied head), as Megatron splits it: q and o by query heads, k and v by key/value heads (one, kept by several
    devices, where they are fewer than the devices), gate, up and down by the inner width, the norms whole, the
    vocabulary padded to a multiple of 128 N."""
    c = configs.load(name)
    d, f, layers = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    heads, kv_heads = c["num_attention_heads"], c["num_key_value_heads"]
    head = c.get("head_dim") or d // heads
    kv_here = kv_heads // devices if kv_heads >= devices else 1
    rows = megatron_padding(c["vocab_size"], 128, devices) // devices
    layer = 2 * d * (heads // devices) * head + 2 * d * kv_here * head + 3 * d * (f // devices) + 2 * d
    return 2 * rows * d + layers * layer + d, layers * 2 * kv_here * head


@pytest.mark.parametrize("name, devices", [("llama-3-8b", 8), ("llama-2-70b", 4), ("llama-3-70b", 16),
                                           ("mistral-7b", 2), ("llama-2-7b", 1)])
def test_tensor_parallel_of_llama_by_hand(name: str, devices: int) -> None:
    # 4,000 tokens: fewer than Mistral's window keeps.
    parameters, per_token = llama_by_hand(name, devices)
    split = run_json(name, "--seq", "4000", "--tp", str(devices))["tensor_parallel"]
    assert split["parameters_per_device"] == parameters
    assert split["weights_bytes"] == 2 * parameters  # bf16
    assert split["kv_cache_bytes"] == 2 * 4000 * per_token
    assert split["total_bytes"] == split["weights_bytes"] + split["kv_cache_bytes"]


def test_a_latent_cache_is_whole_on_every_device() -> None:
    # DeepSeek-V3 caches R_kv + d_rope a token, shared by every head: splitting the heads leaves it whole.
    c = configs.load("deepseek-v3")
    result = run_json("deepseek-v3", "--seq", "4096", "--tp", "8")
    assert result["tensor_parallel"]["kv_cache_bytes"] == \
        2 * 4096 * c["num_hidden_layers"] * (c["kv_lora_rank"] + c["qk_rope_head_dim"])


def test_largest_layer_by_hand() -> None:
    # Llama 2 7B: a layer (4 D^2 + 3 D F + 2 D) outweighs the table (V D); Llama 3 8B: the table outweighs a layer.
    c = configs.load("llama-2-7b")
    d, f = c["hidden_size"], c["intermediate_size"]
    result = run_json("llama-2-7b", "--seq", "1")
    assert (result["largest_layer_bytes"], result["largest_layer_copies"]) == (2 * (4 * d * d + 3 * d * f + 2 * d), 32)
    c = configs.load("llama-3-8b")
    assert run_json("llama-3-8b", "--seq", "1", "--dtype", "fp32")["largest_layer_bytes"] == \
        4 * c["vocab_size"] * c["hidden_size"]


# ---------------------------------------------------------------------------------------------
# Training: Korthikanti et al.'s activations with tensor parallelism, ZeRO's partitions
# ---------------------------------------------------------------------------------------------

def test_activations_with_tensor_parallelism_as_the_paper_writes_them() -> None:
    # Korthikanti et al., Table 2, "tensor parallel (baseline)": sbh(10 + 24/t + 5as/(ht)) a layer
    # [cite: korthikanti2022, Table 2]; and with selective recomputation sbh(10 + 24/t). GPT-3 175B at 2K tokens.
    c = configs.load("gpt3-175b")
    s, b, h, a, layers = 2048, 1, c["n_embd"], c["n_head"], c["n_layer"]
    for t in (1, 2, 4, 8):
        training = run_json("gpt3-175b", "--seq", str(s), "--devices", str(8 * t), "--tp", str(t))["zero"]
        assert training["activations_bytes"] == layers * s * b * h * (10 + Fraction(24, t) + Fraction(5 * a * s, h * t))
        assert training["activations_selective_recomputation_bytes"] == layers * s * b * h * (10 + Fraction(24, t))
        assert training["activations_full_recomputation_bytes"] == layers * 2 * s * b * h
    # Without tensor parallelism, the paper's sbh(34 + 5as/h): the memory command's own activations.
    result = run_json("gpt3-175b", "--seq", str(s), "--devices", "8")
    assert result["zero"]["activations_bytes"] == result["activations_bytes"]


@pytest.mark.parametrize("tp", [1, 8])
def test_zero_stages_as_the_paper_writes_them(tp: int) -> None:
    # Rajbhandari et al., Figure 1, with K = 12 (mixed-precision Adam): (2 + 2 + K) P, 2P + 2P + KP/N, 2P + (2 + K)P/N,
    # (2 + 2 + K)P/N [cite: rajbhandari2020, Figure 1], a partition holding ceil(P/N) of the parameters; P the
    # parameters of one tensor-parallel device, N the data-parallel replicas.
    result = run_json("llama-3-8b", "--seq", "8192", "--devices", "64", "--tp", str(tp))
    training = result["zero"]
    p = result["parameters"] if tp == 1 else result["tensor_parallel"]["parameters_per_device"]
    n = 64 // tp
    share = -(-p // n)
    assert (training["parameters_per_device"], training["data_parallel"]) == (p, n)
    expected = [16 * p, 4 * p + 12 * share, 2 * p + 14 * share, 16 * share]
    assert [stage["model_states_bytes"] for stage in training["stages"]] == expected
    for stage in training["stages"]:
        assert stage["total_bytes"] == stage["model_states_bytes"] + training["activations_bytes"]
        assert stage["total_full_recomputation_bytes"] == \
            stage["model_states_bytes"] + training["activations_full_recomputation_bytes"]


def test_fits_a_device() -> None:
    # An A100's 40 GB (NVIDIA's figure, read as 10^9 bytes a GB): Llama 3 8B over 8 devices fits, 70B on one does not.
    small = run_json("llama-3-8b", "--seq", "8k", "--tp", "8", "--gpu", "a100")
    assert small["device_memory_bytes"] == 40 * 10**9 and small["tensor_parallel"]["fits"]
    large = run_json("llama-3-70b", "--seq", "8k", "--tp", "1", "--memory", "40GB")
    assert large["device_memory_bytes"] == 40 * 10**9 and not large["tensor_parallel"]["fits"]
    training = run_json("llama-3-8b", "--seq", "8k", "--devices", "64", "--memory", "80GiB")["zero"]["stages"]
    assert [stage["fits_selective_recomputation"] for stage in training] == \
        [stage["total_selective_recomputation_bytes"] <= 80 * 2**30 for stage in training]


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["llama-3-8b", "--tp", "3"], "attention heads"),  # 32 heads
    (["gpt2", "--tp", "5"], "attention heads"),  # 12 heads
    (["phi-3-medium-4k", "--tp", "4"], "key/value heads"),  # 40 heads, 10 key/value heads
    (["qwen2.5-7b", "--tp", "28"], "inner width"),  # 28 heads, 4 key/value heads; 18,944 is 2^9 x 37
    (["llama-3-8b", "--tp", "0"], "--tp"),
    (["llama-3-8b", "--tp", "two"], "--tp"),
    (["llama-3-8b", "--devices", "12", "--tp", "8"], "multiple of --tp"),
    (["llama-3-8b", "--devices", "-1"], "--devices"),
    (["llama-3-8b", "--tp", "8", "--memory", "80GB", "--gpu", "a100"], "not both"),
    (["llama-3-8b", "--tp", "8", "--memory", "lots"], "size"),
    (["llama-3-8b", "--tp", "8", "--gpu", "abacus"], "accelerator"),
])
def test_a_split_it_cannot_make_is_one_line_and_exit_2(argv: list[str], words: str) -> None:
    status, out, err = in_process.derivations("memory", *argv)
    assert status == 2 and not out
    assert err.count("\n") == 1 and words in err, err


@pytest.mark.parametrize("argv", [
    ["llama-3-70b", "--seq", "32k", "--tp", "16", "--gpu", "mi300x"],
    ["deepseek-v3", "--seq", "128k", "--tp", "8", "--devices", "2048", "--memory", "80GB"],
    ["t5-11b", "--seq", "512", "--target", "128", "--tp", "4", "--devices", "64"],
    ["gemma-3-1b", "--tp", "4", "--devices", "64", "--dtype", "int4"],
    ["qwen3-235b-a22b", "--tp", "4", "--devices", "1024", "--gpu", "a100"],
])
def test_the_split_tables_fit_100_columns(argv: list[str]) -> None:
    status, out, err = in_process.derivations("memory", *argv)
    assert status == 0, err
    assert max(map(len, out.splitlines())) <= 100
    assert "largest layer" in out and "ZeRO" in out if "--devices" in argv else "weights + cache" in out


def test_json_keys() -> None:
    result = run_json("llama-3-8b", "--seq", "8k", "--tp", "8", "--devices", "64", "--gpu", "a100")
    assert {"largest_layer", "largest_layer_copies", "largest_layer_bytes", "tensor_parallel", "zero",
            "device_memory_bytes"} <= result.keys()
    assert {"devices", "parameters_per_device", "weights_bytes", "kv_cache_bytes", "total_bytes", "kv_heads_per_device",
            "kv_heads_replicated", "vocabulary_padded", "fits"} <= result["tensor_parallel"].keys()
    assert [stage["stage"] for stage in result["zero"]["stages"]] == [0, 1, 2, 3]
    # Without the options: the largest layer alone, in --dtype's format.
    plain = run_json("llama-3-8b", "--seq", "8k", "--dtype", "fp16")
    assert "largest_layer_bytes" in plain and not {"tensor_parallel", "zero", "device_memory_bytes"} & plain.keys()
    assert plain["split_dtype"] == "fp16"


def test_a_quantized_config_is_split_unquantized_and_says_so() -> None:
    # gpt-oss-20b's released config quantizes its experts to MXFP4: the split figures are at the width it keeps.
    config = str(Path(__file__).parent / "configs" / "gpt-oss-20b.json")
    result = run_json(config, "--seq", "8k", "--tp", "8")
    assert "quantization" in result and result["split_dtype"] == result["dtype"] == "bf16"
    status, out, _ = in_process.derivations("memory", config, "--seq", "8k", "--tp", "8")
    assert status == 0 and "unquantized" in out


def test_the_python_api_answers_as_the_command_line() -> None:
    argv = ["llama-3-70b", "--seq", "32768", "--tp", "16", "--devices", "64", "--memory", "80GB"]
    api = derivations.memory_use("llama-3-70b", seq=32768, tp=16, devices=64, memory="80GB")
    assert api.json() == run_json(*argv)
    assert api.tensor_parallel["kv_heads_replicated"] is True
