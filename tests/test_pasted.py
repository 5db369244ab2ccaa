"""derivations.pasted, the count the site's config page runs in the browser: what the command line prints, for
every bundled config and for configs it refuses; and the bundle the page unpacks (hooks/pasted.py) counts on
its own, without SymPy or any module it does not hold."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import in_process
import profiles
import pytest
import site_build

from derivations import __main__ as cli
from derivations import answers, configs, measured, pasted

ROOT = Path(__file__).resolve().parent.parent


hook = site_build.hook("pasted")  # hooks/pasted.py, which makes the bundle

# Configs the command line refuses, each for its own reason (the message is the command line's, whatever it is).
REFUSED = {
    "not JSON": "{",
    "not an object": "[1, 2]",
    "no model_type": "{}",
    "unknown model_type": '{"model_type": "bort"}',
    "a float size": '{"model_type": "llama", "hidden_size": 12.0}',
    "heads that do not divide": '{"model_type": "bert", "hidden_size": 100, "num_attention_heads": 12}',
    "unknown class": '{"model_type": "gpt2", "architectures": ["GPT2ForPoetry"]}',
}


def command_line(path: Path, *extra: str) -> tuple[int, str, str]:
    """``derivations count PATH [extra]``, in this process: exit status, stdout, stderr."""
    return in_process.derivations("count", str(path), *extra)


@pytest.fixture()
def in_tmp(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # pasted.count writes config.json where it runs, as the page's Python does
    return tmp_path


@pytest.mark.parametrize("name", configs.bundled())
def test_a_pasted_bundled_config_counts_as_the_command_line(name, in_tmp):
    text = (Path(configs.CHECKPOINTS_DIR) / f"{name}.json").read_text()
    (in_tmp / "config.json").write_text(text)
    status, printed, _ = command_line(Path("config.json"), "--json")
    _, table, _ = command_line(Path("config.json"))
    answer = json.loads(pasted.count(text))
    assert status == 0 and answer["json"] + "\n" == printed and answer["table"] + "\n" == table
    expected = json.loads(printed)
    assert answer["architecture"] == expected["architecture"]
    assert [(r["name"], r["count"]) for r in answer["rows"]] == [
        (c["name"], f"{c['count']:,}") for c in expected["components"]]
    assert answer["total"] == f"{expected['total']:,}"
    assert answer["active"] == (f"{expected['active']:,}" if "active" in expected else None)
    assert expected["architecture"] in answer["architectures"]


def test_a_class_chosen_on_the_page_is_the_command_lines_arch(in_tmp):
    text = (Path(configs.CHECKPOINTS_DIR) / "bert-base-uncased.json").read_text()
    (in_tmp / "config.json").write_text(text)
    answer = json.loads(pasted.count(text))
    assert len(answer["architectures"]) > 1
    for architecture in answer["architectures"]:
        _, printed, _ = command_line(Path("config.json"), "--arch", architecture, "--json")
        assert json.loads(pasted.count(text, architecture))["json"] + "\n" == printed


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_config_gets_the_command_lines_line(text, in_tmp, monkeypatch):
    # The page runs no torch: a model_type not derived gets the line that says so, as the command line without it.
    monkeypatch.setattr(measured, "available", lambda: False)
    (in_tmp / "config.json").write_text(text)
    status, printed, error = command_line(Path("config.json"))
    assert status == cli.EXIT_BAD_INPUT and printed == ""
    assert json.loads(pasted.count(text)) == {"error": error.rstrip("\n")}


# The page's FLOPs and memory: the command line's own runs, on a sequence of this many tokens.
SEQ = "64"
# The page's "fits on" table, `fit config.json` on every accelerator, for a config of each kind of answer: learned
# positions (gpt2, bert), the memory (qwen2.5-7b), a sliding window (mistral-7b), windows on some layers
# (gemma-2-2b), an encoder-decoder (t5-small), a mixture's bound (mixtral-8x7b); and the one line of a class without an
# inference total (:data:`UNDERIVED`, no bundled config's own class).
FITTED = ("gpt2", "bert-base-uncased", "qwen2.5-7b", "mistral-7b", "gemma-2-2b", "t5-small", "mixtral-8x7b")
UNDERIVED = ("llama-2-7b", "LlamaForSequenceClassification")
# The commands that read the cards (accelerators) and the roofline's bounds, once each.
CARDS = (["fit", "config.json", "--gpu", "A100"], ["flops", "config.json", "--seq", SEQ, "--gpu", "MI300X"],
         ["memory", "config.json", "--seq", SEQ, "--gpu", "TPU-v5e"])


def test_the_bundle_runs_alone_without_sympy(tmp_path):
    # The page's Python holds the bundle and the standard library, nothing else: run it so, in a fresh
    # interpreter that cannot import SymPy nor this checkout, on every bundled config: count, flops, memory; fit
    # on configs of each kind, and the commands that read the accelerators. No site (-S): the editable install's
    # finder, which site-packages' .pth installs, would load a module the bundle lacks from the checkout.
    with zipfile.ZipFile(io.BytesIO(hook.current_bundle())) as archive:  # the site's (its build's cache)
        archive.extractall(tmp_path / "bundle")
    # Every bundled config in CI; in `make test` the first of each model_type's, and those the other commands read.
    names = sorted(set(profiles.spread(configs.bundled(), 1000, group=lambda name: configs.load(name)["model_type"]))
                   | set(FITTED))
    # A model that reads images is asked for one image: no --seq (which it refuses).
    # One image alone takes no length; an image among text, a sequence that holds its tokens.
    lengths = {name: [] if answers.reads_images(configs.load(name))
               else ["--seq", str(max(int(SEQ), configs.sizes(configs.load(name)).get("N_i", 0)))] for name in names}
    code = f"""
