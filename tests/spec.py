"""What the reference harness (tests/test_reference_families.py) checks of a family, declared once per family in
``tests/specs/<family>.py`` as ``SPEC = Spec(...)``. A helper, not a test module.

The harness runs, for every spec, the checks every family shares, each against transformers on the meta device,
in total and node by node (tests/reference.py): the bundled checkpoints; every class on a real config, shrunk;
every class on transformers' defaults; every class in each layout a config can ask for; the configs the reader
refuses, which transformers refuses too (or builds and cannot run); the edges it accepts, which transformers builds
and runs; and random configs. What only one family has stays in its own ``tests/test_reference_<family>.py``.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

SPECS_DIR = Path(__file__).resolve().parent / "specs"


@dataclass(frozen=True, kw_only=True)
class Spec:
    """One family's table row. ``small`` is a small config (its model_type included) that the layouts, the refused
    and the accepted configs change; ``real`` bundled checkpoints, each with the fields that shrink it (fewer
    layers), on which every class is checked; ``defaults`` the fields a config of transformers' defaults sets beside its
    model_type (a depth of 1, to keep a build quick); ``layouts`` flags over ``small`` by name, each checked with
    every class (or the classes ``layout_classes`` names); ``refused`` configs over ``small`` with words of the
    reader's one line; ``accepted`` edges over ``small``; ``configs`` random configs and ``examples`` how many a
    full run draws (``make test`` draws fewer; CI draws them all). ``every_class_on_checkpoints``: every class on
    every checkpoint, rather than the checkpoint's own class. ``check`` compares a class on a config with
    transformers (reference.check unless the family must build it its own way); ``runs`` says whether transformers
    builds a config and runs one forward pass on it (the refused and accepted configs)."""

    family: str
    small: Mapping[str, object] | None = None
    real: Sequence[tuple[str, Mapping[str, object]]] = ()
    every_class_on_checkpoints: bool = False
    defaults: Mapping[str, object] | None = field(default_factory=dict)
    layouts: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    layout_classes: Sequence[str] | None = None
    refused: Sequence[tuple[Mapping[str, object], str]] = ()
    accepted: Sequence[Mapping[str, object]] = ()
    configs: st.SearchStrategy[dict] | None = None
    examples: int = 50
    check: Callable[[str, Mapping], None] | None = None
    runs: Callable[[Mapping], bool] | None = None
    # How transformers runs its classes, for the FLOPs and cache checks (tests/reference.py): the classes whose
    # forward reads the values it is given (T5's sequence classifier finds the end-of-sequence token), which must
    # run on CPU to be measured, and those whose decoder reads the input shifted right (no decoder_input_ids).
    data_dependent: tuple[str, ...] = ()
    shifted: tuple[str, ...] = ()
    # An encoder whose forward needs the attention mask it is given, which the checks then pass (all ones, as a
    # tokenizer gives): True for every class (DeBERTa-v2's warn_if_padding_and_no_attention_mask tests its ids for
    # padding without one, values the meta device cannot answer), else the classes that do (ModernBERT's multiple
    # choice pools by the mask); an encoder's other classes run without one.
    masked: bool | tuple[str, ...] = ()
    # A family whose layers may attend to a window of the tokens: how its configs set the windows (strategies.windows),
    # drawn by the cache check against transformers' (tests/test_reference_memory.py).
    windows: Callable | None = None
    # Classes whose FLOPs the command refuses (they read an input the config does not size: Qwen2.5-VL's images,
    # each its own grid of patches): the forward checks do not run them.
    no_forward: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        assert self.small is None or "model_type" in self.small, f"{self.family}: small needs its model_type"
        assert not ((self.layouts or self.refused or self.accepted) and self.small is None), \
            f"{self.family}: layouts, refused and accepted configs change small"
        assert not ((self.refused or self.accepted) and self.runs is None), \
            f"{self.family}: refused and accepted configs need runs (does transformers build and run them?)"


@functools.cache
def specs() -> dict[str, Spec]:
    """Every family's spec (tests/specs/<family>.py), by family."""
    found = {}
    for info in sorted(pkgutil.iter_modules([str(SPECS_DIR)]), key=lambda m: m.name):
        spec = importlib.import_module(f"specs.{info.name}").SPEC
        assert isinstance(spec, Spec) and spec.family == info.name, f"tests/specs/{info.name}.py: SPEC for {info.name}"
        found[spec.family] = spec
    return found
