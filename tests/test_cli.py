"""The command line: its output form, its numbers, and one clear line for bad input."""

import json
import os
import subprocess
import sys
from pathlib import Path

import in_process
import profiles
import pytest

from derivations import answers, compiled, configs, registry, storage
from derivations.families import bert
from derivations.components import evaluate

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "derivations", *args], capture_output=True, text=True, cwd=ROOT)


def test_json_form_and_total():
    result = run("count", "bert-base-chinese", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"architecture", "total", "components"}
    # config.json of bert-base-chinese lists BertForMaskedLM; [cite: note-mlm] prints 102,290,312 for it.
    assert out["architecture"] == "BertForMaskedLM"
    assert out["total"] == 102_290_312
    assert sum(c["count"] for c in out["components"]) == out["total"]
    assert all(set(c) == {"name", "latex", "count"} for c in out["components"])
    assert {"name": "bert.embeddings.word", "latex": "D V", "count": 21128 * 768} in out["components"]


def test_arch_option_and_table():
    result = run("count", "bert-base-uncased", "--arch", "BertModel")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "BertModel"
    assert lines[-1].split() == ["total", "109,482,240"]  # [cite: bert-1225]
    assert any(line.split()[:3] == ["pooler", "D**2", "+"] for line in lines)


# Bundled names the command line must know, with the class their config names and its total (sources
# in the family test modules: [cite: transformers-14960] for gpt2, totals hand-computed from the released
# configs for the others, which transformers recomputes).
BUNDLED = {
    "openai-gpt": ("OpenAIGPTLMHeadModel", 116_534_784),
    "gpt2": ("GPT2LMHeadModel", 124_439_808),
    "gpt2-medium": ("GPT2LMHeadModel", 354_823_168),
    "gpt2-large": ("GPT2LMHeadModel", 774_030_080),
    "gpt2-xl": ("GPT2LMHeadModel", 1_557_611_200),
    "transformer-base": ("MarianMTModel", 63_082_496),
    "transformer-big": ("MarianMTModel", 214_245_376),
    "gpt3-small": ("GPT2LMHeadModel", 125_226_240),
    "gpt3-175b": ("GPT2LMHeadModel", 174_604_259_328),
}


# The later families: name -> (--arch or None, the class counted, its total). Sources in the family test
# modules: [cite: pythia-card]; T5 from [cite: keras-hub], [cite: text-to-text-transfer-transformer-326] and the
# v1.1 TPU README;
# LLaMA, Mistral and Mixtral from the printouts and posts named in tests/test_llama.py, test_mistral.py and
# test_mixtral.py; roberta-base and distilbert-base-uncased from [cite: keras-hub];
# albert-base-v2 from [cite: turnkeyml] and [cite: keras-hub].
BUNDLED |= {
    "llama-2-7b": (None, "LlamaForCausalLM", 6_738_415_616),
    "llama-3-8b": (None, "LlamaForCausalLM", 8_030_261_248),
    "llama-3-70b": (None, "LlamaForCausalLM", 70_553_706_496),
    "mistral-7b": (None, "MistralForCausalLM", 7_241_732_096),
    "mixtral-8x7b": (None, "MixtralForCausalLM", 46_702_792_704),
    "t5-small": (None, "T5ForConditionalGeneration", 60_506_624),
    "t5-base": (None, "T5ForConditionalGeneration", 222_903_552),
    "t5-large": (None, "T5ForConditionalGeneration", 737_668_096),
    "t5-3b": (None, "T5WithLMHeadModel", 2_851_598_336),
    "t5-11b": (None, "T5WithLMHeadModel", 11_307_321_344),
    "t5-v1_1-base": (None, "T5ForConditionalGeneration", 247_577_856),
    "roberta-base": ("RobertaModel", "RobertaModel", 124_645_632),
    "albert-base-v2": ("AlbertModel", "AlbertModel", 11_683_584),
    "distilbert-base-uncased": ("DistilBertModel", "DistilBertModel", 66_362_880),
    "pythia-70m": (None, "GPTNeoXForCausalLM", 70_426_624),
    "pythia-160m": (None, "GPTNeoXForCausalLM", 162_322_944),
    "pythia-410m": (None, "GPTNeoXForCausalLM", 405_334_016),
    "pythia-1b": (None, "GPTNeoXForCausalLM", 1_011_781_632),
    "pythia-1.4b": (None, "GPTNeoXForCausalLM", 1_414_647_808),
    "pythia-2.8b": (None, "GPTNeoXForCausalLM", 2_775_208_960),
    "pythia-6.9b": (None, "GPTNeoXForCausalLM", 6_857_302_016),
    "pythia-12b": (None, "GPTNeoXForCausalLM", 11_846_072_320),
}
BUNDLED = {name: value if len(value) == 3 else (None, *value) for name, value in BUNDLED.items()}


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_names_of_the_new_families(name):
    arch, *expected = BUNDLED[name]
    result = run("count", name, "--json", *(["--arch", arch] if arch else []))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [out["architecture"], out["total"]] == expected
    assert sum(c["count"] for c in out["components"]) == out["total"]
    assert "active" not in out or name.startswith("mixtral")