import json, os, sys
sys.modules["sympy"] = None  # an import of SymPy fails
sys.path[:] = [{str(tmp_path / "bundle")!r}] + [p for p in sys.path if "site-packages" not in p and p not in ("", {str(ROOT)!r})]
from derivations import pasted
pasted.install({str(tmp_path / "bundle")!r})
def read(name):
    with open(os.path.join({configs.CHECKPOINTS_DIR!r}, name + ".json")) as f:
        return f.read()
# fit first, as the page runs it after a count: the sections it reads are installed for it, not by memory before it.
fitted = {{name: json.loads(pasted.command(["fit", "config.json"], read(name))) for name in {FITTED!r}}}
answers = {{}}
for name in {names!r}:
    text = read(name)
    answers[name] = [json.loads(pasted.count(text))["json"],
                     json.loads(pasted.command(["flops", "config.json", *{lengths!r}[name], "--json"], text)),
                     json.loads(pasted.command(["memory", "config.json", *{lengths!r}[name]], text))]
    if name in fitted:
        answers[name].append(fitted[name])
    if name == "qwen2.5-7b":
        answers[name] += [json.loads(pasted.command(argv, text)) for argv in {CARDS!r}]
underived = json.loads(read({UNDERIVED[0]!r})) | {{"architectures": [{UNDERIVED[1]!r}]}}
print(json.dumps([answers, json.loads(pasted.command(["fit", "config.json"], json.dumps(underived)))]))
import derivations
assert derivations.__file__.startswith({str(tmp_path / "bundle")!r}), derivations.__file__
"""
    result = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    answered, underived = json.loads(result.stdout)
    for name in names:
        path = str(Path(configs.CHECKPOINTS_DIR) / f"{name}.json")
        counted, flops, memory, *more = answered[name]
        assert counted + "\n" == command_line(Path(path), "--json")[1], name
        assert [flops["status"], flops["output"]] == list(in_process.printed("flops", path, *lengths[name], "--json")), name
        assert [memory["status"], memory["output"]] == list(in_process.printed("memory", path, *lengths[name])), name
        assert answers.table(**memory["table"]) == memory["output"], name  # the cells the page's table shows
        runs = ([["fit", "config.json"]] if name in FITTED else []) + (list(CARDS) if name == "qwen2.5-7b" else [])
        assert len(more) == len(runs), name
        for argv, ran in zip(runs, more):
            status, printed, error = in_process.derivations(argv[0], path, *argv[2:])
            # What the command line prints: its table on stdout (the page's cells laid out as it lays them out) and
            # its notes on stderr, or its one line on stderr and no table.
            assert (ran["status"], ran["output"]) == (status, (printed or error).rstrip("\n")), (name, argv)
            if status == 0:
                assert answers.table(**ran["table"]) == ran["output"] and "".join(cli.shown(note) + "\n" for note in ran["notes"]) == error, (name, argv)
            else:
                assert ran["table"] is None, (name, argv)
    # Each kind of answer was met: a table of every card, a card alone, and a class without an inference total.
    fitted = {name: answered[name][3] for name in FITTED}
    assert fitted["qwen2.5-7b"]["status"] == 0 and len(fitted["qwen2.5-7b"]["table"]["body"]) > 1
    assert fitted["mixtral-8x7b"]["status"] == 0  # a mixture's bound over its routings
    config = tmp_path / "underived.json"
    config.write_text(json.dumps(configs.load(UNDERIVED[0]) | {"architectures": [UNDERIVED[1]]}))
    status, printed, error = in_process.derivations("fit", str(config))
    assert (underived["status"], underived["output"]) == (status, error.rstrip("\n")) and status == cli.EXIT_BAD_INPUT
    assert "no inference total" in underived["output"] and underived["table"] is None


@pytest.mark.parametrize("argv", [["flops", "config.json", "--seq", "2048"], ["flops", "config.json"],
                                  ["memory", "config.json", "--dtype", "fp5"], ["memory", "config.json", "--batch", "0"],
                                  ["memory", "config.json", "--seq", "100", "--dtype", "int4", "--batch", "3"]],
                         ids=["past-positions", "no-seq", "dtype", "batch", "options"])
def test_a_command_on_the_page_prints_what_the_command_line_prints(argv, in_tmp):
    text = (Path(configs.CHECKPOINTS_DIR) / "gpt2.json").read_text()
    (in_tmp / "config.json").write_text(text)
    answer = json.loads(pasted.command(argv, text))
    status, printed = in_process.printed(*argv)
    assert (answer["status"], answer["output"]) == (status, printed)
    # The cells the page makes its table of: laid out as the command line lays them out, what it prints.
    if status == 0:
        assert answers.table(**answer["table"]) == printed
    else:
        assert answer["table"] is None


def test_a_command_that_prints_json_has_no_table(in_tmp):
    text = (Path(configs.CHECKPOINTS_DIR) / "gpt2.json").read_text()
    (in_tmp / "config.json").write_text(text)
    answer = json.loads(pasted.command(["memory", "config.json", "--json"], text))
    assert answer["status"] == 0 and json.loads(answer["output"])["parameters"] and answer["table"] is None


def test_none_counts_the_file_as_written(in_tmp):
    # The page writes a chosen file's bytes itself, where pasted.folder() says: read as the command line reads a
    # file, UTF-8 or not.
    written = Path(pasted.folder()) / "config.json"
    for data in (b'{"model_type": "gpt2", "note": "caf\xe9"}', b'{"model_type": "gpt2"}'):
        written.write_bytes(data)
        (in_tmp / "config.json").write_bytes(data)
        status, printed, error = command_line(Path("config.json"), "--json")
        answer = json.loads(pasted.count(None))
        if status == 0:
            assert answer["json"] + "\n" == printed
        else:
            assert answer == {"error": error.rstrip("\n")}


def test_a_lone_surrogate_is_a_file_that_is_not_utf8(in_tmp):
    # A JavaScript string may hold one; written as it stands, it is what the command line reads as not UTF-8.
    assert "not a UTF-8 text file" in json.loads(pasted.count('{"model_type": "gpt2", "x": "\ud800"}'))["error"]


def test_counting_leaves_the_callers_config_json_alone(in_tmp):
    (in_tmp / "config.json").write_text("mine")
    json.loads(pasted.count('{"model_type": "gpt2"}'))
    assert (in_tmp / "config.json").read_text() == "mine"


def test_the_page_gets_the_command_lines_notes():
    # What the command line adds on stderr beside an answer (a length past the context), for the page to show.
    text = (Path(configs.CHECKPOINTS_DIR) / "qwen2.5-7b.json").read_text()
    past = json.loads(pasted.command(["memory", "config.json", "--seq", "200000"], text))
    within = json.loads(pasted.command(["memory", "config.json", "--seq", "4096"], text))
    assert past["status"] == 0 and len(past["notes"]) == 1 and "past the model's context" in past["notes"][0]
    assert within["notes"] == []
