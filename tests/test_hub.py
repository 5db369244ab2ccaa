"""Hugging Face model ids: config.json read from a cache laid out as huggingface_hub lays it out (no network),
or fetched alone where huggingface_hub is installed; else one line saying where the command looked."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import derivations.__main__ as cli
from derivations import configs, hub, registry

ROOT = Path(__file__).resolve().parents[1]
COMMIT = "a" * 40
OTHER = "b" * 40


def lay_out(cache: Path, model_id: str, config: dict, commit: str = COMMIT, ref: str = "main") -> Path:
    """A model's folder as huggingface_hub writes it: refs/REF holds the commit, snapshots/COMMIT the files."""
    folder = cache / ("models--" + model_id.replace("/", "--"))
    (folder / "refs").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / ref).write_text(commit)
    snapshot = folder / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "config.json").write_text(json.dumps(config))
    (folder / "blobs").mkdir(exist_ok=True)
    return snapshot / "config.json"


def run(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "derivations", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env)


@pytest.fixture()
def environment(tmp_path, monkeypatch) -> dict:
    """A clean environment for the command: no HF_* variables but the ones a test sets, offline."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_", "XDG_CACHE"))}
    env |= {"HF_HUB_OFFLINE": "1", "HOME": str(tmp_path / "home")}
    for k in [k for k in os.environ if k.startswith(("HF_", "HUGGINGFACE_", "XDG_CACHE"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return env


def test_a_model_id_from_the_cache(tmp_path, environment):
    cache = tmp_path / "hub"
    lay_out(cache, "Qwen/Qwen2.5-7B", configs.load("qwen2.5-7b"))
    out = run("count", "Qwen/Qwen2.5-7B", "--json", env=environment | {"HF_HUB_CACHE": str(cache)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["total"] == registry.resolve(configs.load("qwen2.5-7b")).total


def test_hf_home_and_the_default_place(tmp_path, environment, monkeypatch):
    config = configs.load("gpt2")
    lay_out(tmp_path / "home-hf" / "hub", "openai-community/gpt2", config)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home-hf"))
    assert configs.load("openai-community/gpt2") == config
    monkeypatch.delenv("HF_HOME")
    lay_out(tmp_path / "home" / ".cache" / "huggingface" / "hub", "openai-community/gpt2", config)
    assert hub.cache_dir() == tmp_path / "home" / ".cache" / "huggingface" / "hub"
    assert configs.load("openai-community/gpt2") == config
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.cache_dir() == tmp_path / "xdg" / "huggingface" / "hub"


def test_revisions(tmp_path, environment, monkeypatch):
    # main and a tag point at different commits; a commit is read from its snapshot directly.
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    lay_out(cache, "org/model", configs.load("llama-2-7b"), COMMIT, "main")
    lay_out(cache, "org/model", configs.load("llama-2-13b"), OTHER, "v2")
    assert configs.load("org/model") == configs.load("llama-2-7b")
    assert configs.load("org/model", "v2") == configs.load("llama-2-13b")
    assert configs.load("org/model", OTHER) == configs.load("llama-2-13b")
    out = run("memory", "org/model", "--revision", "v2", "--json", env=environment | {"HF_HUB_CACHE": str(cache)})
    assert out.returncode == 0 and json.loads(out.stdout)["parameters"] == registry.resolve(configs.load("llama-2-13b")).total
    with pytest.raises(configs.ConfigError, match="revision v3"):
        configs.load("org/model", "v3")


def test_not_in_the_cache_says_where_it_looked(tmp_path, environment):
    cache = tmp_path / "empty"
    out = run("count", "Qwen/Qwen2.5-7B", env=environment | {"HF_HUB_CACHE": str(cache)})
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert str(cache) in out.stderr and "HF_HUB_OFFLINE" in out.stderr


def test_without_huggingface_hub_it_says_what_to_install(tmp_path, environment, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails, as where it is not installed
    assert cli.main(["count", "Qwen/Qwen2.5-7B"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'derivations[hub]'" in err and str(tmp_path / "empty") in err


def test_with_huggingface_hub_it_fetches_config_json_alone(tmp_path, environment, monkeypatch, capsys):
    asked = []

    def hf_hub_download(repo_id, filename, revision=None):
        asked.append((repo_id, filename, revision))
        return str(lay_out(tmp_path / "fetched", repo_id, configs.load("mistral-7b")))

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    assert cli.main(["count", "mistralai/Mistral-7B-v0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == registry.resolve(configs.load("mistral-7b")).total
    assert asked == [("mistralai/Mistral-7B-v0.1", "config.json", "main")]  # the config, never the weights


def test_a_bare_name_is_never_fetched(tmp_path, environment, monkeypatch):
    # A mistyped bundled name is looked for in the cache only.
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(
        hf_hub_download=lambda *a, **k: pytest.fail("fetched")))
    with pytest.raises(configs.ConfigError, match="not a bundled checkpoint either"):
        configs.load("lama-2-7b")


def test_version():
    out = subprocess.run([sys.executable, "-m", "derivations", "--version"], capture_output=True, text=True, cwd=ROOT)
    import tomllib

    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert out.returncode == 0 and out.stdout == f"derivations {expected}\n"