def test_mixtures_of_experts_say_how_many_parameters_a_token_uses():
    # Mistral AI: "46.7B total parameters but only uses 12.9B parameters per token"; exact in the shared
    # reference A9: 12,879,925,248 with the input embedding (the convention of the CLI and the page).
    out = json.loads(run("count", "mixtral-8x7b", "--json").stdout)
    assert list(out) == ["architecture", "total", "active", "components"]
    assert (out["total"], out["active"]) == (46_702_792_704, 12_879_925_248)
    table = run("count", "mixtral-8x7b").stdout.splitlines()
    assert table[-1].split()[-1] == "12,879,925,248" and table[-1].startswith("active per token")


def test_every_gpt3_row_is_bundled():
    for name in ("gpt3-small", "gpt3-medium", "gpt3-large", "gpt3-xl", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b",
                 "gpt3-175b"):
        assert name in configs.bundled()


def count_json(tmp_path, config: dict, *args: str) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return json.loads(run("count", str(path), *args, "--json").stdout)


def test_minimal_config_takes_transformers_defaults(tmp_path):
    # BertConfig() is bert-base-uncased's shape: BertModel 109,482,240 ([cite: bert-1225]).
    out = count_json(tmp_path, {"model_type": "bert"})
    assert (out["architecture"], out["total"]) == ("BertModel", 109_482_240)


def test_zero_labels_are_fine_without_a_classifier(tmp_path):
    # transformers builds BertModel from {"num_labels": 0}: the labels do not enter it.
    assert count_json(tmp_path, {"model_type": "bert", "num_labels": 0})["total"] == 109_482_240


def test_config_file_with_num_labels(tmp_path):
    # [cite: note-chinese-blog]'s config: bert-base-chinese with "num_labels": 18.
    out = count_json(tmp_path, {**configs.load("bert-base-chinese"), "num_labels": 18},
                     "--arch", "BertForSequenceClassification")
    assert out["total"] == 102_267_648 + 768 * 18 + 18


def test_minimal_configs_of_the_new_families(tmp_path):
    # GPT2Config(), OpenAIGPTConfig() and MarianConfig() are the gpt2, openai-gpt and opus-mt-en-de
    # shapes (Marian's default has 12 + 12 layers of 1024: no released checkpoint, counted here as built).
    assert count_json(tmp_path, {"model_type": "gpt2"})["total"] == 124_439_808
    assert count_json(tmp_path, {"model_type": "openai-gpt"})["total"] == 116_534_784
    out = count_json(tmp_path, {"model_type": "marian"})
    # MarianModel(MarianConfig()) on the meta device: 412,210,176 learnable parameters (transformers 5.23.0).
    assert (out["architecture"], out["total"]) == ("MarianModel", 412_210_176)


def test_gpt2_attribute_map_names(tmp_path):
    # hidden_size / num_hidden_layers / num_attention_heads / max_position_embeddings, as GPT2Config maps them.
    config = {"model_type": "gpt2", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
              "max_position_embeddings": 1024, "n_embd": 1}
    assert count_json(tmp_path, config)["total"] == 124_439_808


