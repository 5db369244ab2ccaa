"""The Python API: the same answers as the command line's --json, from a name, a path, a dict or a model id."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import derivations
from derivations import configs, registry
from derivations.components import evaluate

ROOT = Path(__file__).resolve().parents[1]


def cli_json(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "derivations", *args, "--json"], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", ["bert-base-chinese", "mixtral-8x7b", "t5-small"])
def test_count_is_the_command_lines(name, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(configs.load(name)))
    expected = cli_json("count", name)
    for model in (name, path, str(path), configs.load(name)):
        result = derivations.count(model)
        assert result.json() == expected and result.total == expected["total"]
    # Each component's expression gives its count at the config's sizes.
    values = registry.resolve(configs.load(name)).values
    assert [evaluate(c.expr, values) for c in result.components] == [c["count"] for c in expected["components"]]
    assert [c.latex for c in result.components] == [c["latex"] for c in expected["components"]]


def test_flops_and_memory_are_the_command_lines():
    from derivations.symbols import s, s_d

    result = derivations.flop_count("t5-small", seq=64, target=16, batch=2)
    assert result.json() == cli_json("flops", "t5-small", "--seq", "64", "--target", "16", "--batch", "2")
    values = registry.resolve(configs.load("t5-small")).values | {s: 64, s_d: 16}
    assert [2 * evaluate(c.expr, values) for c in result.components] == [c.value for c in result.components]
    memory = derivations.memory_use("mistral-7b", seq=10000, dtype="int4")
    assert memory.json() == cli_json("memory", "mistral-7b", "--seq", "10000", "--dtype", "int4")
    assert memory.kv_cache_elements == 4095 * 32 * 2 * 8 * 128  # the window's last 4,095 tokens, every layer


@pytest.mark.parametrize("call, message", [
    (lambda: derivations.count("no-such-model"), "no-such-model"),
    (lambda: derivations.flop_count("gpt2", seq=0), "from 1 to"),
    (lambda: derivations.memory_use("gpt2", dtype="fp5"), "unknown dtype"),
    (lambda: derivations.count({"model_type": "gpt2", "n_embd": -1}), "n_embd"),
])
def test_bad_input_raises_the_command_lines_error(call, message):
    with pytest.raises(configs.ConfigError, match=message):
        call()


def test_importing_the_package_does_not_import_sympy():
    code = "import sys, derivations; assert 'sympy' not in sys.modules; print(derivations.__all__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_the_docstrings_examples_are_true():
    # The API's page (docs/api.md) is generated from these docstrings: every example on it runs, and prints
    # what it shows.
    import doctest

    from derivations import api, reading

    for module in (api, reading):
        failed, attempted = doctest.testmod(module, report=False)
        assert attempted and not failed, f"{module.__name__}: {failed} of {attempted} examples fail"


@pytest.mark.parametrize("function, results", [
    (derivations.count, lambda: [derivations.count("mixtral-8x7b")]),
    (derivations.flop_count, lambda: [derivations.flop_count("t5-small", seq=64, target=16)]),
    (derivations.memory_use, lambda: [derivations.memory_use("t5-small", seq=64, target=16),
                                      derivations.memory_use("mistral-7b", seq=8192)]),
], ids=["count", "flop_count", "memory_use"])
def test_every_key_of_a_result_is_in_its_docstring(function, results):
    # The page lists each function's keys (its Returns), and the dicts' keys (formats, optimizers): a key the
    # command line adds must be described there too. These models have every optional key (active, target,
    # windows, activations).
    for result in results():
        for key, value in result.json().items():
            assert f"`{key}`" in function.__doc__, f"{function.__name__}: `{key}` not in its docstring"
            for inner in value if isinstance(value, dict) else ():
                assert f"`{inner}`" in function.__doc__, f"{function.__name__}: `{inner}` ({key}) not in its docstring"
