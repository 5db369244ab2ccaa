"""The reference implementation (Hugging Face transformers) measured the way a derivation is built.

A helper for the tests, not a test module. It builds a transformers model on the meta device (no
memory, no initialisation, ties as the library ties) and sums ``named_parameters()`` under every node
of a :class:`~derivations.components.Part` tree, using the module paths the tree declares.

Importing this module skips the importing test module when torch or transformers is missing, and
fails it instead under CI (``CI`` set), where the cross-check must run.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Collection, Mapping
from types import ModuleType

import pytest
import sympy

from derivations.components import Part, evaluate


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require(name: str) -> ModuleType:
    """Import a module of the reference implementation: skip without it, fail under CI."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        reason = f"{name} is not importable ({error}): install the verify extra, pip install -e '.[verify]'"
    # Outside the except block, so that the report is the reason alone, not a chained traceback.
    if under_ci():
        pytest.fail(reason, pytrace=False)  # under CI a missing reference is a broken setup
    pytest.skip(reason, allow_module_level=True)


torch = require("torch")
transformers = require("transformers")

# Architectures that are a transformers class called with extra arguments.
VARIANTS = {"BertModelWithoutPooler": ("BertModel", {"add_pooling_layer": False}),
            # The name t5-3b's and t5-11b's configs still carry; transformers 5.x has only the new one.
            "T5WithLMHeadModel": ("T5ForConditionalGeneration", {})}


# ---------------------------------------------------------------------------------------------
# Building the model
# ---------------------------------------------------------------------------------------------

def build(architecture: str, config: Mapping) -> torch.nn.Module:
    """``architecture`` built from a config.json dict, on the meta device.

    ``with torch.device("meta")`` (not accelerate's ``init_empty_weights``, which does not tie in
    transformers 5.x) lets ``post_init`` tie the decoder to the embeddings as a real load does.
    """
    class_name, kwargs = VARIANTS.get(architecture, (architecture, {}))
    # for_model picks the config class from config["model_type"] and applies its defaults, as
    # from_pretrained does for a config.json.
    hf_config = transformers.AutoConfig.for_model(**config)
    with torch.device("meta"):
        return getattr(transformers, class_name)(hf_config, **kwargs)


def total(model: torch.nn.Module) -> int:
    """Trainable parameters, each tensor once (``parameters()`` de-duplicates tied tensors)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# ---------------------------------------------------------------------------------------------
# Mapping the tree onto parameter names
# ---------------------------------------------------------------------------------------------

def patterns(root: Part, names: Collection[str] = ()) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Parameter-name regexes per node, and the one regex of each leaf that has a path.

    Only nodes that reach a module are listed: a node with a path, or a group whose descendants have
    one. A node with a path covers that module (or parameter); a group without one covers what its
    children cover. A repeated node with a path is a ModuleList: ``layer`` covers ``layer\\.\\d+``, or,
    if it selects its copies (:attr:`Part.copies`), the numbers of the copies that the parameter
    ``names`` show to have (or to lack) the selected path.
    """
    nodes: dict[str, list[str]] = {}
    leaves: dict[str, str] = {}

    def visit(part: Part, qualified: str, module: str) -> list[str]:
        if part.path is not None:
            module = f"{module}\\.{re.escape(part.path)}" if module else re.escape(part.path)
            if part.copies:
                module += _selected(module, part.copies, names)
            elif part.repeat != 1:
                module += r"\.\d+"
        else:
            # Without a module of its own the copies of a repeated node cannot be told apart.
            assert part.repeat == 1, f"{qualified}: repeated but has no module path"
        covered = [p for c in part.children for p in visit(c, f"{qualified}.{c.name}", module)]
        if part.path is not None:
            covered = [module]
            if part.expr is not None:
                leaves[qualified] = module
        if covered:
            nodes[qualified] = covered
        return covered

    visit(root, root.name, "")
    return nodes, leaves


