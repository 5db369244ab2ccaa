"""The calculators beside the derivation (derivations/site/peers.py). Each transcription reproduces what its project
publishes, and what its own code computes on the six configs of the page; our side is the package's (which
tests/test_reference_memory.py checks against transformers' cache and tensors); each difference adds up, cause by
cause, to the byte, and names only causes the model has."""

from __future__ import annotations

import pytest

from derivations import answers, configs
from derivations.site import peers

ROWS = [(peer, checkpoint, tokens, what) for checkpoint, tokens in peers.MODELS for peer in peers.PEERS
        for what in ("weights", "cache", "weights-4bit")]
ROWS += [(peer, checkpoint, tokens, "total") for checkpoint, tokens in peers.MODELS for peer in peers.TOTAL]


# -- what the peers publish ----------------------------------------------------------------------

# llm-analysis' LLaMA-7B example with the config it bundles, llm_analysis/model_configs/
# decapoda-research_llama-7b-hf.json: 32 layers, 32 heads, width 4096, vocabulary 32000, ffn_embed_dim 16384
# [cite: llm-analysis-0.2.2, examples/llama/outputs_infer/decapoda-research_llama-7b-hf-a100-sxm-80gb-w16a16e16-tp1-pp1-
# dp1-sp1-fe0.7-hbme0.9-summary-readable.txt]
LLAMA_7B = peers.Read(layers=32, hidden=4096, heads=32, kv_heads=32, vocab=32000, ffn=16384)


def test_llm_analysis_reproduces_its_llama_example():
    # Batch 1, seq_len 512, 32 tokens generated; the example was printed when llm-analysis wrote decimal units.
    cache = peers.llm_analysis_cache(LLAMA_7B, 512 + 32)
    assert f"{float(cache) / 10**6:.2f} MB" == "285.21 MB"  # kv_cache_memory_per_gpu
    embedding = peers.llm_analysis_parameters(LLAMA_7B).embedding * 2
    assert f"{float(embedding) / 10**6:.2f} MB" == "262.14 MB"  # embedding_memory_per_gpu
    assert f"{float(peers.llm_analysis_weights(LLAMA_7B)) / 10**9:.2f} GB" == "13.15 GB"  # weight_memory_per_gpu


def test_llm_analysis_counts_opt_175b_as_its_own_test_does():
    # tests/test_training.py: _num_to_string(summary_dict["num_params_total"]) == "162.58 G", on
    # llm_analysis/model_configs/facebook_opt-175b.json (96 layers and heads, width 12288, vocabulary 50272,
    # ffn_embed_dim 49152) [cite: llm-analysis-0.2.2, tests/test_training.py]
    opt = peers.Read(layers=96, hidden=12288, heads=96, kv_heads=96, vocab=50272, ffn=49152)
    assert peers.llm_analysis_number(peers.llm_analysis_parameters(opt).total()) == "162.58 G"


def test_gpu_poor_reproduces_its_readme():
    # README: "with sequence length 1000 on llama-2-7b it takes 1GB of extra memory (using hugginface
    # LlamaForCausalLM ...)" [cite: gpu-poor, README.md]: its formula gives 1000 MiB, which it shows as "1000 MB".
    cache = peers.gpu_poor_cache(peers.gpu_poor_read(configs.load("llama-2-7b")), 1000)
    assert round(cache / 10**9) == 1 and round(cache / 2**30) == 1
    assert peers.gpu_poor_printed(cache) == "1000 MB"
    assert peers.GPU_POOR_README_MIB * 2**20 == cache  # what the page says of it


# What each tool's own code computes on the page's configs, measured on 2026-11-26 by running it at the version
# cited on this project's bundled config.json files (batch 1, 16 bits unless said): llm-analysis 0.2.2's
# get_model_config_from_hf and LLMAnalysis (dtype w16a16e16, then w4a16e16): weight_memory_per_gpu's terms and
# get_memory_kv_cache_per_layer(1, T) times the layers; LLM-Viewer's ModelAnalyzer(config_file="configs/Llama.py")
# .analyze(T, 1) (then w_bit=4): the prefill's memory_consumption_weight, memory_consumption_kv_cache and
# memory_consumption; gpu_poor's getAllComputedData in node, inference "inf" with "no_quant" (then "bnb_q4"):
# "Model Size", "KV Cache" and "Total", in its MB.
MEASURED = {
    "mistral-7b": {"llm-analysis-0.2.2": (11536965632, 1073741824, 3080849408, None),
                   "llm-viewer": (13958643712, 1073741824, 3489660928, 24696061952),
                   "gpu-poor": ("15348 MB", "8192 MB", "4758 MB", "28606 MB")},
    "gemma-2-9b": {"llm-analysis-0.2.2": (13704449024, 2466250752, 4802368256, None),
                   "llm-viewer": (16184770560, 2466250752, 4046192640, 23944232960),
                   "gpu-poor": ("19964 MB", "9408 MB", "6189 MB", "32350 MB")},
    "deepseek-v3": {"llm-analysis-0.2.2": (77075769344, 7163871232, 20658960896, None),
                    "llm-viewer": (73429680128, 7163871232, 18357420032, 90013958144),
                    "gpu-poor": ("73563 MB", "13664 MB", "22805 MB", "92253 MB")},
    "gpt-oss-20b": {"llm-analysis-0.2.2": (5239393920, 283115520, 2178548640, None),
                    "llm-viewer": (2090188800, 283115520, 522547200, 20072218624),
                    "gpu-poor": ("4868 MB", "4320 MB", "1509 MB", "18255 MB")},
    "llama-2-7b": {"llm-analysis-0.2.2": (13147578368, 2147483648, 3483502592, None),
                   "llm-viewer": (12952010752, 2147483648, 3238002688, 17729323008),
                   "gpu-poor": ("12852 MB", "4096 MB", "3985 MB", "18782 MB")},
    "qwen2.5-7b": {"llm-analysis-0.2.2": (8489155584, 1879048192, 2939784960, None),
                   "llm-viewer": (13050576896, 1879048192, 3262644224, 139785666560),
                   "gpu-poor": ("15701 MB", "25088 MB", "4868 MB", "99903 MB")},
}