def test_marian_config_file(tmp_path):
    out = count_json(tmp_path, configs.load("opus-mt-en-de"), "--arch", "MarianForCausalLM")
    assert out["architecture"] == "MarianForCausalLM"
    assert {"name": "model.decoder.tokens", "latex": "D V_{\\mathrm{dec}}", "count": 58101 * 512} in out["components"]


def test_fifo_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "derivations", "count", str(fifo)], capture_output=True,
                            text=True, cwd=ROOT, timeout=20)
    assert (result.returncode, result.stdout) == (2, "") and "not a regular file" in result.stderr


BAD = {
    "missing file": (["count", "no/such/config.json"], "no such file"),
    "unknown name": (["count", "bert-huge"], "not a bundled checkpoint"),
    "invalid json": (["count", "{tmp}/bad.json"], "invalid JSON"),
    "not an object": (["count", "{tmp}/list.json"], "must be a JSON object"),
    "unknown model_type": (["count", "{tmp}/gpt9.json"], "unknown model_type"),
    "model_type not a string": (["count", "{tmp}/typelist.json"], "unknown model_type"),
    "architectures not a list": (["count", "{tmp}/archs.json"], "architectures must be a list"),
    "cross-attention without decoder": (["count", "{tmp}/cross.json"], "needs is_decoder"),
    "no model_type": (["count", "{tmp}/untyped.json"], "no model_type"),
    "unknown architecture": (["count", "bert-base-uncased", "--arch", "BertForCooking"], "unknown architecture"),
    "non-integer size": (["count", "{tmp}/float.json"], "must be an integer"),
    "string size": (["count", "{tmp}/string.json"], "must be an integer"),
    "zero size": (["count", "{tmp}/zero.json"], "must be positive"),
    "negative size": (["count", "{tmp}/negative.json"], "must be positive"),
    "null size": (["count", "{tmp}/null.json"], "is missing"),
    "heads do not divide": (["count", "{tmp}/heads.json"], "not a multiple of num_attention_heads"),
    "directory": (["count", "{tmp}"], "is a directory"),
    "no command": ([], "required"),
    "empty architecture": (["count", "bert-base-uncased", "--arch", ""], "unknown architecture"),
    "empty config name": (["count", ""], "CONFIG is empty"),
    "name with a newline": (["count", "bert\nbase"], "not a bundled checkpoint"),
    "name too long for the filesystem": (["count", "b" * 5000], "File name too long"),
    "integer of thousands of digits": (["count", "{tmp}/digits.json"], "invalid JSON"),
    "size beyond int64": (["count", "{tmp}/huge.json"], "too large"),
    "nesting too deep": (["count", "{tmp}/deep.json"], "invalid JSON"),
    "zero labels for a classifier": (["count", "{tmp}/nolabels.json", "--arch", "BertForSequenceClassification"],
                                     "needs num_labels >= 1"),
    "heads outnumber the width": (["count", "{tmp}/narrow.json"], "needs hidden_size / num_attention_heads >= 1"),
    "null labels": (["count", "{tmp}/nulllabels.json"], "num_labels must be an integer, got null"),
    "label keys not integers": (["count", "{tmp}/labelkeys.json"], "id2label keys must be integers"),
    "padding outside the vocabulary": (["count", "{tmp}/pad.json"], "outside the vocabulary"),
    "padding not an integer": (["count", "{tmp}/padtype.json"], "pad_token_id must be an integer or null"),
    "is_decoder not a boolean": (["count", "{tmp}/decoder.json"], "is_decoder must be true or false"),
    "id2label not an object": (["count", "{tmp}/id2label.json"], "id2label must be an object"),
    "flag not a boolean": (["count", "{tmp}/flag.json"], "must be true or false"),
    "unknown option": (["count", "bert-base-uncased", "--yaml"], "unrecognized arguments"),
    "gpt2 heads do not divide": (["count", "{tmp}/gpt2heads.json"], "n_embd (100) is not a multiple of n_head (12)"),
    "gpt2 aliased heads do not divide": (["count", "{tmp}/gpt2alias.json"],
                                         "hidden_size (100) is not a multiple of num_attention_heads (3)"),
    "gpt2 n_inner not an integer": (["count", "{tmp}/inner.json"], "n_inner must be an integer"),
    "gpt2 double heads with attn summary": (["count", "{tmp}/attn.json", "--arch", "GPT2DoubleHeadsModel"],
                                            'cannot be built with summary_type "attn"'),
    "summary flag not a boolean": (["count", "{tmp}/summary.json"], "summary_use_proj must be true or false"),
    "marian decoder heads do not divide": (["count", "{tmp}/marianheads.json"],
                                           "d_model (512) is not a multiple of decoder_attention_heads (7)"),
    "marian negative decoder vocabulary": (["count", "{tmp}/mariandecoder.json"], "decoder_vocab_size must be positive"),
    "marian padding outside the decoder vocabulary": (["count", "{tmp}/marianpad.json"],
                                                      "outside the vocabulary (decoder_vocab_size 100)"),
    "marian default padding in a small vocabulary": (["count", "{tmp}/mariansmall.json"], "pad_token_id (58100)"),
    "marian decoder vocabulary false": (["count", "{tmp}/marianfalse.json"], "decoder_vocab_size must be an integer"),
    "marian decoder vocabulary 0.0": (["count", "{tmp}/marianfloat.json"], "decoder_vocab_size must be an integer"),
    "unknown marian class": (["count", "transformer-base", "--arch", "MarianForSequenceClassification"],
                             "unknown architecture"),
    "llama kv-heads do not divide the heads": (["count", "{tmp}/kvheads.json"],
                                               "num_attention_heads (32) is not a multiple of num_key_value_heads (5)"),
    "mixtral more active experts than experts": (["count", "{tmp}/experts.json"],
                                                 "num_experts_per_tok (5) is more than num_local_experts (4)"),
    "t5 unknown activation": (["count", "{tmp}/t5act.json"], 'unknown activation "banana"'),
    "albert no groups": (["count", "{tmp}/groups.json"], "num_hidden_groups must be positive"),
    "distilbert heads do not divide": (["count", "{tmp}/distil.json"], "dim (100) is not a multiple of n_heads (12)"),
    "gpt_neox heads do not divide": (["count", "{tmp}/neox.json"],
                                     "hidden_size (100) is not a multiple of num_attention_heads (12)"),
}
FILES = {
    "bad.json": "{not json", "list.json": "[1, 2]", "gpt9.json": '{"model_type": "gpt9"}',
    "untyped.json": '{"hidden_size": 768}', "typelist.json": '{"model_type": ["bert"]}',
    "archs.json": '{"model_type": "bert", "architectures": "BertModel"}',
    "cross.json": '{"model_type": "bert", "add_cross_attention": true}', "float.json": '{"model_type": "bert", "hidden_size": 768.0}',
    "string.json": '{"model_type": "bert", "num_hidden_layers": "12"}',
    "zero.json": '{"model_type": "bert", "num_hidden_layers": 0}',
    "negative.json": '{"model_type": "bert", "vocab_size": -5}',
    "null.json": '{"model_type": "bert", "vocab_size": null}',
    "heads.json": '{"model_type": "bert", "hidden_size": 100, "num_attention_heads": 12}',
    "digits.json": '{"model_type": "bert", "vocab_size": ' + "9" * 5000 + "}",
    "huge.json": '{"model_type": "bert", "vocab_size": ' + str(2**64) + "}",
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "nolabels.json": '{"model_type": "bert", "num_labels": 0}',
    "narrow.json": '{"model_type": "bert", "hidden_size": 4, "num_attention_heads": 8, "embedding_size": 4}',
    "nulllabels.json": '{"model_type": "bert", "num_labels": null}',
    "labelkeys.json": '{"model_type": "bert", "id2label": {"a": "x"}}',
    "pad.json": '{"model_type": "bert", "vocab_size": 3, "pad_token_id": 3}',
    "padtype.json": '{"model_type": "bert", "pad_token_id": 2.0}',
    "decoder.json": '{"model_type": "bert", "is_decoder": "yes"}',
    "id2label.json": '{"model_type": "bert", "id2label": ["a", "b"]}',
    "flag.json": '{"model_type": "bert", "tie_word_embeddings": "no"}',
    "gpt2heads.json": '{"model_type": "gpt2", "n_embd": 100}',
    "gpt2alias.json": '{"model_type": "gpt2", "hidden_size": 100, "num_attention_heads": 3}',
    "inner.json": '{"model_type": "gpt2", "n_inner": "3072"}',
    "attn.json": '{"model_type": "gpt2", "summary_type": "attn"}',
    "summary.json": '{"model_type": "openai-gpt", "summary_use_proj": 1}',
    "marianheads.json": '{"model_type": "marian", "d_model": 512, "encoder_attention_heads": 8, '
                        '"decoder_attention_heads": 7}',
    "mariandecoder.json": '{"model_type": "marian", "decoder_vocab_size": -3}',
    "marianpad.json": '{"model_type": "marian", "vocab_size": 1000, "decoder_vocab_size": 100, "pad_token_id": 500}',
    "mariansmall.json": '{"model_type": "marian", "vocab_size": 1000}',
    "marianfalse.json": '{"model_type": "marian", "decoder_vocab_size": false}',
    "marianfloat.json": '{"model_type": "marian", "decoder_vocab_size": 0.0}',
    "kvheads.json": '{"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 5}',
    "experts.json": '{"model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 5}',
    "t5act.json": '{"model_type": "t5", "feed_forward_proj": "gated-banana"}',
    "groups.json": '{"model_type": "albert", "num_hidden_groups": 0}',
    "distil.json": '{"model_type": "distilbert", "dim": 100, "n_heads": 12}',
    "neox.json": '{"model_type": "gpt_neox", "hidden_size": 100, "num_attention_heads": 12}',
}


