"""Configs from the wild (tests/configs/wild/): real config.json files that others committed beside their projects
(fine-tunes, presets, copies kept by an application, old formats written by transformers 4.x and new ones by 5.x),
each with its source in tests/configs/wild/sources.json. They are counted as the bundled checkpoints are: every
class they name against transformers on the meta device, in total and node by node (a few layers deep, as the
harness builds the bundled ones), and, in CI, the whole depth in total. A config of a model_type that is not
derived gets the command line's one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import in_process
import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry

WILD = Path(__file__).parent / "configs" / "wild"
SOURCES = json.loads((WILD / "sources.json").read_text(encoding="utf-8"))
FILES = sorted(path.name for path in WILD.glob("*.json") if path.name != "sources.json")


def load(name: str) -> dict:
    return json.loads((WILD / name).read_text(encoding="utf-8"))


def classes(config: dict) -> list[str]:
    """The classes a config names, else the one transformers builds for it without a name (the base model)."""
    return list(config.get("architectures") or [registry.of_model_type(config["model_type"]).base])


DERIVED = [(name, cls) for name in FILES if load(name)["model_type"] in configs.READERS for cls in classes(load(name))]
NOT_DERIVED = [name for name in FILES if load(name)["model_type"] not in configs.READERS]


def test_every_config_has_its_source():
    assert sorted(SOURCES) == FILES
    for name, source in SOURCES.items():
        assert set(source) == {"repo", "path", "commit", "what"}, name
        assert "/" in source["repo"] and len(source["commit"]) == 40 and source["what"], name


def test_the_wild_set_covers_new_model_types():
    # The set was gathered for the model_types the project added after its first 23: most of them are here.
    assert len({load(name)["model_type"] for name in FILES}) >= 12


@pytest.mark.parametrize(("name", "architecture"), DERIVED)
def test_each_class_against_transformers(name: str, architecture: str):
    reference.check(architecture, reference.shallow(load(name)))


@pytest.mark.parametrize("name", profiles.cases(
    [name for name in FILES if name in dict(DERIVED)], [name for name in FILES if name in dict(DERIVED)][:3]))
def test_the_whole_depth_in_total(name: str):
    config = load(name)
    architecture = classes(config)[0]
    status, out, err = in_process.derivations("count", str(WILD / name), "--arch", architecture, "--json")
    assert status == 0, err
    assert json.loads(out)["total"] == reference.total(reference.build(architecture, config))


@pytest.mark.parametrize("name", NOT_DERIVED)
def test_a_config_not_derived_gets_one_line(name: str, tmp_path: Path):
    # Remote code (auto_map) or a model_type transformers does not know: neither derived nor measured.
    status, out, err = in_process.derivations("count", str(WILD / name))
    assert (status, out) == (2, "") and err.count("\n") == 1 and err.startswith("error: ")
    # transformers refuses it as well (Falcon's RefinedWeb files, with n_head and n_layer, among them): it builds no
    # config from the file without running the checkpoint's own code.
    (tmp_path / "config.json").write_text(json.dumps(load(name)), encoding="utf-8")
    with pytest.raises(ValueError):
        reference.transformers.AutoConfig.from_pretrained(str(tmp_path))
