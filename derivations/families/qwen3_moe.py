"""Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B), laid out as transformers' ``Qwen3MoeModel``.

Qwen3's attention (``derivations.qwen3``: no biases, an RMSNorm on each head's queries and keys, a head size of
its own) and Qwen2-MoE's layers (``derivations.qwen2_moe``: a router and ``X`` routed experts of inner size
``F_e``, stacked), without a shared expert. ``decoder_sparse_step`` and ``mlp_only_layers`` decide which layers
keep a dense feed-forward of width ``F`` (none in the releases: every layer holds experts).

Active per token (:data:`ACTIVE`), as on the Mixtral page: the ``X_a`` routed experts, the router, everything
else whole, the input embedding included.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import llama, qwen2_moe, qwen3
from .. import transient as tr
from ..claims import Rounded
from ..components import Part, group, leaf
from ..readers import qwen3_moe as reader
from ..sources import Citation
from ..symbols import D, F_e, H, K, L, L_f, V, X, X_a, d_h


# $$N_\mathrm{moe} = D X + X \cdot 3 D F_e$$
def sparse_moe(stored: sympy.Expr = X) -> Part:
    """Qwen3MoeSparseMoeBlock (``mlp``): the router and the routed experts, ``stored`` of them counted."""
    return group("moe", "sparse mixture of experts", qwen2_moe.router, qwen2_moe.routed_experts(stored), path="mlp",
                 kind="feed-forward", symbol=r"N_{\mathrm{moe}}")


moe = sparse_moe()
attention_block = qwen3.self_attention()
dense_layer, layer = qwen2_moe.layers(attention_block, moe)
expert = qwen2_moe.expert


def architectures(attention_bias: bool = False, tied: bool = False, no_token_bias: bool = False,
                  stored: sympy.Expr = X) -> dict[str, Part]:
    return qwen2_moe.classes("Qwen3Moe", qwen3.self_attention(attention_bias), sparse_moe(stored), tied=tied,
                             no_token_bias=no_token_bias, suffix="" if stored == X else ": active per token",
                             qa_prefix="transformer")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(
    lambda **layout: qwen2_moe.active(lambda stored: architectures(stored=stored, **layout)))
ACTIVE = ACTIVE_VARIANTS[""]


idle_experts = replace(leaf("idle_experts", "the experts a token does not use, in every layer with experts",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["Qwen3MoeForCausalLM"].total - ACTIVE["Qwen3MoeForCausalLM"].total
                    - idle_experts.total) == 0
active_without_embedding = leaf("active_without_embedding", "active per token, without the input embedding",
                                ACTIVE["Qwen3MoeForCausalLM"].total - V * D)
# The model cards' "non-embedding" count: without the token embeddings and the (untied) head.
non_embedding = leaf("non_embedding", "everything but the token embeddings and the head",
                     ARCHITECTURES["Qwen3MoeForCausalLM"].total - 2 * V * D)




# The model cards: "Number of Parameters: 30.5B in total and 3.3B activated", "Number of Paramaters
# (Non-Embedding): 29.9B"; "235B in total and 22B activated", "234B".
_ACTIVE = (ACTIVE["Qwen3MoeForCausalLM"], active_without_embedding)


def _card(name: str, checkpoint: str, what: str, printed: str, candidates: tuple[Part, ...], line: str) -> Rounded:
    whole, _, decimals = printed.removesuffix("B").partition(".")
    precision = 10 ** (9 - len(decimals))
    return Rounded(name, int(whole + decimals) * precision, what, Citation("hub-qwen", f"{what.split(',')[0]} model "
                                                                                      f"card, {line}"),
                   checkpoint, candidates, precision=precision, printed=printed)


_TOTAL, _NON = "“Number of Parameters”", "“Number of Parameters (Non-Embedding)”"
_CAUSAL = ARCHITECTURES["Qwen3MoeForCausalLM"]
CARDS = (
    _card("a3b_total", "qwen3-30b-a3b", "Qwen3-30B-A3B, total", "30.5B", (_CAUSAL,), _TOTAL),
    _card("a3b_non_embedding", "qwen3-30b-a3b", "Qwen3-30B-A3B, non-embedding", "29.9B", (non_embedding,), _NON),
    _card("a22b_total", "qwen3-235b-a22b", "Qwen3-235B-A22B, total", "235B", (_CAUSAL,), _TOTAL),
    _card("a22b_non_embedding", "qwen3-235b-a22b", "Qwen3-235B-A22B, non-embedding", "234B", (non_embedding,), _NON),
)
CARDS_ACTIVE = (
    _card("a3b_active", "qwen3-30b-a3b", "Qwen3-30B-A3B, activated", "3.3B", _ACTIVE, _TOTAL),
    _card("a22b_active", "qwen3-235b-a22b", "Qwen3-235B-A22B, activated", "22B", _ACTIVE, _TOTAL),
)


# The forward at inference (derivations.transient): Qwen3's attention (an RMSNorm on each query and key head), one
# mask (a sliding-window one where use_sliding_window sets a window on every layer, as Mistral's), and Qwen2-MoE's
# block without its shared expert, the routed experts at the routing that holds the most.
def transient(routing: tr.Routing = tr.WORST) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived (derivations.llama.transient), the experts at ``routing``."""
    kin = llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t, sliding),),
                    attention=partial(llama.attention_forward, qk_norm=True),
                    mlp=partial(qwen2_moe.moe_forward, routing=routing, shared=False))
    return llama.transient("Qwen3Moe", kin, layouts=VARIANTS, windowed=True, bound=tr.ROUTED_BOUND,
                           **qwen2_moe.EVERY_LAYER_SPARSE)


TRANSIENT = transient()


FAMILY = Family(
    name="qwen3_moe",
    reader=reader.READER,
    variants=VARIANTS,
    base="Qwen3MoeModel",
    # config.json of Qwen/Qwen3-30B-A3B and Qwen/Qwen3-235B-A22B on the Hugging Face hub [cite: hub-qwen]: the fields
    # that set the count, with model_type, architectures and the context length.
    checkpoints=("qwen3-30b-a3b", "qwen3-235b-a22b"),
    first_published="2025-05",
    kind="decoder",
    maker="Alibaba",
    headlines=(
        Headline("Qwen3MoeForCausalLM", "qwen3-235b-a22b", "235B-A22B, in total"),
        Headline(
            "ACTIVE.Qwen3MoeForCausalLM",
            "qwen3-235b-a22b",
            "235B-A22B, per token",
            convention="Active per token: in each layer the experts the router picks (num_experts_per_tok of them), "
            "the router and every tensor outside the experts whole, the input embedding included (as on "
            "the Mixtral page).",
        ),
    ),
    example="qwen3-30b-a3b",
    table_symbols=(L, D, H, K, d_h, F_e, X, X_a, V),
    table_columns={
        "Qwen3MoeForCausalLM": "Qwen3MoeForCausalLM",
        "ACTIVE.Qwen3MoeForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
    },
    rounded=CARDS + CARDS_ACTIVE,
    minimum=qwen2_moe.FAMILY.minimum,
    active=ACTIVE_VARIANTS,
    transient=TRANSIENT,
)
