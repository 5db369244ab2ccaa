"""The peak of live tensor bytes while transformers runs a mixture of experts at a routing the test chooses: what
the derived bound over routings (derivations.transient.WORST) is checked against. A helper for the tests, not a
test module.

A mixture's experts hold the rows of the tokens routed to each, so the measure runs on data: the model is built on
the CPU with weights (small configs; eval mode, eager attention and the experts' eager loop,
``experts_implementation="eager"``), and every router's picks are replaced in place by the routing the test gives
(a forward hook copies it into the router's top-k indices: ``copy_`` makes no tensor, and the routing is made
before the measure starts, so neither is counted). The rest is tests/live_bytes.py's measure.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence

import live_bytes  # skips the importing test module without torch/transformers (fails under CI)
import reference

torch = reference.torch
transformers = reference.transformers


@functools.cache
def _model(architecture: str, config_json: str, dtype: str) -> torch.nn.Module:
    hf_config = transformers.AutoConfig.for_model(**json.loads(config_json))
    hf_config._attn_implementation = "eager"
    hf_config._experts_implementation = "eager"
    class_name, kwargs = reference.VARIANTS.get(architecture, (architecture, {}))
    torch.manual_seed(0)
    with torch.device("cpu"):
        model = getattr(transformers, class_name)._from_config(hf_config, dtype=live_bytes.DTYPES[dtype], **kwargs)
    return model.eval()


def build(architecture: str, config: Mapping, dtype: str) -> torch.nn.Module:
    """``architecture`` from a config.json dict on the CPU with weights, in ``dtype``; built once per (class, config,
    dtype)."""
    config = {k: v for k, v in config.items() if k not in ("torch_dtype", "dtype")}
    return _model(architecture, json.dumps(config, sort_keys=True), dtype)


def routers(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The model's routers, layer by layer: the modules that return (logits, weights, top-k indices)."""
    return [m for m in model.modules() if type(m).__name__.lower().endswith("topkrouter")]


def layers_routed(architecture: str, config: Mapping, dtype: str) -> int:
    """How many routers the model has: its layers with experts."""
    return len(routers(build(architecture, config, dtype)))


def measured(architecture: str, config: Mapping, dtype: str, tokens: int, batch: int, generate: bool,
             routing: Sequence[Sequence[Sequence[int]]]) -> int:
    """The peak of live tensor bytes in one forward of ``batch`` sequences of ``tokens`` tokens (live_bytes.measured's
    inputs and forwards), the routers' picks replaced: ``routing[layer][row]`` the experts of row ``row`` (batch-major,
    ``batch * tokens`` rows) in the ``layer``-th router."""
    import inspect

    model = build(architecture, config, dtype)
    hooked = routers(model)
    assert len(hooked) == len(routing), (len(hooked), len(routing))
    forced = [torch.tensor(picks, dtype=torch.long) for picks in routing]

    def hook(index: int):
        def replace(module, args, out) -> None:
            out[2].copy_(forced[index])  # in place: the router's own indices, the test's routing
        return replace

    handles = [router.register_forward_hook(hook(i)) for i, router in enumerate(hooked)]
    try:
        ids = torch.zeros((batch, tokens), dtype=torch.long)
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "use_cache": generate}
        if generate:
            assert "logits_to_keep" in inspect.signature(model.forward).parameters
            inputs["logits_to_keep"] = 1
        with torch.no_grad(), live_bytes.LiveBytes(ids.device) as live:
            out = model(**inputs)
            excluded = live.serials(live_bytes.cache_tensors(getattr(out, "past_key_values", None)))
    finally:
        for handle in handles:
            handle.remove()
    return live.peak(excluded)


def same_experts(rows: int, picked: int) -> list[list[int]]:
    """Every row routed to experts 0 .. picked - 1."""
    return [list(range(picked)) for _ in range(rows)]


def worst(rows: int, picked: int, experts: int) -> list[list[int]]:
    """Every row routed to experts 0 and 1, each row's other picks to experts no row before it picked, in turn, until
    every one of ``experts`` is hit (then again from expert 2): the routing derivations.transient.WORST describes
    (``experts``: those a token may be routed to, the first group's where the router keeps a token in one group)."""
    if picked < 2:
        return same_experts(rows, picked)
    others = experts - 2
    return [[0, 1] + [2 + (row * (picked - 2) + j) % others for j in range(picked - 2)] for row in range(rows)]


def counts(routing_layer: Sequence[Sequence[int]]) -> tuple[list[int], int]:
    """The rows each hit expert gets, in the order the loop runs them (by index), and the experts hit."""
    hit: dict[int, int] = {}
    for row in routing_layer:
        for expert in row:
            hit[expert] = hit.get(expert, 0) + 1
    ordered = [hit[e] for e in sorted(hit)]
    return ordered, len(ordered)
