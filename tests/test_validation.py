"""A config that transformers refuses for a field that sets no size (a dropout of 2.5, an eps of null, a token id of
NaN) is counted as the same config without the mistake, with one line on stderr that names the field and what
transformers requires of it (derivations.validation); one it refuses for a field that sets a size is refused.

Each case is a mistake a new user makes in a bundled config (tests/mistakes.py), and what transformers does with it
is read from transformers itself: its config class, building the class, one training step.
"""

from __future__ import annotations

import doctest
import functools
import json
import warnings

import in_process
import pytest
import profiles

import mistakes
from mistakes import bundled, project, refusal, sets_a_size

import derivations
from derivations import answers, configs, validation
from derivations.api import ConfigWarning


def _cases() -> list[tuple[str, str, object, str]]:
    """One case a (model_type, field, value written by mistake): the first bundled checkpoint that gives the field
    (every mistake of tests/mistakes.py), then the fields the config class declares and the family's smallest
    checkpoint leaves out."""
    found: dict[tuple, tuple[str, str, object, str]] = {}
    for name in configs.bundled():
        config = bundled(name)
        for field, wrong in mistakes.mistakes(config):
            found.setdefault((config["model_type"], field, repr(wrong)), (name, field, wrong, "given"))
    for model_type in sorted({bundled(n)["model_type"] for n in configs.bundled()}):
        name, wrongs = mistakes.added(model_type)
        for field, wrong in wrongs:
            found.setdefault((model_type, field, repr(wrong)), (name, field, wrong, "added"))
    return [found[key] for key in sorted(found)]


CASES = _cases()
# All of them under CI; in `make test` one in thirty of each model_type's (each family keeps its first).
DRAWN = profiles.spread(CASES, 30, group=lambda case: bundled(case[0])["model_type"])


# Refusals of a config that transformers builds but whose forward cannot run at the checkpoint's own layout, which the
# probe does not have: each is a refused edge of its family's spec, where transformers' failure is run live
# (tests/test_reference_families.py::test_refused_by_both).
RUN_FAILS = {("falcon", "parallel_attn"): "forward: the new decoder architecture without parallel attention reads "
                                          "ln_attn, which FalconDecoderLayer did not build (tests/specs/falcon.py)"}


def at_own_sizes(config: dict, architecture: str) -> str | None:
    """What transformers refuses of ``config`` built whole on the meta device, one line, or None."""
    import reference

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference.build(architecture, config)
    except Exception as error:  # noqa: BLE001 (any refusal of transformers')
        return f"build: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return None


@functools.cache
def _counted(name: str) -> tuple[str, int]:
    result, _ = answers.count(bundled(name))
    return result["architecture"], result["total"]


@pytest.mark.parametrize("name, field, wrong, how", DRAWN,
                         ids=[f"{n}-{f}-{w!r}" for n, f, w, _ in DRAWN])
def test_a_mistake_is_noted_exactly_when_transformers_refuses_it(name, field, wrong, how):
    config = bundled(name)
    architecture, total = _counted(name)
    mistaken = {**config, field: wrong}
    theirs = refusal(mistaken, architecture, field)
    ours, said, note = project(mistaken)
    default = mistakes.class_defaults(config["model_type"]).get(field)
    if ours == "refuses":
        # The project refuses only what transformers refuses (a size, or a field the model cannot be built without,
        # or run with), judged on the family's small probe; where the probe takes it, at the config's own sizes (a
        # width alias written null leaves the config class's default width: BLOOM's n_embed), on the meta device.
        theirs = theirs or at_own_sizes(mistaken, architecture)
        if (mistaken["model_type"], field) in RUN_FAILS:
            theirs = theirs or RUN_FAILS[mistaken["model_type"], field]
        assert theirs, f"{field} = {wrong!r}: the project refuses ({said}), transformers takes it"
        return
    assert not sets_a_size({field: default} | config, field) or theirs is None, \
        f"{field} = {wrong!r} sets a size and transformers refuses it ({theirs}): the project counts it"
    if theirs:
        assert note and f" {field} " in note, f"{field} = {wrong!r}: transformers refuses it ({theirs}), no note"
    else:
        assert note is None, f"{field} = {wrong!r}: transformers takes it, yet the note says {note!r}"
    if not sets_a_size({field: default} | config, field):
        assert said == total, f"{field} = {wrong!r} sets no size, and the count moved: {said:,} for {total:,}"


def _heads() -> list[tuple[str, str, str]]:
    """Every class of each family whose config declares a field only some classes refuse (a head's dropout)."""
    cases = []
    for model_type in sorted({bundled(n)["model_type"] for n in configs.bundled()}):
        reader = configs.READERS[model_type]
        name = mistakes.probe(model_type)[0]
        layout = reader.layout.of(bundled(name))
        for field, check in reader.checks.items():
            if check.classes:
                cases += [(name, field, architecture) for architecture in answers.parameter_symbols(model_type, layout)]
    return cases


