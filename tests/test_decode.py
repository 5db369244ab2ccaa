"""flops' "decode": one generated token after T cached ones (derivations.flops.decode, answers.decode).

Expected values are written from the models' definitions (what one new token multiplies, and what it reads);
tests/test_reference_flops.py compares the step with what torch counts when transformers runs it with a cache.
"""

from __future__ import annotations

import sympy

from derivations import answers, configs, flops
from derivations.families import deepseek_v2, llama, t5
from derivations.symbols import H, L, L_d, R_kv, d_h, d_n, d_r, d_v, s


def decode(name: str, seq: int, target: int | None = None, batch: int = 1, **change) -> dict:
    return answers.flops(configs.load(name) | change, None, seq, target, batch)[0]["decode"]


def test_llama_2_7b_one_token_is_its_matrices_and_its_cache():
    # Each matrix once on the new token, 2 FLOPs a weight: attention's four D-by-D maps and the three D-by-F
    # ones in each of 32 layers, and the head (the lookup costs nothing); then every head's scores and weighted
    # values over the 4,096 cached keys and its own: 2 H d_h (T + 1) each, in each layer.
    layers, width, ff, vocab, cached = 32, 4096, 11008, 32000, 4096
    matrices = 2 * (layers * (4 * width * width + 3 * width * ff) + width * vocab)
    step = decode("llama-2-7b", cached)
    assert step["flops"] == matrices + layers * 2 * (2 * width) * (cached + 1)
    # bf16: 2 bytes a parameter (6,738,415,616 of them), and a key and a value of 4,096 a token in each layer.
    assert step["weights_bytes"] == 2 * 6_738_415_616 and step["dtype"] == "bf16"
    assert step["kv_cache_bytes"] == 2 * layers * 2 * width * cached
    assert step["bytes_read"] == step["weights_bytes"] + step["kv_cache_bytes"]
    assert step["cached"] == cached and not step["active_weights"] and step["kv_cache_windows"] == []


def test_the_tree_says_the_same_in_symbols():
    T = sympy.Symbol("T")
    step = flops.decode(llama.ARCHITECTURES["LlamaForCausalLM"], T + 1)
    # Only the attention products grow with the cache: 2 H d_h for the scores and as much for the values, a key.
    assert sympy.expand(sympy.diff(step, T) - 4 * H * d_h * L) == 0
    assert s not in step.free_symbols
    # DeepSeek's latent attention: transformers caches the latent and expands all of it again at every token,
    # so kv_b_proj (R_kv by H (d_nope + d_v)) runs on each of the T + 1 latents, besides the products.
    mla = flops.decode(deepseek_v2.ARCHITECTURES["DeepseekV2ForCausalLM"], T + 1)
    assert sympy.expand(sympy.diff(mla, T) - L * (2 * R_kv * H * (d_n + d_v) + 2 * H * (d_n + d_r) + 2 * H * d_v)) == 0


def test_an_encoder_decoder_steps_its_decoder_over_the_source():
    # t5-small: the encoder and cross-attention's keys and values ran once; the new decoder token runs its
    # self-attention (4 maps), cross-attention's query and output, the feed-forward and the head, then reads
    # T + 1 keys of its own and the 512 of the source.
    step = decode("t5-small", 512, 7)
    width, inner, ff, layers, vocab = 512, 512, 2048, 6, 32128
    matrices = 2 * (layers * (6 * width * inner + 2 * width * ff) + width * vocab)
    assert step["cached"] == 7
    assert step["flops"] == matrices + layers * 2 * (2 * inner) * (7 + 1 + 512)
    # In symbols: the decoder's layers alone, nothing of the encoder's.
    symbols = flops.decode(t5.ARCHITECTURES["T5ForConditionalGeneration"], 8).free_symbols
    assert L_d in symbols and L not in symbols


def test_past_the_window_a_step_costs_and_reads_the_same():
    # Mistral-7B's layers attend to 4,096 keys at most: the token after 4,095 cached already reads all of them.
    steps = [decode("mistral-7b", cached) for cached in (4094, 4095, 4096, 10_000)]
    assert steps[0]["flops"] < steps[1]["flops"] == steps[2]["flops"] == steps[3]["flops"]
    assert steps[0]["kv_cache_bytes"] < steps[1]["kv_cache_bytes"] == steps[3]["kv_cache_bytes"]
    assert steps[3]["kv_cache_windows"] == [4096]
    # Gemma 2 alternates: the sliding layers stop growing at their window, the global ones go on.
    gemma = [decode("gemma-2-2b", cached)["flops"] for cached in (5000, 5001, 5002)]
    assert gemma[1] - gemma[0] == gemma[2] - gemma[1] > 0
    assert gemma[1] - gemma[0] < decode("gemma-2-2b", 101)["flops"] - decode("gemma-2-2b", 100)["flops"]


def test_a_batch_multiplies_the_flops_and_the_cache_not_the_weights():
    one, four = decode("llama-3-8b", 1000), decode("llama-3-8b", 1000, batch=4)
    assert four["flops"] == 4 * one["flops"]
    assert four["kv_cache_bytes"] == 4 * one["kv_cache_bytes"] and four["weights_bytes"] == one["weights_bytes"]


def test_a_mixture_reads_its_active_weights():
    step = decode("mixtral-8x7b", 100)
    # Mixtral-8x7B's active count, 12,879,925,248 parameters (count --json's "active"), at 2 bytes.
    assert step["active_weights"] and step["weights_bytes"] == 2 * 12_879_925_248


def test_no_step_where_there_is_none():
    assert decode("bert-base-uncased", 128) == {"cached": 128, "refused": "an encoder generates no tokens"}
    # GPT-2's 1,024 learned positions: none for a 1,025th token.
    assert decode("gpt2", 1024) == {"cached": 1024, "refused": "its table of positions ends at 1,024"}
    assert "flops" in decode("gpt2", 1023)


def test_the_table_ends_with_the_step():
    result, rows = answers.flops(configs.load("llama-2-7b"), None, 4096, batch=2)
    foot = answers.flops_cells(result, rows).foot
    assert foot[-2] == ("decode, 1 token", "batch 2, T = 4,096 cached", f"{result['decode']['flops']:,}")
    assert foot[-1][0] == "  bytes read" and foot[-1][2].endswith(" GB")
    refused = answers.flops(configs.load("gpt2"), None, 1024)
    assert answers.flops_cells(*refused).foot[-1] == ("decode, 1 token", "none: its table of positions ends at 1,024", "")
    assert all(len(line) <= 100 for line in answers.flops_table(result, rows).splitlines())
