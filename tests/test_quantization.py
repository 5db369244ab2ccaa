"""A config's quantization_config on the command line: the format it reads, the note beside --dtype, one line for
what it cannot read; and the memory page's formulas, which must be the code's. What the bytes are against the
libraries and the released files: tests/test_reference_quantized.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derivations import answers, configs, quantization
from derivations.components import evaluate
from derivations.reading import ConfigError
from derivations.site import memory as site_memory

ROOT = Path(__file__).resolve().parents[1]
# openai/gpt-oss-20b's config.json as released, its quantization_config included [cite: hub-openai-gpt-oss].
GPT_OSS = ROOT / "tests" / "configs" / "gpt-oss-20b.json"
COLUMNS = 100  # the width for a terminal


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "derivations", *args], capture_output=True, text=True, cwd=ROOT)


def with_quantization(tmp_path: Path, quantization_config) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(configs.load("qwen2.5-7b")) | {"quantization_config": quantization_config}))
    return str(path)


def test_released_config_on_the_command_line() -> None:
    # The index of openai/gpt-oss-20b's files declares "total_size": 13761264768 [cite: hub-openai-gpt-oss].
    result = run("memory", str(GPT_OSS), "--seq", "4k", "--json")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    out = json.loads(result.stdout)
    assert out["quantization"]["method"] == "mxfp4"
    assert out["weights_bytes"] == out["quantization"]["weights_bytes"] == 13_761_264_768


def test_the_table_says_the_format_in_words() -> None:
    result = run("memory", str(GPT_OSS), "--seq", "4k")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("weights, mxfp4") and "quantization_config" in line for line in lines)
    assert any(line.lstrip().startswith("format") and "MXFP4" in line for line in lines)
    assert max(map(len, lines)) <= COLUMNS


def test_count_is_not_the_format() -> None:
    # A quantization_config sets no parameter: the count is the unquantized model's.
    config = json.loads(GPT_OSS.read_text())
    quantized = answers.count(config)[0]["total"]
    config.pop("quantization_config")
    assert quantized == answers.count(config)[0]["total"]


def test_unknown_method_is_refused_in_one_line(tmp_path) -> None:
    result = run("memory", with_quantization(tmp_path, {"quant_method": "hqq", "nbits": 4}), "--seq", "1k")
    assert result.returncode == 2
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1 and "'hqq'" in result.stderr


@pytest.mark.parametrize("quantization_config", [
    {"quant_method": "gptq", "bits": 5, "group_size": 128},
    {"quant_method": "gptq", "bits": 4, "group_size": 0},
    {"quant_method": "gptq", "bits": "4"},
    {"quant_method": "gptq", "bits": 4, "checkpoint_format": "marlin"},
    {"quant_method": "awq", "bits": 4, "version": "exllama"},
    {"quant_method": "fp8", "weight_block_size": [128]},
    {"quant_method": "bitsandbytes"},
    {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "int4"},
    {"quant_method": "bitsandbytes", "load_in_4bit": True, "llm_int8_skip_modules": "lm_head"},
    {"quant_method": "fp8", "modules_to_not_convert": ["model.layers.(0"]},
    "fp8",
])
def test_bad_fields_are_refused(tmp_path, quantization_config) -> None:
    result = run("memory", with_quantization(tmp_path, quantization_config), "--seq", "1k")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr


AWQ = {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq", "version": "gemm",
       "zero_point": True}


def test_a_quantizing_dtype_is_not_applied(tmp_path) -> None:
    path = with_quantization(tmp_path, AWQ)
    plain = json.loads(run("memory", path, "--seq", "1k", "--json").stdout)
    asked = run("memory", path, "--seq", "1k", "--dtype", "int4", "--json")
    assert asked.returncode == 0
    assert "quantization_config" in asked.stderr and "--dtype int4" in asked.stderr
    assert json.loads(asked.stdout)["weights_bytes"] == plain["weights_bytes"]


def test_a_float_dtype_keeps_the_rest(tmp_path) -> None:
    # --dtype fp32: the tensors AWQ leaves (embeddings, norms, head) and the cache in 4 bytes, without a note.
    path = with_quantization(tmp_path, AWQ)
    half = json.loads(run("memory", path, "--seq", "1k", "--json").stdout)
    full = run("memory", path, "--seq", "1k", "--dtype", "float32", "--json")
    assert full.returncode == 0 and full.stderr == ""
    out = json.loads(full.stdout)
    assert (out["dtype"], out["quantization"]["kept_dtype"]) == ("fp32", "fp32")
    assert out["kv_cache_bytes"] == 2 * half["kv_cache_bytes"]
    assert out["weights_bytes"] > half["weights_bytes"]


def test_without_a_quantization_config_nothing_changes() -> None:
    out = answers.memory(configs.load("qwen2.5-7b"), None, 1024)
    assert "quantization" not in out and out["weights_bytes"] == out["weights_bytes_by_dtype"]["bf16"]


def test_decode_reads_16_bit_weights(tmp_path) -> None:
    # flops' decode step counts the weights in bf16 (as it says), whatever the config's format.
    config = dict(configs.load("qwen2.5-7b"))
    plain = answers.flops(config, None, 1024)[0]["decode"]
    quantized = answers.flops(config | {"quantization_config": AWQ}, None, 1024)[0]["decode"]
    assert plain == quantized


# ---------------------------------------------------------------------------------------------
# The memory page's formula of each method is the code's
# ---------------------------------------------------------------------------------------------

def matrix(n_in: int, n_out: int) -> quantization.Matrix:
    return quantization.Matrix("model.layers.<i>.mlp.down_proj", "weight", 1, 1, 1, n_in, n_out, True, False, False,
                               False, True)


@settings(max_examples=50, deadline=None)
@given(groups=st.integers(1, 40), words=st.integers(1, 600), data=st.data())
def test_page_formulas_are_the_code(groups: int, words: int, data: st.DataObject) -> None:
    # Sizes AWQ can pack (whole groups of 128 inputs, whole words of 8 outputs), MXFP4 too (whole blocks of 32
    # inputs); any sizes for the others.
    awq = (128 * groups, 8 * words)
    free = (data.draw(st.integers(1, 5000)), data.draw(st.integers(1, 5000)))
    sizes = {"awq": awq, "mxfp4": (32 * data.draw(st.integers(1, 200)), free[1])}
    for example, per_map, _ in site_memory.QUANTIZED:
        scheme = quantization.read({"quantization_config": example})
        n_in, n_out = sizes.get(example["quant_method"], free)
        values = {site_memory.n_in: n_in, site_memory.n_out: n_out} | site_memory.QUANTIZED_SYMBOLS
        assert scheme.module_bytes(matrix(n_in, n_out)) == evaluate(per_map, values), example


def test_page_examples_are_what_the_formulas_assume() -> None:
    b, g = (site_memory.QUANTIZED_SYMBOLS[s] for s in sorted(site_memory.QUANTIZED_SYMBOLS, key=str))
    for example, _, _ in site_memory.QUANTIZED:
        if example["quant_method"] in ("gptq", "awq"):
            assert (example["bits"], example["group_size"]) == (b, g)


def test_reading_skips_as_transformers_does() -> None:
    # quantizers_utils.should_convert_module's own examples [cite: transformers-integrations]: "layer.1" skips
    # "layer.1.attn", not "layer.11.attn"; "layer.*" skips "layer.11.attn"; "mlp.gate" not "mlp.gate_proj"; "fc1"
    # skips "model.decoder.layers.23.fc1".
    assert quantization.skipped("layer.1.attn", ["layer.1"])
    assert not quantization.skipped("layer.11.attn", ["layer.1"])
    assert quantization.skipped("layer.11.attn", ["layer.*"])
    assert not quantization.skipped("model.mlp.gate_proj", ["mlp.gate"])
    assert quantization.skipped("model.decoder.layers.23.fc1", ["fc1"])
    with pytest.raises(ConfigError):
        quantization.skipped("a", ["("])
