"""fit: the longest context and the largest batch a memory holds (derivations.fits, answers.fit, the command line and
the API), and the roofline's lower bounds that flops adds with --gpu (derivations.roofline).

What fit searches is answers.inference_bytes, checked against what torch holds elsewhere; here: that the answer is
the largest T (and B) within the memory, that the function it searches never decreases (the property the exact
search rests on), and what stops the answer where it stops.
"""

from __future__ import annotations

import json
from fractions import Fraction

import in_process
import pytest

import derivations
from derivations import answers, configs, fits, roofline
from derivations.reading import ConfigError

LONGEST = 2**24  # the longest length the command line answers (its --seq's range)


def inference(name: str, tokens: int, batch: int = 1, dtype: str = "bf16") -> int:
    config = configs.load(name)
    return answers.inference_bytes(config, None, tokens, batch, dtype)


def fit(name: str, *args: str) -> dict:
    status, out = in_process.printed("fit", name, *args, "--json")
    assert status == 0, out
    return json.loads(out)


# ---------------------------------------------------------------------------------------------
# The search, on functions whose answer is worked out by hand
# ---------------------------------------------------------------------------------------------

def test_the_largest_that_fits_is_found_exactly():
    # 1,000 bytes of weights and 10 a token: within 20,000 bytes, 1,900 tokens (1,000 + 19,000), not 1,901.
    found = fits.longest_context(lambda t: 1000 + 10 * t, 20_000, 1000, LONGEST)
    assert (found["max_tokens"], found["max_tokens_limit"]) == (1900, "memory")
    assert (found["inference_bytes_at_max_tokens"], found["inference_bytes_past_max_tokens"]) == (20_000, 20_010)
    assert fits.largest(lambda t: 1000 + 10 * t, 20_009, LONGEST) == 1900


def test_a_window_stops_the_cache_and_every_length_fits():
    # A sliding window of 4,096 keeps the last 4,095 tokens: past them the bytes stay 1,000 + 40,950.
    def window(t: int) -> int:
        return 1000 + 10 * min(t, 4095)

    found = fits.longest_context(window, 50_000, 1000, LONGEST, windows=[4096])
    assert (found["max_tokens"], found["max_tokens_limit"]) == (LONGEST, "longest")
    assert "4,096" in found["max_tokens_reason"] and found["inference_bytes_past_max_tokens"] is None
    assert fits.longest_context(window, 41_949, 1000, LONGEST)["max_tokens"] == 4094


def test_a_table_of_positions_caps_the_length():
    found = fits.longest_context(lambda t: 10 * t, 10**9, 0, LONGEST, positions=1024)
    assert (found["max_tokens"], found["max_tokens_limit"]) == (1024, "positions")


def test_none_fits_where_the_weights_alone_do_not():
    found = fits.longest_context(lambda t: 1000 + t, 999, 1000, LONGEST)
    assert (found["max_tokens"], found["max_tokens_limit"]) == (None, "weights")
    assert found["inference_bytes_past_max_tokens"] == 1001  # what one token needs
    found = fits.longest_context(lambda t: 1000 + 10 * t, 1005, 1000, LONGEST)  # the weights fit, one token not
    assert (found["max_tokens"], found["max_tokens_limit"]) == (None, "memory")
    batch = fits.largest_batch(lambda b: 1000 + 10 * b, 1005, 1000, LONGEST, 8)
    assert (batch["max_batch"], batch["max_batch_limit"]) == (None, "memory")