# Each case runs in this process (an uncaught exception fails it); these also as a process of their own, which must
# print the same: every one in CI, one in eight in `make test` (a process's start is most of a case's time).
AS_A_PROCESS = set(profiles.spread(list(BAD), 8, group=lambda _: "bad"))


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_line_and_exit_2(case, tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    args, message = BAD[case]
    args = [a.format(tmp=tmp_path) for a in args]
    status, out, err = in_process.derivations(*args)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert message in err
    if case in AS_A_PROCESS:
        result = run(*args)
        assert (result.returncode, result.stdout, result.stderr) == (status, out, err)
        assert "Traceback" not in result.stderr


LAYOUT_FLAGS = [{}, {"is_decoder": True, "add_cross_attention": True}, {"tie_word_embeddings": False},
                {"is_decoder": True, "add_cross_attention": True, "tie_word_embeddings": False}]


@pytest.mark.parametrize("flags", LAYOUT_FLAGS, ids=["plain", "cross", "untied", "cross+untied"])
def test_compiled_counts_equal_the_sympy_derivation(flags):
    # The command line evaluates compiled polynomials; they must equal the SymPy trees everywhere.
    for name in bert.FAMILY.checkpoints:
        config = {**configs.load(name), **flags}
        for architecture in bert.ARCHITECTURES:
            shown, rows, active = answers.components(config, architecture)
            assert active is None  # BERT has no experts
            resolved = registry.resolve(config, architecture)
            assert shown == resolved.architecture == architecture
            assert [r["count"] for r in rows] == [
                int((copies * leaf.expr).subs(resolved.values)) for _, leaf, copies in resolved.part.leaves()]


@pytest.mark.parametrize("kind", sorted(configs.READERS))
def test_compiled_rows_equal_the_sympy_derivation_for_every_family_and_layout(kind):
    # Every family, every layout, every class: the compiled polynomials evaluate to the SymPy leaves,
    # on each bundled checkpoint of the family (other layouts on the same sizes; one in three in `make test`).
    family = registry.of_model_type(kind)
    compiled_family = compiled.load(kind)
    names = [n for n in configs.bundled() if configs.load(n).get("model_type") == kind]
    assert names, f"no bundled checkpoint of {kind}"
    names = profiles.spread(names, 3, group=lambda _: kind)  # in `make test`, one in three, the first included
    for name in names:
        values = registry.checkpoint(name).values
        by_name = {str(s): v for s, v in values.items()}
        for layout, architectures in family.variants.items():
            for architecture, part in architectures.items():
                if not {str(s) for s in part.total.free_symbols} <= set(by_name):
                    continue  # a layout with a size this checkpoint has not (DeepSeek-V2-Lite has no query rank)
                rows = compiled_family["variants"][layout][architecture]
                assert [compiled.count(r["terms"], by_name) for r in rows] == [
                    evaluate(copies * leaf.expr, values) for _, leaf, copies in part.leaves()], (
                    name, layout, architecture)
                # A mixture of experts also carries the count of what one token uses; nothing else does.
                active = compiled_family["active"][layout].get(architecture)
                expected = compiled.active_part(family, layout, architecture)
                assert (active is None) == (expected is None), (name, layout, architecture)
                if active is not None:
                    assert compiled.count(active, by_name) == expected.count(values) < part.count(values)


def modules_imported_by(*argv: str) -> set[str]:
    """The modules a run of the command line imports (in a fresh interpreter)."""
    code = (f"import sys, runpy; sys.argv = ['derivations', *{list(argv)!r}];\n"
            "try: runpy.run_module('derivations', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "import json; print(json.dumps(sorted(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.parametrize("command", [["count", "bert-base-uncased"], ["flops", "bert-base-uncased", "--seq", "128"],
                                     ["memory", "llama-3-8b", "--json"]], ids=["count", "flops", "memory"])
def test_the_command_does_not_import_sympy_once_compiled(command):
    compiled.load(configs.read_model_type(configs.load(command[1])))  # writes the cache if needed
    assert "sympy" not in modules_imported_by(*command)


def test_a_count_imports_the_reader_of_its_model_type_alone():
    configs.READERS.modules()  # the index kept
    imported = modules_imported_by("count", "bert-base-chinese")
    assert sorted(m for m in imported if m.startswith("derivations.readers.")) == ["derivations.readers.bert"]


def test_a_reader_that_stops_early_gets_no_traceback():
    # `count ... | head -1` may close the pipe before the table is written: nothing for the user to see.
    # A pipe whose reading end is already closed makes that certain.
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run([sys.executable, "-m", "derivations", "count", "mixtral-8x7b"], stdout=write,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (0, "")


def test_mixtral_without_an_active_expert_counts(tmp_path):
    # transformers builds and runs Mixtral with num_experts_per_tok 0 (tests/specs/mixtral.py): the
    # count is the whole model, and one token uses no expert at all.
    out = count_json(tmp_path, {"model_type": "mixtral", "num_experts_per_tok": 0})
    assert out["active"] < out["total"]


# ---------------------------------------------------------------------------------------------
# flops
# ---------------------------------------------------------------------------------------------

def test_flops_of_gpt2_small_are_nanogpts():
    # karpathy/nanoGPT, transformer_sizing.ipynb: forward_total 291,648,307,200 for 1,024 tokens, and
    # 874,944,921,600 with the backward (twice the forward).
    result = run("flops", "gpt2", "--seq", "1024", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["architecture"] == "GPT2LMHeadModel"
    assert out["forward"] == 291_648_307_200
    assert out["training_step"] == 874_944_921_600
    assert sum(c["flops"] for c in out["components"]) == out["forward"]
    # Its per-component figures: the tied head 79,047,426,048 (2 D V T), one block's scores 1,610,612,736.
    by_name = {c["name"]: c["flops"] for c in out["components"]}
    assert by_name["lm_head"] == 79_047_426_048
    assert by_name["transformer.block.attention.scores"] == 12 * 1_610_612_736
    assert by_name["transformer.embeddings.token"] == 0  # a lookup


def test_flops_scale_with_the_batch_and_name_the_target():
    one = json.loads(run("flops", "gpt2", "--seq", "100", "--json").stdout)
    three = json.loads(run("flops", "gpt2", "--seq", "100", "--batch", "3", "--json").stdout)
    assert three["forward"] == 3 * one["forward"] and three["batch"] == 3
    t5 = json.loads(run("flops", "t5-small", "--seq", "512", "--target", "64", "--json").stdout)
    same = json.loads(run("flops", "t5-small", "--seq", "512", "--json").stdout)
    assert t5["target"] == 64 and "target" not in same
    assert t5["forward"] < same["forward"]  # a shorter decoder computes less


def test_flops_table():
    result = run("flops", "llama-2-7b", "--seq", "4096")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("LlamaForCausalLM\n")
    for label in ("forward", "forward, causal half", "backward", "training step", "+ full recomputation"):
        assert f"\n{label} " in result.stdout


@pytest.mark.parametrize("args, message", [
    (("gpt2",), "--seq"),
    (("gpt2", "--seq", "0"), "from 1 to"),
    (("gpt2", "--seq", "-5"), "from 1 to"),
    (("gpt2", "--seq", "ten"), "whole number"),
    (("gpt2", "--seq", str(10**12)), "from 1 to"),
    (("gpt2", "--seq", "2048"), "at most 1,024 tokens"),
    (("gpt2", "--seq", "8", "--batch", "0"), "from 1 to"),
    (("no-such-model", "--seq", "8"), "no-such-model"),
], ids=["missing", "zero", "negative", "word", "absurd", "past-positions", "batch-zero", "unknown"])
def test_flops_bad_input_is_one_line_and_exit_2(args, message):
    result = run("flops", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


# -- memory ------------------------------------------------------------------------------------

def memory_json(*args: str) -> dict:
    result = run("memory", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_memory_kv_cache_of_grouped_query_attention():
    # Llama 3 8B's config.json: 32 layers, 8 key/value heads of 128 (32 query heads): keys and values of 8 heads.
    out = memory_json("llama-3-8b", "--seq", "1000", "--batch", "3")
    assert out["kv_cache_elements"] == 3 * 1000 * 32 * 2 * 8 * 128
    assert out["kv_cache_bytes"] == 2 * out["kv_cache_elements"]  # bf16 by default
    assert out["parameters"] == 8_030_261_248 == memory_json("llama-3-8b")["parameters"]
    assert out["weights_bytes"] == 2 * out["parameters"] == out["weights_bytes_by_dtype"]["bf16"]
    assert out["weights_bytes_by_dtype"]["fp32"] == 4 * out["parameters"]
    assert out["training_bytes"]["adam-mixed"] == 16 * out["parameters"]


def test_memory_sliding_window_keeps_its_window():
    # Mistral 7B: sliding_window 4096 in every layer: past it, each layer keeps the last 4,095 tokens.
    assert memory_json("mistral-7b", "--seq", "10000")["kv_cache_elements"] == 4095 * 32 * 2 * 8 * 128
    assert memory_json("mistral-7b", "--seq", "100")["kv_cache_elements"] == 100 * 32 * 2 * 8 * 128


def test_memory_of_an_encoder_decoder():
    # T5-small: 6 decoder layers of 8 heads of 64 cache the decoder's 128 tokens and the encoder's 512.
    out = memory_json("t5-small", "--seq", "512", "--target", "128")
    assert out["kv_cache_elements"] == 6 * 2 * 512 * (128 + 512) and out["target"] == 128


def test_memory_of_an_encoder_has_no_cache():
    out = memory_json("bert-base-uncased", "--dtype", "fp32")
    assert out["kv_cache_elements"] == 0 and out["seq"] == 512  # its max_position_embeddings
    assert out["weights_bytes"] == 4 * out["parameters"]


def test_memory_table():
    result = run("memory", "gpt2", "--dtype", "int4")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("GPT2LMHeadModel\n")
    for label in ("weights, int4", "inference", "  key/value cache", "  transient peak", "training", "  adam-mixed",
                  "  activations", "  total"):
        assert f"\n{label} " in result.stdout
    assert " MiB" in result.stdout and " MB" in result.stdout


def test_memory_takes_torchs_names_of_the_data_types():
    # A config's torch_dtype ("bfloat16", "float16", "float32"), as every config.json spells it.
    for torch_name, name in (("bfloat16", "bf16"), ("float16", "fp16"), ("float32", "fp32"), ("BF16", "bf16")):
        out = memory_json("gpt2", "--dtype", torch_name)
        assert out["dtype"] == name and out["weights_bytes"] == out["weights_bytes_by_dtype"][name], torch_name


@pytest.mark.parametrize("args, message", [
    (("gpt2", "--seq", "0"), "from 1 to"),
    (("gpt2", "--seq", "2048"), "at most 1,024 tokens"),
    (("gpt2", "--batch", "-1"), "from 1 to"),
    (("gpt2", "--dtype", "fp5"), "unknown dtype 'fp5'"),
    (("no-such-model",), "no-such-model"),
], ids=["zero", "past-positions", "batch-negative", "dtype", "unknown"])
def test_memory_bad_input_is_one_line_and_exit_2(args, message):
    result = run("memory", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


@pytest.mark.parametrize("kind", sorted(configs.READERS))
def test_compiled_memory_equals_the_sympy_derivation(kind):
    # The command line's tensors and cache, from the compiled polynomials, against derivations.memory on the trees.
    from derivations import memory

    name = next(n for n in configs.bundled() if configs.load(n).get("model_type") == kind)
    config = configs.load(name)
    resolved = registry.resolve(config)
    # A model that reads images: one image each; one that reads an image among its text: at least the image's tokens.
    tokens = None if answers.reads_images(config) else max(7, configs.sizes(config).get("N_i", 0))
    out = answers.memory(config, None, tokens, None, 2, "nf4")
    tensors = memory.evaluated(resolved.part, resolved.values)
    assert out["parameters"] == resolved.total
    assert out["weights_bytes"] == storage.weight_bytes(tensors, storage.FORMATS["nf4"])
    assert out["kv_cache_elements"] == memory.kv_cache(config, None, out["seq"], batch=2)


def test_a_path_is_read_as_pathlib_reads_it(tmp_path):
    # A trailing slash or "." names the file (as the command has always read a path), and a loop of links is
    # no file at all.
    (tmp_path / "config.json").write_text((ROOT / "derivations" / "checkpoints" / "gpt2.json").read_text())
    for written in (f"{tmp_path}/config.json/", f"{tmp_path}/./config.json/."):
        assert run("count", written).returncode == 0, written
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = run("count", str(tmp_path / "a"))
    assert result.returncode == 2 and ": no such file" in result.stderr, result.stderr


def test_the_tables_fit_a_terminal_of_100_columns():
    # Every bundled config's count, flops and memory tables (their middle column wraps); the memory table was
    # 126 columns wide for Qwen2.5-7B.
    widest = {}
    for name in configs.bundled():
        for argv in (["count", name], ["flops", name, "--seq", "4096"], ["memory", name, "--seq", "4096"]):
            status, output = in_process.printed(*argv)
            if status == 0:
                widest[" ".join(argv)] = max(map(len, output.splitlines()))
    assert len(widest) > 200 and max(widest.values()) <= 100, max(widest.items(), key=lambda kv: kv[1])


def test_a_length_past_the_models_context_answers_with_a_note():
    # Qwen2.5-7B's config declares max_position_embeddings 131,072 (rotary positions: nothing refuses more).
    for command in ("memory", "flops"):
        past = run(command, "qwen2.5-7b", "--seq", "200000")
        assert past.returncode == 0 and past.stdout.startswith("Qwen2ForCausalLM\n"), past.stderr
        assert past.stderr.splitlines() == [
            "note: 200,000 tokens is past the model's context (max_position_embeddings 131,072); answered anyway"]
        assert run(command, "qwen2.5-7b", "--seq", "131072").stderr == ""


def test_lengths_as_model_cards_write_them():
    # k is 1,024 in a context length: 32k is 32,768 tokens, 4K 4,096 (storage.parse_tokens).
    assert memory_json("qwen2.5-7b", "--seq", "32k")["seq"] == 32_768
    assert json.loads(run("flops", "llama-2-7b", "--seq", "4K", "--json").stdout)["seq"] == 4_096
    refused = run("memory", "gpt2", "--seq", "32q")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "32k" in refused.stderr