def test_the_measured_figures_cover_the_page():
    assert set(MEASURED) == {checkpoint for checkpoint, _ in peers.MODELS}
    assert all(set(by_peer) == set(peers.PEERS) for by_peer in MEASURED.values())


@pytest.mark.parametrize("peer, checkpoint, tokens, what", ROWS, ids=lambda v: str(v))
def test_each_transcription_computes_what_its_code_computes(peer, checkpoint, tokens, what):
    index = ("weights", "cache", "weights-4bit", "total").index(what)
    figure = peers.row(peer, checkpoint, tokens, what).figure
    expected = MEASURED[checkpoint][peer][index]
    # gpu_poor rounds each of its figures up to a whole MiB, and shows that.
    assert (peers.gpu_poor_printed(figure) if peer == "gpu-poor" else figure) == expected


# -- ours, and the differences -------------------------------------------------------------------

@pytest.mark.parametrize("peer, checkpoint, tokens, what", ROWS, ids=lambda v: str(v))
def test_each_difference_adds_up_to_the_byte(peer, checkpoint, tokens, what):
    r = peers.row(peer, checkpoint, tokens, what)
    fmt = peers.FORMAT[peer] if what == "weights-4bit" else "bf16"
    held = answers.memory(configs.load(checkpoint), None, tokens, dtype=fmt)
    mine = {"weights": held["weights_bytes"], "cache": held["kv_cache_bytes"], "weights-4bit": held["weights_bytes"],
            "total": held["weights_bytes"] + held["kv_cache_bytes"]}[what]
    assert r.ours == mine  # the package's figure, as the command line prints it
    assert sum(step for _, step in r.steps) == r.figure - r.ours
    assert all(step for _, step in r.steps) and len({key for key, _ in r.steps}) == len(r.steps)
    assert {key for key, _ in r.steps} <= set(peers.CAUSES)


@pytest.mark.parametrize("checkpoint, tokens", peers.MODELS)
@pytest.mark.parametrize("fmt", ["bf16", "int4", "nf4"])
def test_the_groups_are_the_packages_tensors(checkpoint, tokens, fmt):
    o = peers.ours(checkpoint, tokens, fmt)
    held = answers.memory(configs.load(checkpoint), None, tokens, dtype=fmt)
    assert o.parameters.total() == held["parameters"]
    assert sum(plain + scales for plain, scales in o.kept.values()) == held["weights_bytes"]


# Which causes the cache's difference may name, from what each config declares: a window (Mistral's
# sliding_window; Gemma 2's and gpt-oss' alternate layers), heads of their own (head_dim, or DeepSeek's
# qk_nope_head_dim + qk_rope_head_dim and v_head_dim) that are not hidden / heads, and a latent (kv_lora_rank).
CACHE_CAUSES = {"mistral-7b": {"window"}, "gemma-2-9b": {"head-size", "window"}, "deepseek-v3": {"head-size", "latent"},
                "gpt-oss-20b": {"head-size", "window"}, "llama-2-7b": set(), "qwen2.5-7b": set()}


@pytest.mark.parametrize("checkpoint, tokens", peers.MODELS)
def test_the_cache_names_the_causes_its_config_declares(checkpoint, tokens):
    for peer in ("llm-analysis-0.2.2", "llm-viewer"):
        assert {key for key, _ in peers.row(peer, checkpoint, tokens, "cache").steps} == CACHE_CAUSES[checkpoint]
    # gpu_poor doubles the cache and keeps every query head's keys and values (where there are fewer key/value heads)
    grouped = configs.load(checkpoint)["num_key_value_heads"] < configs.load(checkpoint)["num_attention_heads"]
    assert ({key for key, _ in peers.row("gpu-poor", checkpoint, tokens, "cache").steps}
            == CACHE_CAUSES[checkpoint] | {"twice"} | ({"all-heads"} if grouped else set()))


def test_the_issue_s_ratios():
    # llm-analysis puts Mistral-7B's cache at 8K tokens at twice what transformers holds, DeepSeek-V3's at 25 times.
    assert round(peers.row("llm-analysis-0.2.2", "mistral-7b", 8192, "cache").figure
                 / peers.ours("mistral-7b", 8192).cache) == 2
    assert round(peers.row("llm-analysis-0.2.2", "deepseek-v3", 4096, "cache").figure
                 / peers.ours("deepseek-v3", 4096).cache) == 25


def test_a_chain_that_misses_a_cause_stops_the_build(monkeypatch):
    # Were the windows not a cause (a reader that sees none), Mistral's cache chain could not land on the package's
    # figure, which keeps them.
    mistral = peers.ours("mistral-7b", 8192)
    monkeypatch.setattr(peers.storage, "kept", lambda tokens, window: tokens)
    with pytest.raises(AssertionError):
        peers.cache_steps("llm-analysis-0.2.2", mistral)
