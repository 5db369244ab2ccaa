"""Every family against transformers, from its spec (tests/specs/<family>.py, tests/spec.py): total and every node of
the tree, on the meta device, for the bundled checkpoints, every class on a real config and on transformers'
defaults, every layout, the refused and accepted edges, and random configs. The expected numbers are
transformers' own (tests/reference.py); the derivation is reached as the command line reaches it
(derivations.registry.resolve: config reading, layout and class selection included).

The checks only one family makes are in its own tests/test_reference_<family>.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from spec import Spec, specs

SPECS = specs()
FAMILIES = registry.families()
# Random configs: every draw a spec asks for in CI (which has 90 minutes), a fifth of them (at least 5) in
# `make test` (which has 3): the same strategies, fewer examples.
FULL = reference.under_ci()


def check(spec: Spec, architecture: str, config: dict) -> None:
    (spec.check or reference.check)(architecture, config)


def own_class(spec: Spec, config: dict | None = None) -> str:
    """The class a checkpoint's table row counts: the family's main class, or (a family whose main column is a part
    of its module, as GPT-3's) the class the config lists."""
    family = FAMILIES[spec.family]
    if family.main in family.architectures:
        return family.main
    listed = (config or {}).get("architectures") or [family.base]
    return listed[0]


def _cases(rows: list[tuple], *names: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(", ".join(names), rows, ids=["-".join(str(part) for part in row) for row in rows])


def test_every_family_has_a_spec():
    assert set(SPECS) == set(FAMILIES), "a family without a spec (tests/specs/<family>.py), or a spec without a family"


CHECKPOINTS = [(name, checkpoint, architecture) for name, spec in SPECS.items()
               for checkpoint in FAMILIES[name].checkpoints
               for architecture in (FAMILIES[name].architectures if spec.every_class_on_checkpoints
                                    else [own_class(spec, configs.load(checkpoint))])]


@_cases(CHECKPOINTS, "name", "checkpoint", "architecture")
def test_checkpoint(name: str, checkpoint: str, architecture: str) -> None:
    check(SPECS[name], architecture, configs.load(checkpoint))


REAL = [(name, architecture) for name, spec in SPECS.items() if spec.real for architecture in FAMILIES[name].architectures]


@_cases(REAL, "name", "architecture")
def test_every_class_on_a_real_config(name: str, architecture: str) -> None:
    checkpoint, shrunk = SPECS[name].real
    check(SPECS[name], architecture, configs.load(checkpoint) | dict(shrunk))


DEFAULTS = [(name, architecture) for name, spec in SPECS.items() if spec.defaults is not None
            for architecture in FAMILIES[name].architectures]


@_cases(DEFAULTS, "name", "architecture")
def test_defaults(name: str, architecture: str) -> None:
    # A config.json with (almost) no sizes: the derivation's defaults must be the config class's.
    check(SPECS[name], architecture, {"model_type": FAMILIES[name].model_type} | dict(SPECS[name].defaults))


LAYOUTS = [(name, layout, architecture) for name, spec in SPECS.items() for layout in spec.layouts
           for architecture in (spec.layout_classes or FAMILIES[name].architectures)]


@_cases(LAYOUTS, "name", "layout", "architecture")
def test_layouts(name: str, layout: str, architecture: str) -> None:
    spec = SPECS[name]
    check(spec, architecture, dict(spec.small) | dict(spec.layouts[layout]))


REFUSED = [(name, i) for name, spec in SPECS.items() for i in range(len(spec.refused))]


@_cases(REFUSED, "name", "index")
def test_refused_by_both(name: str, index: int) -> None:
    # The reader's one line, and transformers refuses the config too (or builds a model that cannot run).
    spec = SPECS[name]
    changed, message = spec.refused[index]
    config = dict(spec.small) | dict(changed)
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
    assert not spec.runs(config), f"{name}: transformers builds and runs {changed}"


ACCEPTED = [(name, i) for name, spec in SPECS.items() for i in range(len(spec.accepted))]


@_cases(ACCEPTED, "name", "index")
def test_accepted_by_both(name: str, index: int) -> None:
    # Edges the reader accepts because transformers builds and runs them.
    spec = SPECS[name]
    config = dict(spec.small) | dict(spec.accepted[index])
    assert spec.runs(config), f"{name}: transformers does not run {spec.accepted[index]}"
    check(spec, own_class(spec), config)


def _random_configs(spec: Spec):
    examples = spec.examples if FULL else max(5, spec.examples // 5)

    @settings(max_examples=examples, deadline=None)
    @given(data=st.data())
    def test(data: st.DataObject) -> None:
        config = data.draw(spec.configs, label="config")
        architecture = data.draw(st.sampled_from(sorted(FAMILIES[spec.family].architectures)), label="architecture")
        check(spec, architecture, config)

    test.__name__ = test.__qualname__ = f"test_random_configs_{spec.family}"
    test.__doc__ = f"{spec.family}: random configs ({examples} draws), every class"
    return test


for _spec in SPECS.values():
    if _spec.configs is not None:
        globals()[f"test_random_configs_{_spec.family}"] = _random_configs(_spec)
