"""derivations.memory and derivations.storage against published figures, each written as its source prints it:
the ZeRO paper's Figure 1, the vLLM paper's OPT-13B cache, accelerate's bert-base-cased table, Korthikanti et
al.'s ratios, and the block sizes of the formats as their papers define them."""

from __future__ import annotations

import pytest

from derivations import configs, memory, registry, storage
from derivations.site import memory as site_memory
from derivations.symbols import D, H, s


def published(key: str) -> site_memory.Published:
    return next(p for p in site_memory.published() if p.key == key)


def test_zero_figure_1():
    # Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N_d = 64, K = 12: (2 + 2 + K)Ψ = 120GB; P_os 4Ψ + KΨ/N_d =
    # 31.4GB; P_os+g 2Ψ + (2 + K)Ψ/N_d = 16.6GB; P_os+g+p (2 + 2 + K)Ψ/N_d = 1.9GB.
    psi, n = 7_500_000_000, 64
    as_printed = [(2 + 2 + 12) * psi, 4 * psi + 12 * psi // n, 2 * psi + (2 + 12) * psi // n, (2 + 2 + 12) * psi // n]
    derived = [storage.zero(psi, n, stage) for stage in range(4)]
    assert derived == as_printed
    assert [round(b / 10**9, 1) for b in derived] == [120.0, 31.4, 16.6, 1.9]


def test_zero_pads_a_partition():
    # 10 parameters on 4 devices: each holds 3 of each partitioned tensor's elements (padded), not 2.5.
    assert storage.zero(10, 4, 3) == 16 * 3


def test_vllm_opt_13b_token():
    # Kwon et al. 2023, section 3: “2 (key and value vectors) × 5120 (hidden state size) × 40 (number of layers)
    # × 2 (bytes per FP16)” = “800 KB”; up to 2,048 tokens, “1.6 GB”.
    figure = published("kwon2023")
    assert figure.exact == 2 * 5120 * 40 * 2 == 800 * 1024
    assert storage.in_unit(figure.exact, storage.BINARY) == "800.00 KiB"
    assert round(figure.exact * 2048 / 2**30, 1) == 1.6 != round(figure.exact * 2048 / 10**9, 1)


def test_accelerate_bert_base_cased():
    # accelerate's guide: bert-base-cased, float32, “Total Size 413.18 MB”.
    figure = published("accelerate-estimator")
    assert storage.in_unit(figure.exact, storage.BINARY) == "413.18 MiB"
    assert storage.in_unit(figure.exact, storage.DECIMAL) != "413.18 MB"


def test_the_notes_figures():
    # “75641856 / 1024 / 1024 = 72.1 MB”: a count, not bytes; the right count of BertModel on bert-base-chinese
    # is 102,267,648 (the home page's example).
    assert round(published("note-chinese-blog").exact / 2**20, 1) == 72.1
    assert registry.checkpoint("bert-base-chinese", "BertModel").total == 102_267_648
    # The hub's download bar prints “440M” for bert-base-uncased's model.safetensors: 10^6 bytes.
    assert published("note-stemgene").exact == 440_425_712
    assert round(published("note-stemgene").exact / 10**6) == 440


def test_binary_prefixes_on_counts():
    # llm-analysis's test expects "162.58 G" for its OPT-175B count; lit-llama's answer prints 26.07 "GB".
    assert f"{published('llm-analysis').exact / 2**30:.2f}" == "162.58"
    assert int(published("lit-llama-67").exact / 2**30 * 100) / 100 == 26.07


def test_units():
    assert storage.both_units(440_425_712) == "440,425,712 bytes = 440.43 MB = 420.02 MiB"
    assert storage.in_unit(999, storage.DECIMAL) == "999 B"


@pytest.mark.parametrize("name, expected", [
    ("fp32", 4 * 16384), ("bf16", 2 * 16384), ("fp8", 16384),
    # GPTQ/AWQ: 4 bits a weight, a 16-bit scale and a 4-bit zero point per group of 128.
    ("int4", 16384 // 2 + 16384 // 128 * (16 + 4) // 8),
    # bitsandbytes NF4: 4 bits a weight, a 32-bit absmax per block of 64.
    ("nf4", 16384 // 2 + 16384 // 64 * 4),
    # OCP MXFP4: 4 bits a weight, an 8-bit shared exponent per block of 32.
    ("mxfp4", 16384 // 2 + 16384 // 32),
])
def test_formats_on_one_matrix(name: str, expected: int):
    assert storage.FORMATS[name].tensor_bytes(16384, quantizable=True) == expected


def test_four_bit_formats_keep_the_rest_at_sixteen_bits():
    assert storage.FORMATS["int4"].tensor_bytes(768, quantizable=False) == 2 * 768
    # A last, partial block has a scale of its own.
    assert storage.FORMATS["nf4"].tensor_bytes(65, quantizable=True) == -(-(65 * 4 + 2 * 32) // 8)


def test_which_tensors_a_four_bit_format_quantizes():
    # GPT-2: the four attention and two MLP matrices of each block; not the tied embedding, the norms or biases.
    resolved = registry.checkpoint("gpt2")
    quantized = [t for t in memory.tensors(resolved.part) if t.quantizable]
    assert sorted(t.name for t in quantized) == ["down", "output", "qkv", "up"]
    assert sum(memory.evaluate_tensor(t, resolved.values) for t in quantized) == 12 * (4 * 768 * 768 + 2 * 768 * 3072)


def test_optimizers_per_parameter():
    # EleutherAI's Transformer Math 101 and ZeRO: fp32 Adam 4 + 4 + 8; mixed precision 2 + 2 + 12 = 16 (18 with
    # fp32 gradients); SGD with momentum 4 + 4 + 4.
    assert {name: o.per_parameter for name, o in storage.OPTIMIZERS.items()} == {
        "adam": 16, "adam-mixed": 16, "adam-mixed-fp32-grads": 18, "sgd": 12}


def test_adam_8bit_threshold():
    # bitsandbytes: tensors of at least 4,096 elements get uint8 states in blocks of 256 (an fp32 absmax each) and
    # the two 256-entry fp32 maps; smaller ones keep two fp32 states.
    assert storage.adam_8bit_states([(4096, 1)]) == 2 * 4096 + 2 * 4 * 16 + 2 * 256 * 4
    assert storage.adam_8bit_states([(4095, 3)]) == 3 * 8 * 4095


@pytest.mark.parametrize("tokens, window, kept", [(10, None, 10), (10, 4, 3), (2, 4, 2), (3, 4, 3), (4, 4, 3),
                                                  (10, 1, 10)])
def test_sliding_layers_keep_window_minus_one(tokens: int, window, kept: int):
    # transformers' DynamicSlidingWindowLayer keeps [-window + 1:] of the keys: a window of 1 slices [-0:], all.
    assert storage.kept(tokens, window) == kept


def test_korthikanti_ratios():
    # Korthikanti et al. 2022, section 5: 5as/h = 80 for GPT-3 (a = 96, s = 2,048, h = 12,288), 64 for MT-NLG
    # (a = 128, h = 20,480).
    assert site_memory.attention_ratio.subs({H: 96, s: 2048, D: 12288}) == 80
    assert site_memory.attention_ratio.subs({H: 128, s: 2048, D: 20480}) == 64


def test_latent_attention_against_multi_head():
    # DeepSeek-V3: the cache keeps kv_lora_rank 512 + qk_rope_head_dim 64 a token and layer (61 layers); multi-head
    # attention with its 128 heads would keep 128 × (128 + 64) keys and 128 × 128 values.
    assert memory.kv_cache(configs.load("deepseek-v3"), None, 1) == 61 * (512 + 64)


def test_the_pages_opening_table_is_the_command_lines_weights_and_cache():
    # memory:contexts on the memory page: the weights and the cache in bf16 at each length, as `derivations memory
    # qwen2.5-7b --seq N --json` gives them (the command line's cache is checked against transformers' own).
    import json
    import re

    import in_process
    from derivations.site import shortcodes

    shown = shortcodes.expand("memory", "contexts qwen2.5-7b", lambda source, display: source)
    weights = int(re.search(r"weights of ([\d,]+) bytes", shown)[1].replace(",", ""))
    rows = [[int(n.replace(",", "")) for n in re.findall(r"<td>([\d,]+)", row)]
            for row in re.findall(r"<tr>(<td>.*?)</tr>", shown)]
    assert [row[0] for row in rows] == [8_192, 32_768, 131_072]
    for tokens, cache, both in rows:
        out = json.loads(in_process.printed("memory", "qwen2.5-7b", "--seq", str(tokens), "--json")[1])
        assert (weights, cache, both) == (out["weights_bytes"], out["kv_cache_bytes"],
                                          out["weights_bytes"] + out["kv_cache_bytes"]), tokens
