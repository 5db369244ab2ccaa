"""The pictures' data: each bar is the number of the checkpoint table beside it, split by kind."""

import pytest

from derivations import configs, registry
from derivations.site import breakdown, references

FAMILIES = sorted(registry.families().items())


@pytest.mark.parametrize("name, family", FAMILIES, ids=[name for name, _ in FAMILIES])
def test_each_bar_is_the_tables_number(name, family):
    # The table's first column is the class as each checkpoint's config builds it (Llama 3.2 ties its head,
    # T5 1.1 gates its feed-forward and keeps a head of its own); the picture must show the same count.
    first = family.main
    for bar in breakdown.family(family):
        shown = references.number_text(f"{name}.{first} @ {bar.checkpoint}")
        assert f"{bar.total:,}" == shown, (bar.checkpoint, bar.total, shown)
        assert sum(bar.by_kind.values()) == bar.total


@pytest.mark.parametrize("checkpoint", ["llama-3.2-1b", "t5-v1_1-base"])
def test_bars_follow_the_checkpoints_layout(checkpoint):
    # Through the reading of the config (registry.checkpoint resolves class and layout itself): 1,235,814,400
    # for Llama 3.2 1B with its tied head, as transformers 5.23 builds it on the meta device (measured in
    # tests/specs/llama.py), and 247,577,856 for t5-v1_1-base with its own head (the v1.1
    # checkpoint's published count, tests/test_t5.py).
    family = registry.of_model_type(configs.load(checkpoint)["model_type"])
    bar = next(b for b in breakdown.family(family) if b.checkpoint == checkpoint)
    assert bar.total == registry.checkpoint(checkpoint, bar.architecture).total
    assert bar.total == {"llama-3.2-1b": 1_235_814_400, "t5-v1_1-base": 247_577_856}[checkpoint]
