"""Which attention the forward's transient peak assumes: sdpa (transformers' default, torch's
scaled_dot_product_attention: no T x T scores held) where its forward is derived, else eager, which a note then says;
``--attention`` (the command line), ``attention=`` (the API) to ask for either; the JSON's ``"attention"`` and the
tables' words. That sdpa's peak equals torch's is tests/test_reference_sdpa.py's; here, the doors, and a published
measurement of a model served with flash attention set beside both."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import derivations
import in_process
from derivations import __main__ as cli
from derivations import answers, configs
from derivations.api import ConfigWarning


def test_sdpa_is_the_default_and_eager_on_request() -> None:
    # transformers' default attention for Qwen2 is sdpa: so is the answer's, unless eager is asked for; eager's peak
    # holds every head's T x T scores, sdpa's none, so at a long context sdpa's is far smaller.
    config = configs.load("qwen2.5-7b")
    default, eager = answers.memory(config, None, 32768), answers.memory(config, None, 32768, attention="eager")
    assert (default["attention"], eager["attention"]) == ("sdpa", "eager")
    assert "attention_note" not in default and "attention_note" not in eager
    assert default["transient_bytes"] == answers.memory(config, None, 32768, attention="sdpa")["transient_bytes"]
    heads, tokens = 28, 32768  # Qwen2.5-7B's 28 query heads (its config.json): one layer's bf16 scores alone
    assert eager["transient_bytes"] > 2 * heads * tokens**2 > 10 * default["transient_bytes"]
    assert answers.inference_bytes(config, None, 32768) == default["inference_bytes"]
    assert answers.inference_bytes(config, None, 32768, attention="eager") == eager["inference_bytes"]


@pytest.mark.parametrize("name, change, words", [
    # Gemma 2: transformers runs it with eager attention only (Gemma2PreTrainedModel._supports_sdpa is False; asked
    # for sdpa, from_config refuses).
    ("gemma-2-9b", {}, "eager attention only"),
    # OpenAI GPT: transformers builds it with its own attention, and refuses sdpa.
    ("openai-gpt", {}, "eager attention only"),
    # GPT-NeoX: its forward under sdpa is not derived yet.
    ("pythia-70m", {}, "not derived"),
    # Gemma 3 with a softcap of its scores: transformers' sdpa_attention_forward raises.
    ("gemma-3-1b", {"attn_logit_softcapping": 50.0}, "attn_logit_softcapping"),
])
def test_where_sdpa_is_not_derived_eager_answers_and_says_so(name: str, change: dict, words: str) -> None:
    config = configs.load(name) | change
    eager = answers.memory(config, None, 512, attention="eager")
    assert eager["attention"] == "eager" and "attention_note" not in eager
    out = answers.memory(config, None, 512, attention="sdpa")  # asked for: a note says why eager answers
    assert out["attention"] == "eager" and words in out["attention_note"], out.get("attention_note")
    assert out["transient_bytes"] == eager["transient_bytes"]
    default = answers.memory(config, None, 512)  # by default: eager, said by "attention" and the tables, no note
    assert default["attention"] == "eager" and "attention_note" not in default
    assert default["transient_bytes"] == eager["transient_bytes"]


def test_a_class_without_a_transient_says_no_attention() -> None:
    out = answers.memory(configs.load("mixtral-8x7b"), "MixtralForSequenceClassification", 100)
    assert "attention" not in out and "attention_note" not in out and "not derived" in out["inference_refused"]


def test_the_command_line_takes_and_says_the_attention() -> None:
    for command in (("memory", "qwen2.5-7b", "--seq", "8k"), ("fit", "qwen2.5-7b", "--gpu", "A100-SXM4-40GB")):
        answered = {}
        for attention in ("sdpa", "eager"):
            status, out, err = in_process.derivations(*command, "--attention", attention, "--json")
            assert status == 0 and err == "", err
            answered[attention] = json.loads(out)
            assert answered[attention]["attention"] == attention
        status, out, _ = in_process.derivations(*command, "--json")
        assert json.loads(out) == answered["sdpa"]  # the default
        # The table's inference rows (memory) or foot (fit) say it, in the cells the command lays out.
        for attention, words in (("sdpa", "sdpa attention (no T x T scores held)"),
                                 ("eager", "eager attention: every head's T x T scores held")):
            ran = cli.run([*command, "--attention", attention])
            said = [what for held, what, _ in ran.cells.body + ran.cells.foot
                    if held in ("  transient peak", "inference bytes")]
            assert len(said) == 1 and words in said[0], said
    # fit's answer under sdpa is longer than under eager, each the largest length within the 40 GB.
    status, out, _ = in_process.derivations("fit", "qwen2.5-7b", "--gpu", "A100-SXM4-40GB", "--json")
    sdpa = json.loads(out)
    status, out, _ = in_process.derivations("fit", "qwen2.5-7b", "--gpu", "A100-SXM4-40GB", "--attention", "eager",
                                            "--json")
    eager = json.loads(out)
    assert sdpa["max_tokens"] > 10 * eager["max_tokens"]
    config = configs.load("qwen2.5-7b")
    for answer, attention in ((sdpa, "sdpa"), (eager, "eager")):
        t = answer["max_tokens"]
        assert (answers.inference_bytes(config, None, t, attention=attention) <= 40 * 10**9
                < answers.inference_bytes(config, None, t + 1, attention=attention))


def test_the_command_line_notes_eager_where_sdpa_is_not_derived() -> None:
    status, out, err = in_process.derivations("memory", "gemma-2-2b", "--seq", "1k", "--attention", "sdpa", "--json")
    assert status == 0 and json.loads(out)["attention"] == "eager"
    assert err.startswith("note: sdpa attention: transformers runs Gemma 2 with eager attention only")
    # One note, within the tables' 100 columns: its further lines indented under its first.
    lines = err.splitlines()
    assert all(len(line) <= 100 for line in lines) and all(line.startswith("  ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == "note: " + json.loads(out)["attention_note"]
    status, out, err = in_process.derivations("memory", "gemma-2-2b", "--seq", "1k", "--attention", "eager")
    assert status == 0 and err == ""
    status, out = in_process.printed("memory", "gpt2", "--attention", "flash")
    assert status == 2 and "--attention" in out and "\n" not in out


def test_the_api_takes_the_attention() -> None:
    memory = derivations.memory_use("qwen2.5-7b", seq=8192, attention="eager")
    assert memory.attention == "eager"
    assert derivations.memory_use("qwen2.5-7b", seq=8192).attention == "sdpa"
    fit = derivations.fit("qwen2.5-7b", gpu="A100", attention="eager")
    assert (fit.attention, fit.max_tokens) == ("eager", answers.fit(configs.load("qwen2.5-7b"), None, None,
                                                                     "A100-SXM4-40GB", attention="eager")["max_tokens"])
    with pytest.warns(ConfigWarning, match="eager attention only"):  # sdpa asked for: why eager answers
        assert derivations.memory_use("gemma-2-2b", seq=1024, attention="sdpa").attention == "eager"
    with pytest.raises(configs.ConfigError, match="attention"):
        derivations.memory_use("qwen2.5-7b", attention="flash")


# Qwen's speed benchmark, "7B (Transformer)": Qwen2.5-7B-Instruct in BF16 on an A100 80GB with flash attention,
# batch 1, inputs of 6,144, 14,336 and 30,720 tokens: "GPU Memory(GB)" 15.38, 16.91 and 19.97
# [cite: qwen25-speed-benchmark], each torch.cuda.max_memory_allocated() / 1024 / 1024 / 1024, rounded to 0.01
# [cite: qwen25-speed-benchmark-script]. tests/test_fit.py sets the weights and the cache beside them.
QWEN_LONG = {6144: "15.38", 14336: "16.91", 30720: "19.97"}


def test_a_published_peak_with_flash_attention_is_sdpas_total_and_far_from_eagers() -> None:
    # The forward on the prompt under sdpa (weights, the input's cache and the transient peak, no scores held, as
    # flash attention) is within 64 MiB under each measured peak (CUDA's workspaces, the rounding); eager's total
    # passes it by far: the measurement held no scores.
    config = configs.load("qwen2.5-7b")
    for tokens, printed in QWEN_LONG.items():
        low, high = [(Fraction(printed) + d) * 2**30 for d in (Fraction(-1, 200), Fraction(1, 200))]
        sdpa = answers.inference_bytes(config, None, tokens, attention="sdpa")
        assert high - 2**26 < sdpa <= low, (tokens, sdpa, low, high)
        assert answers.inference_bytes(config, None, tokens, attention="eager") > 1.5 * high