def _selected(module: str, copies: str, names: Collection[str]) -> str:
    """The regex of the copies of ``module`` (a ModuleList) that have ``copies``, or lack it after "!"."""
    wanted = copies.removeprefix("!")
    every = {m[1] for name in names if (m := re.match(rf"{module}\.(\d+)\.", name))}
    having = {m[1] for name in names if (m := re.match(rf"{module}\.(\d+)\.{re.escape(wanted)}(\.|$)", name))}
    chosen = sorted(every - having if copies.startswith("!") else having, key=int)
    return rf"\.(?:{'|'.join(chosen)})" if chosen else r"\.(?!)"  # (?!) matches nothing: no such copy


def matches(pattern: str, name: str) -> bool:
    """``name`` is the parameter ``pattern`` names, or a parameter inside that module."""
    return re.fullmatch(rf"{pattern}(\..+)?", name) is not None


# Leaves that the derivation keeps outside the module transformers stores them in: T5 keeps a stack's
# relative position bias in the first block's attention, and the derivation counts it once per stack,
# beside the repeated block, not in every copy of it.
HOISTED = {"relative_bias"}


def reference_counts(root: Part, model: torch.nn.Module) -> dict[str, int]:
    """Per node of ``root`` (see :func:`patterns`), the parameters of ``model`` it covers.

    Asserts first that each named parameter falls under exactly one leaf: none missed by the
    derivation, none counted twice. A node covers the parameters inside its modules; of those, only a
    :data:`HOISTED` leaf's may belong to a leaf elsewhere in the tree (they are counted there).
    """
    # Tied tensors once, under the name met first; frozen ones (Marian's sinusoidal tables, which it
    # registers as parameters with requires_grad off) are not learned, so no derivation counts them.
    named = {name: p for name, p in model.named_parameters() if p.requires_grad}
    nodes, leaves = patterns(root, named)
    owner: dict[str, str] = {}
    for name in named:
        owners = [q for q, pattern in leaves.items() if matches(pattern, name)]
        assert len(owners) == 1, f"{name} is covered by {len(owners)} leaves: {owners}"
        owner[name] = owners[0]
    counts: dict[str, int] = {}
    for q, pats in nodes.items():
        inside = [name for name in named if any(matches(pat, name) for pat in pats)]
        foreign = {owner[name] for name in inside if not _below(owner[name], q)}
        assert all(leaf.rsplit(".", 1)[-1] in HOISTED for leaf in foreign), f"{q} holds parameters of {foreign}"
        counts[q] = sum(named[name].numel() for name in inside if _below(owner[name], q))
    return counts


def _below(qualified: str, node: str) -> bool:
    """``qualified`` is ``node`` or a part inside it (dotted names of the tree)."""
    return qualified == node or qualified.startswith(node + ".")


def compare(part: Part, values: Mapping[sympy.Symbol, int], model: torch.nn.Module) -> None:
    """The derivation equals the model: in total, and at every node that reaches a module."""
    assert part.count(values) == total(model)
    derived, measured = derived_counts(part, values), reference_counts(part, model)
    assert derived.keys() == measured.keys()
    mismatched = {q: (derived[q], measured[q]) for q in derived if derived[q] != measured[q]}
    assert not mismatched, f"node: (derivation, transformers) {mismatched}"


def check(architecture: str, config: Mapping) -> None:
    """The derivation equals transformers for ``architecture`` built from the config.json dict ``config``,
    in total and node by node; the derivation is reached through ``derivations.configs.resolve``,
    config reading, layout and class selection included."""
    from derivations import configs

    resolved = configs.resolve(config, architecture)
    compare(resolved.part, resolved.values, build(architecture, config))


def derived_counts(root: Part, values: Mapping[sympy.Symbol, int]) -> dict[str, int]:
    """Per node that :func:`patterns` lists, the derivation's count: all copies of all enclosing parts."""
    nodes, _ = patterns(root)
    return {q: evaluate(multiplier * part.total, values)
            for q, part, multiplier in root.walk() if q in nodes}
