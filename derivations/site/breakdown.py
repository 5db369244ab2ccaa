"""Where the parameters go: a model's count split by kind (embeddings, attention, feed-forward, norms,
heads), for the pictures on the family pages. Plain data from the derivations; the plotting is the
site's (derivations/site/figures.py)."""

from __future__ import annotations

from dataclasses import dataclass
from .. import registry
from ..components import KINDS, Part
from ..contract import Family


@dataclass(frozen=True)
class Breakdown:
    """One model on one checkpoint: its exact total and its count per kind (the counts add up to it)."""

    checkpoint: str
    architecture: str
    total: int
    by_kind: dict[str, int]

    def share(self, kind: str) -> float:
        return self.by_kind[kind] / self.total


def breakdown(part: Part, checkpoint: str) -> Breakdown:
    values = registry.checkpoint(checkpoint).values
    by_kind = dict.fromkeys(KINDS, 0)
    for kind, leaf, copies in part.kinds():
        by_kind[kind] += int((copies * leaf.expr).subs(values))
    total = part.count(values)
    assert sum(by_kind.values()) == total, f"{part.name} on {checkpoint}: the kinds do not add up"
    return Breakdown(checkpoint, part.name, total, by_kind)


def main_class(family: Family, checkpoint: str) -> Part:
    """The class a family's checkpoint table leads with (BertModel, GPT2LMHeadModel, MarianMTModel, ...),
    as the checkpoint's config builds it (the same number as the table's); or the part of the module it names
    (GPT-3's ``model``)."""
    from .references import resolve

    built = registry.as_built(family, family.main, checkpoint)
    return built if built is not None else resolve(f"{family.name}.{family.main}").obj


def family(family: Family) -> list[Breakdown]:
    """The family's main class on each of its bundled checkpoints."""
    return [breakdown(main_class(family, name), name) for name in family.checkpoints]


def families() -> dict[str, list[Breakdown]]:
    """Every family page's checkpoints (page name -> breakdowns), for the picture across families."""
    return {name: family(record) for name, record in registry.families().items()}