def _holds(case: tuple[str, str, str]) -> tuple[str, str, bool]:
    """A case's model_type, field, and whether the class is one the reader says holds the head the field sets (only
    to choose the cases: what the test compares is transformers' refusal)."""
    name, field, architecture = case
    model_type = bundled(name)["model_type"]
    return model_type, field, architecture.endswith(configs.READERS[model_type].checks[field].classes)


# Every class under CI; in `make test` one in four of each field's classes that hold its head, and of those that do
# not: both answers met for every field of every model_type.
HEADS = profiles.spread(_heads(), 4, group=_holds)


@pytest.mark.parametrize("name, field, architecture", HEADS, ids=[f"{a}-{f}" for _, f, a in HEADS])
def test_a_heads_dropout_is_noted_for_the_classes_that_hold_it(name, field, architecture):
    # DistilBERT's qa_dropout is a module of DistilBertForQuestionAnswering alone: 2.5 is refused there, and
    # nowhere else.
    mistaken = {**bundled(name), field: 2.5}
    theirs = refusal(mistaken, architecture, field)
    note = configs.note(mistaken, architecture)
    assert (note is not None) == (theirs is not None), (theirs, note)


def test_the_mistakes_cover_what_the_issue_names():
    # A dropout of 2.5, an eps of null, a NaN token id and context length: each among the cases, each refused by
    # transformers (the config class or the model) for at least one family.
    kinds = {(mistakes.kind(field, wrong), repr(wrong)) for _, field, wrong, _ in CASES}
    assert {("dropout", "2.5"), ("eps", "None"), ("token", "nan"), ("context", "nan")} <= kinds


# ---------------------------------------------------------------------------------------------
# The doors: the command line, the Python API, the config page
# ---------------------------------------------------------------------------------------------

MISTAKE = {"attn_pdrop": 2.5}  # gpt2's attention dropout: torch's nn.Dropout refuses it as GPT2Attention is built


@pytest.fixture
def mistaken(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(bundled("gpt2") | MISTAKE), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", [["count"], ["count", "--json"], ["flops", "--seq", "64", "--json"],
                                     ["memory", "--seq", "64"]])
def test_the_command_answers_and_says_what_transformers_refuses_in_one_line(command, mistaken):
    status, out, err = in_process.derivations(command[0], mistaken, *command[1:])
    assert status == 0
    assert err.count("\n") == 1 and err.startswith("note: ") and "attn_pdrop 2.5" in err and "0 to 1" in err
    assert len(err.rstrip("\n")) <= answers.COLUMNS
    _, clean, _ = in_process.derivations(command[0], "gpt2", *command[1:])
    assert out == clean  # the answer is the config's own, the mistake aside
    if "--json" in command:
        json.loads(out)


def test_the_command_line_prints_the_note_on_stderr_in_a_process_of_its_own(mistaken):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "derivations", "count", mistaken, "--json"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["total"] == _counted("gpt2")[1]
    assert done.stderr.splitlines() == [configs.note(bundled("gpt2") | MISTAKE, "GPT2LMHeadModel")]


def test_the_api_warns_and_keeps_the_note():
    with pytest.warns(ConfigWarning, match="attn_pdrop 2.5"):
        result = derivations.count(bundled("gpt2") | MISTAKE)
    assert result.total == _counted("gpt2")[1] and len(result.notes) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a config without a mistake warns nothing
        assert derivations.count("gpt2").notes == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConfigWarning)  # a caller that refuses such configs can
        with pytest.raises(ConfigWarning):
            derivations.memory_use(bundled("gpt2") | MISTAKE, seq=64)


def test_the_config_page_shows_the_note(mistaken):
    from derivations import pasted

    text = json.dumps(bundled("gpt2") | MISTAKE)
    answer = json.loads(pasted.count(text))
    assert answer["total"] == f"{_counted('gpt2')[1]:,}"
    assert len(answer["notes"]) == 1 and "attn_pdrop" in answer["notes"][0]
    assert json.loads(pasted.count(json.dumps(bundled("gpt2"))))["notes"] == []
    ran = json.loads(pasted.command(["memory", "config.json", "--seq", "64"], text))
    assert ran["status"] == 0 and ran["notes"] == answer["notes"]


def test_the_note_is_one_line_within_the_columns_even_with_many_mistakes():
    config = bundled("llama-2-7b") | {"rms_norm_eps": None, "attention_dropout": 2.5, "bos_token_id": float("nan"),
                                      "eos_token_id": "2", "use_cache": "yes", "hidden_act": "swiglu"}
    note = configs.note(config, "LlamaForCausalLM")
    assert "\n" not in note and len(note) <= answers.COLUMNS and "; 5 more" in note


def test_the_modules_examples_are_true():
    failed, attempted = doctest.testmod(validation, report=False)
    assert attempted and not failed
