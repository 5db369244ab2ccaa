"""Every family against transformers, from its spec (tests/specs/<family>.py, tests/spec.py): total and every node of
the tree, on the meta device, for the bundled checkpoints, every class on a real config and on transformers'
defaults, every layout, the refused and accepted edges, and random configs. The expected numbers are
transformers' own (tests/reference.py); the derivation is reached as the command line reaches it
(derivations.registry.resolve: config reading, layout and class selection included).

The checks only one family makes are in its own tests/test_reference_<family>.py.

CI (``CI`` set, as .ci/run sets it) runs every check a spec asks for. `make test`, which has three minutes, runs a
lighter table that still checks every family and every class against transformers: every class on the family's
example checkpoint (where a spec asks for every class on every checkpoint, else its own class), one in four of its
other checkpoints, and one in two of its (layout, class) rows (each layout with the classes whose tree it changes,
where the spec asks for every class) and of its classes on transformers' defaults (tests/profiles.spread, the first of each
family's kept); every class on a real config; and a sixteenth of the random draws (tests/profiles.draws).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from spec import Spec, specs

SPECS = specs()
FAMILIES = registry.families()
FULL = profiles.under_ci()


def check(spec: Spec, architecture: str, config: dict) -> None:
    (spec.check or reference.check)(architecture, config)


def own_class(spec: Spec, config: dict | None = None) -> str:
    """The class a checkpoint's table row counts: the family's main class, or (a family whose main column is a part
    of its module, as GPT-3's) the class the config lists."""
    family = FAMILIES[spec.family]
    if family.main in family.architectures:
        return family.main
    listed = (config or {}).get("architectures") or [family.base or next(iter(family.architectures))]
    return listed[0]


def _cases(rows: list[tuple], *names: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(", ".join(names), rows, ids=["-".join(str(part) for part in row) for row in rows])


def test_every_family_has_a_spec():
    assert set(SPECS) == set(FAMILIES), "a family without a spec (tests/specs/<family>.py), or a spec without a family"


def test_the_model_types_said_not_derived_are_transformers_own():
    # The coverage page's list (derivations/site/families.py): each a model_type transformers builds, as a config
    # names it.
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    from derivations.site.families import NOT_DERIVED

    assert set(NOT_DERIVED) <= set(CONFIG_MAPPING_NAMES), set(NOT_DERIVED) - set(CONFIG_MAPPING_NAMES)


def checkpoint_classes(spec: Spec, checkpoint: str) -> list[str]:
    """The classes a checkpoint is checked with: its own; every class, where the spec asks for it (in `make test`,
    on the family's example checkpoint alone)."""
    family, own = FAMILIES[spec.family], own_class(spec, configs.load(checkpoint))
    if spec.every_class_on_checkpoints and (FULL or checkpoint == family.example):
        return list(family.architectures)
    return [own]


# In `make test`, every class on the family's example and one in four of its other checkpoints (profiles.spread).
CHECKPOINTS = ([(name, FAMILIES[name].example, architecture) for name, spec in SPECS.items()
                for architecture in checkpoint_classes(spec, FAMILIES[name].example)]
               + profiles.spread([(name, checkpoint, architecture) for name, spec in SPECS.items()
                                  for checkpoint in FAMILIES[name].checkpoints if checkpoint != FAMILIES[name].example
                                  for architecture in checkpoint_classes(spec, checkpoint)], 4))


@_cases(CHECKPOINTS, "name", "checkpoint", "architecture")
def test_checkpoint(name: str, checkpoint: str, architecture: str) -> None:
    check(SPECS[name], architecture, configs.load(checkpoint))


REAL = [(name, checkpoint, architecture) for name, spec in SPECS.items() for checkpoint, _ in spec.real
        for architecture in FAMILIES[name].architectures]


@_cases(REAL, "name", "checkpoint", "architecture")
def test_every_class_on_a_real_config(name: str, checkpoint: str, architecture: str) -> None:
    shrunk = dict(SPECS[name].real)[checkpoint]
    check(SPECS[name], architecture, configs.load(checkpoint) | dict(shrunk))


DEFAULTS = profiles.spread([(name, architecture) for name, spec in SPECS.items() if spec.defaults is not None
                            for architecture in FAMILIES[name].architectures], 2)


@_cases(DEFAULTS, "name", "architecture")
def test_defaults(name: str, architecture: str) -> None:
    # A config.json with (almost) no sizes: the derivation's defaults must be the config class's.
    check(SPECS[name], architecture, {"model_type": FAMILIES[name].model_type} | dict(SPECS[name].defaults))


def layout_classes(spec: Spec, layout: str) -> list[str]:
    """The classes a layout is checked with: those the spec names, else every class (in `make test`, the classes
    whose tree the layout changes from the small config's, else the family's main class)."""
    family = FAMILIES[spec.family]
    if spec.layout_classes or FULL:
        return list(spec.layout_classes or family.architectures)
    reader = configs.READERS[family.model_type]
    changed = family.variants[reader.layout.of(dict(spec.small) | dict(spec.layouts[layout]))]
    plain = family.variants[reader.layout.of(dict(spec.small))]
    return [name for name in family.architectures if changed[name] != plain[name]] or [own_class(spec)]


LAYOUTS = profiles.spread([(name, layout, architecture) for name, spec in SPECS.items() for layout in spec.layouts
                           for architecture in layout_classes(spec, layout)], 2)


@_cases(LAYOUTS, "name", "layout", "architecture")
def test_layouts(name: str, layout: str, architecture: str) -> None:
    spec = SPECS[name]
    check(spec, architecture, dict(spec.small) | dict(spec.layouts[layout]))


def shown(changed) -> str:
    """A changed config as a test's id shows it: its fields and values."""
    return ",".join(f"{field}={value}" for field, value in changed.items()) or "as is"


REFUSED = [(name, i, shown(changed)) for name, spec in SPECS.items() for i, (changed, _) in enumerate(spec.refused)]


@_cases(REFUSED, "name", "index", "changed")
def test_refused_by_both(name: str, index: int, changed: str) -> None:
    # The reader's one line, and transformers refuses the config too (or builds a model that cannot run).
    spec = SPECS[name]
    edge, message = spec.refused[index]
    config = dict(spec.small) | dict(edge)
    with pytest.raises(configs.ConfigError, match=message) as refused:
        registry.resolve(config)
    assert "\n" not in str(refused.value), "the refusal is one line"
    assert not spec.runs(config), f"{name}: transformers builds and runs {edge}"


ACCEPTED = [(name, i, shown(edge)) for name, spec in SPECS.items() for i, edge in enumerate(spec.accepted)]


@_cases(ACCEPTED, "name", "index", "changed")
def test_accepted_by_both(name: str, index: int, changed: str) -> None:
    # Edges the reader accepts because transformers builds and runs them.
    spec = SPECS[name]
    config = dict(spec.small) | dict(spec.accepted[index])
    assert spec.runs(config), f"{name}: transformers does not run {spec.accepted[index]}"
    check(spec, own_class(spec), config)


def _random_configs(spec: Spec):
    examples = profiles.draws(spec.examples)  # all of them in CI, fewer in `make test`

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