def test_a_function_that_decreases_is_caught():
    # The search's assumption, asserted where it reads: a value between two others lies between theirs.
    with pytest.raises(AssertionError, match="decreasing"):
        fits.largest(lambda t: 10**6 if t == LONGEST else 5000 - t // 2**20, 5000, LONGEST)


# ---------------------------------------------------------------------------------------------
# On the checkpoints: the property, and the answer is the largest
# ---------------------------------------------------------------------------------------------

# Families with each kind of cache: learned positions (gpt2), a window on every layer (mistral-7b), windows on
# every other layer (gemma-2-9b), grouped-query (qwen2.5-7b), latent (deepseek-v2-lite), an encoder-decoder
# (t5-small), a mixture (mixtral-8x7b), an encoder (bert-base-uncased).
CHECKPOINTS = ("gpt2", "mistral-7b", "gemma-2-9b", "qwen2.5-7b", "deepseek-v2-lite", "t5-small", "mixtral-8x7b",
               "bert-base-uncased")


def derived(name: str) -> bool:
    """Whether the class has an inference total (a forward whose transient peak is derived); where not, fit says
    why in one line (test_a_class_without_an_inference_total_is_one_line)."""
    return "inference_bytes" in answers.memory(configs.load(name), None, 1)


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_inference_bytes_never_decrease_with_the_length_or_the_batch(name):
    if not derived(name):
        pytest.skip(f"{name}: no inference total (its forward's transient peak is not derived)")
    config = configs.load(name)
    top = config.get("max_position_embeddings") if name in ("gpt2", "bert-base-uncased") else None
    top = top or config.get("n_positions") or LONGEST
    lengths = sorted({t for t in (1, 2, 3, 511, 512, 513, 1023, 1024, 4094, 4095, 4096, 4097, 8191, 8192, 8193,
                                  10**5, 10**6, LONGEST) if t <= top})
    for batch in (1, 2, 7):
        values = [inference(name, t, batch) for t in lengths]
        assert values == sorted(values), (name, batch)
    for tokens in (1, min(top, 4096)):
        values = [inference(name, tokens, b) for b in (1, 2, 3, 64, 1000, LONGEST)]
        assert values == sorted(values), (name, tokens)


@pytest.mark.parametrize("name, size", [("qwen2.5-7b", "40GB"), ("qwen2.5-7b", "24GiB"), ("llama-3-8b", "80G"),
                                        ("gemma-2-9b", "40GB"), ("qwen2.5-0.5b", "8GB"), ("gemma-3-1b", "192GiB")])
def test_max_tokens_is_the_largest_length_within_the_memory(name, size):
    budget = {"40GB": 40 * 10**9, "24GiB": 24 * 2**30, "80G": 80 * 10**9, "8GB": 8 * 10**9, "192GiB": 192 * 2**30}[size]
    # The largest batch at 4K tokens: at the configs' own contexts (128K and more) eager attention's scores alone
    # pass most of these memories, and no batch fits.
    answer = fit(name, "--memory", size, "--seq", "4k")
    assert answer["memory_bytes"] == budget
    found = answer["max_tokens"]
    assert answer["max_tokens_limit"] == "memory", answer["max_tokens_reason"]
    assert inference(name, found) <= budget < inference(name, found + 1)
    assert (answer["inference_bytes_at_max_tokens"], answer["inference_bytes_past_max_tokens"]) == (
        inference(name, found), inference(name, found + 1))
    batch, tokens = answer["max_batch"], answer["seq"]
    assert tokens == 4096
    assert inference(name, tokens, batch) <= budget < inference(name, tokens, batch + 1)
    assert fit(name, "--memory", size)["seq"] == answers.context(configs.load(name))  # the config's own, by default


def test_a_class_without_an_inference_total_is_one_line():
    status, out = in_process.printed("fit", "llama-2-7b", "--arch", "LlamaForSequenceClassification",
                                     "--memory", "80GB")
    assert status == 2 and out.startswith("error: LlamaForSequenceClassification: no inference total: ") \
        and "\n" not in out


def test_at_a_batch_and_a_length():
    answer = fit("qwen2.5-7b", "--memory", "80GB", "--batch", "4", "--seq", "8k")
    assert (answer["batch"], answer["seq"]) == (4, 8192)
    t, b = answer["max_tokens"], answer["max_batch"]
    assert inference("qwen2.5-7b", t, 4) <= 80 * 10**9 < inference("qwen2.5-7b", t + 1, 4)
    assert inference("qwen2.5-7b", 8192, b) <= 80 * 10**9 < inference("qwen2.5-7b", 8192, b + 1)


def test_a_sliding_window_on_every_layer_stops_the_cache():
    # Mistral 7B's config gives every layer a window of 4,096: its cache keeps the last 4,095 tokens, and past
    # them a longer input adds no cache. Where what it holds then still fits, every length answered fits.
    assert configs.load("mistral-7b")["sliding_window"] == 4096
    config = configs.load("mistral-7b")
    assert answers.memory(config, None, 4095)["kv_cache_bytes"] == answers.memory(config, None, LONGEST)["kv_cache_bytes"]
    answer = fit("mistral-7b", "--memory", "40GB")
    if inference("mistral-7b", LONGEST) <= 40 * 10**9:
        assert (answer["max_tokens"], answer["max_tokens_limit"]) == (LONGEST, "longest")
        assert "window (4,096)" in answer["max_tokens_reason"]
    else:  # the forward's own tensors grow with the length: the memory stops it
        t = answer["max_tokens"]
        assert inference("mistral-7b", t) <= 40 * 10**9 < inference("mistral-7b", t + 1)


def test_windows_on_every_other_layer_do_not_stop_the_cache():
    # Gemma 2 alternates sliding-window and global layers: the global ones keep every token, and the memory
    # stops the length.
    answer = fit("gemma-2-9b", "--gpu", "MI300X")
    assert answer["max_tokens_limit"] == "memory" and answer["max_tokens"] < LONGEST


def test_learned_positions_cap_the_length():
    # GPT-2's config: n_positions 1024 [cite: hub-openai-community]; a gigabyte holds far more than its weights.
    assert configs.load("gpt2")["n_positions"] == 1024
    answer = fit("gpt2", "--memory", "1GB")
    assert (answer["max_tokens"], answer["max_tokens_limit"]) == (1024, "positions")
    assert "1,024 learned positions" in answer["max_tokens_reason"]
    status, out = in_process.printed("fit", "gpt2", "--memory", "1GB", "--seq", "2048")
    assert status == 2 and out.count("\n") == 0 and "1,024" in out


def test_weights_that_do_not_fit_give_none_and_say_why():
    # Llama 2 70B's 68,976,648,192 parameters (PEFT's "all params" printout, as tests/test_llama.py has it; and
    # from its released config [cite: hub-meta-llama]) are 137.95 GB in bf16: an A100's 40 GB hold none of it.
    answer = fit("llama-2-70b", "--gpu", "A100-SXM4-40GB")
    assert answer["weights_bytes"] == 2 * 68_976_648_192
    assert (answer["max_tokens"], answer["max_batch"]) == (None, None)
    assert answer["max_tokens_limit"] == answer["max_batch_limit"] == "weights"
    assert answer["max_tokens_reason"] == "the weights alone pass the memory"


# Qwen's speed benchmark, "7B (Transformer)": Qwen2.5-7B-Instruct (Qwen2.5-7B's shapes) in BF16 on an A100 80GB,
# batch 1, 2,048 tokens generated after inputs of 1, 6,144, 14,336 and 30,720 tokens: "GPU Memory(GB)" 14.38, 15.38,
# 16.91 and 19.97 [cite: qwen25-speed-benchmark], each torch.cuda.max_memory_allocated() / 1024 / 1024 / 1024,
# rounded to 0.01 [cite: qwen25-speed-benchmark-script].
QWEN_MEASURED = {1: "14.38", 6144: "15.38", 14336: "16.91", 30720: "19.97"}
QWEN_GENERATED = 2048


def test_a_published_peak_is_above_the_weights_and_the_cache():
    from derivations.site import memory as page

    config = configs.load("qwen2.5-7b")
    rest = {}
    for tokens, printed in QWEN_MEASURED.items():
        # generate's last step runs with the input and every generated token but the last in its cache.
        held = answers.memory(config, None, tokens + QWEN_GENERATED - 1)
        derived = held["weights_bytes"] + held["kv_cache_bytes"]
        peak = (Fraction(printed) + Fraction(1, 200)) * 2**30  # at most this, before rounding
        assert derived <= peak, (tokens, derived, peak)
        rest[tokens] = peak - derived
    # With one input token the forward's own tensors are few: the weights and the cache are all but 128 MiB of it.
    assert rest[1] < 2**27
    # The page shows the same figures.
    assert dict(page.MEASURED) == QWEN_MEASURED and page.MEASURED_GENERATED == QWEN_GENERATED


# ---------------------------------------------------------------------------------------------
# The command line and the API
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", ["24XB", "24 GB extra", "-3GB", "1.5"])
def test_a_bad_size_is_one_line_and_status_2(size):
    status, out = in_process.printed("fit", "gpt2", f"--memory={size}")
    assert status == 2 and "\n" not in out and out.startswith("error: argument --memory: size")


def test_an_unknown_gpu_is_one_line_listing_the_known():
    status, out = in_process.printed("fit", "gpt2", "--gpu", "Z9000")
    assert status == 2 and "\n" not in out and "'Z9000'" in out
    assert all(name in out for name in ("A100-SXM4-40GB", "MI300X", "TPU-v5e"))
    status, out = in_process.printed("fit", "gpt2", "--gpu", "a100", "--memory", "24GB")
    assert status == 2 and "\n" not in out


def test_the_sizes_read_as_written():
    # G alone is GB: 80G is 80 * 10^9 bytes; GiB is 2^30.
    assert fit("gpt2", "--memory", "80G")["memory_bytes"] == 80 * 10**9
    assert fit("gpt2", "--memory", "24GiB")["memory_bytes"] == 24 * 2**30
    assert fit("gpt2", "--memory", "123456789")["memory_bytes"] == 123_456_789
    # --gpu stands for the accelerator's memory as its vendor writes it: NVIDIA's “40 GB” [cite: nvidia-ampere-in-depth].
    assert fit("gpt2", "--gpu", "a100")["memory_bytes"] == 40 * 10**9


def test_without_a_memory_every_accelerator_is_answered():
    answer = fit("qwen2.5-7b")
    assert [card["name"] for card in answer["accelerators"]] == ["A100-SXM4-40GB", "H100-PCIe", "H100-SXM", "H200-SXM",
                                                                 "MI300X", "TPU-v5e"]
    for card in answer["accelerators"]:
        single = fit("qwen2.5-7b", "--memory", str(card["memory_bytes"]))
        assert {k: card[k] for k in single if k.startswith(("max_", "inference_"))} == {
            k: v for k, v in single.items() if k.startswith(("max_", "inference_"))}
    # Google's 16 GB [cite: google-cloud-tpu-v5e] hold Qwen2.5-7B's bf16 weights, not a sequence of its context.
    tpu = answer["accelerators"][-1]
    assert tpu["max_tokens"] is not None and tpu["max_batch"] is None
    # A card with no dense bf16 rate stated counts in full here, where only its memory matters: NVIDIA's H200 holds
    # “141 gigabytes (GB)” [cite: tensorrt-llm-h200-launch], the memory its answers are found in.
    h200 = answer["accelerators"][3]
    assert h200["memory_bytes"] == 141 * 10**9
    assert h200["inference_bytes_at_max_tokens"] <= 141 * 10**9 < h200["inference_bytes_past_max_tokens"]


@pytest.mark.parametrize("argv", [("fit", "qwen2.5-7b"), ("fit", "qwen2.5-7b", "--gpu", "A100"),
                                  ("fit", "llama-2-70b", "--memory", "24GB"), ("fit", "mistral-7b", "--gpu", "MI300X"),
                                  ("flops", "llama-2-7b", "--seq", "4096", "--gpu", "a100"),
                                  ("flops", "bert-base-uncased", "--seq", "512", "--gpu", "TPU-v5e"),
                                  ("flops", "llama-2-7b", "--seq", "32k", "--gpu", "H100 PCIe"),
                                  ("fit", "qwen2.5-7b", "--gpu", "h200")])
def test_the_text_fits_100_columns_and_says_what_is_not_counted(argv):
    status, out = in_process.printed(*argv)
    assert status == 0, out
    assert max(len(line) for line in out.splitlines()) <= 100  # the width
    if argv[0] == "fit":
        assert "not counted" in out and "framework" in out and "fragmentation" in out and "gpu_memory_utilization" in out
    else:
        assert "lower bound" in out and "predict" not in out


def test_the_api_answers_as_the_command_line():
    assert derivations.fit("qwen2.5-7b", memory="40GB").json() == fit("qwen2.5-7b", "--memory", "40GB")
    assert derivations.fit("gpt2", gpu="mi300x", seq=512, batch=2).json() == fit(
        "gpt2", "--gpu", "MI300X", "--seq", "512", "--batch", "2")
    assert derivations.fit("gpt2").json() == fit("gpt2")
    assert "fit" in dir(derivations) and "fit" in derivations.__all__
    with pytest.raises(ConfigError, match="unknown accelerator"):
        derivations.fit("gpt2", gpu="Z9000")
    with pytest.raises(ConfigError, match="size"):
        derivations.fit("gpt2", memory="24XB")


def test_every_key_of_the_answer_is_in_the_docstring():
    for result in (derivations.fit("gpt2", memory=10**9), derivations.fit("gpt2")):
        for key, value in result.json().items():
            assert f"`{key}`" in derivations.fit.__doc__, key
            for card in value if key == "accelerators" else ():
                assert all(f"`{inner}`" in derivations.fit.__doc__ for inner in card), card


# ---------------------------------------------------------------------------------------------
# The roofline
# ---------------------------------------------------------------------------------------------

def test_the_roofline_is_max_of_flops_over_peak_and_bytes_over_bandwidth():
    # NVIDIA's A100: 312 TFLOPS dense bf16, 1555 GB/sec [cite: nvidia-ampere-in-depth, Table 1].
    peak, bandwidth = 312 * 10**12, 1555 * 10**9
    result = derivations.flop_count("llama-2-7b", seq=4096, gpu="A100").json()
    bounds = result["roofline"]
    assert (bounds["bf16_flops"], bounds["bandwidth_bytes"]) == (peak, bandwidth)
    step = result["decode"]
    held = derivations.memory_use("llama-2-7b", seq=4096)
    prefill = bounds["prefill"]
    # The prefill: the forward with each query against the keys up to it; the weights read once, the cache written.
    assert (prefill["flops"], prefill["bytes"]) == (result["forward_causal"],
                                                    held.weights_bytes + held.kv_cache_bytes)
    assert Fraction(prefill["compute_seconds"]) == Fraction(result["forward_causal"], peak)
    assert Fraction(prefill["lower_bound_seconds"]) == max(Fraction(result["forward_causal"], peak),
                                                           Fraction(prefill["bytes"], bandwidth))
    assert prefill["bound_by"] == "compute"  # 4,096 tokens: far past the A100's 200 FLOPs a byte
    decode = bounds["decode"]
    assert (decode["flops"], decode["bytes"]) == (step["flops"], step["bytes_read"])
    assert Fraction(decode["lower_bound_seconds"]) == Fraction(step["bytes_read"], bandwidth)
    assert decode["bound_by"] == "memory"  # one token a step: 2 FLOPs a weight, 2 bytes a weight
    assert decode["lower_bound_seconds_float"] == float(Fraction(step["bytes_read"], bandwidth))
    status, out = in_process.printed("flops", "llama-2-7b", "--seq", "4096", "--gpu", "a100", "--json")
    assert json.loads(out) == result


def test_the_roofline_where_there_is_no_decode_step():
    bounds = derivations.flop_count("bert-base-uncased", seq=512, gpu="MI300X").roofline
    assert bounds["decode"] == {"refused": "an encoder generates no tokens"}
    assert bounds["prefill"]["bytes"] == derivations.memory_use("bert-base-uncased", seq=512).weights_bytes
    assert "roofline" not in derivations.flop_count("bert-base-uncased", seq=512).json()


@pytest.mark.parametrize(("gpu", "bandwidth"), [
    # NVIDIA states these cards' bandwidth and no dense bf16 rate: the H100 SXM's “3.35TB/s” (its bf16 rate is printed
    # “*With sparsity” only) [cite: nvidia-h100-datasheet, Technical Specifications], the H100 PCIe's “2,000 GB/s”
    # [cite: nvidia-h100-pcie-brief, Table 2], the H200's “4.8TB/s” [cite: tensorrt-llm-h200-launch].
    ("h100-sxm", 335 * 10**10), ("H100 PCIe", 2000 * 10**9), ("h200", 48 * 10**11)])
def test_without_a_dense_peak_the_bound_is_the_bandwidths_alone_and_says_so(gpu, bandwidth):
    # max(FLOPs / peak, bytes / bandwidth) >= bytes / bandwidth: still a lower bound, with no FLOP/s made up.
    result = derivations.flop_count("llama-2-7b", seq=4096, gpu=gpu).json()
    bounds = result["roofline"]
    assert (bounds["bf16"], bounds["bf16_flops"], bounds["bandwidth_bytes"]) == (None, None, bandwidth)
    assert bounds["bandwidth_only"] == "NVIDIA states no dense bf16 rate"
    held = derivations.memory_use("llama-2-7b", seq=4096)
    for step, moved in (("prefill", held.weights_bytes + held.kv_cache_bytes), ("decode", result["decode"]["bytes_read"])):
        found = bounds[step]
        assert found["bytes"] == moved
        assert found["compute_seconds"] is None and found["bound_by"] == "bandwidth only"
        assert Fraction(found["lower_bound_seconds"]) == Fraction(found["memory_seconds"]) == Fraction(moved, bandwidth)
    status, out = in_process.printed("flops", "llama-2-7b", "--seq", "4096", "--gpu", gpu)
    assert status == 0, out
    rows = answers.roofline_cells(bounds)  # the rows the text prints (wrapped there within 100 columns)
    assert [label for label, _, _ in rows] == ["prefill, lower bound", "decode, lower bound"]
    for _, how, _ in rows:
        assert how.endswith("bandwidth bound only: NVIDIA states no dense bf16 rate") and "max(" not in how
    assert out.count("bandwidth") >= 2 and "states no dense bf16" in out and "None" not in out
    # A card with a dense peak keeps the full bound and no such note.
    assert derivations.flop_count("llama-2-7b", seq=4096, gpu="A100").json()["roofline"]["bandwidth_only"] is None


@pytest.mark.parametrize("seconds, shown", [(Fraction(1, 100), "10.0 ms"), (Fraction(188, 1000), "188 ms"),
                                            (Fraction(437, 10**5), "4.37 ms"), (Fraction(3, 2), "1.50 s"),
                                            (Fraction(7, 10**7), "700 ns"), (Fraction(12, 10**6), "12.0 µs"),
                                            (Fraction(5000), "5,000 s")])
def test_seconds_are_shown_with_three_digits(seconds, shown):
    assert roofline.text(seconds) == shown
