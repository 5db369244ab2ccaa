"""Qwen2-MoE (Qwen1.5-MoE-A2.7B, Qwen2-57B-A14B), laid out as transformers' ``Qwen2MoeModel``.

Qwen2's decoder (``derivations.qwen2``: biases on q, k and v) in which the feed-forward of a layer is a
mixture of experts: a router (``D`` to ``X`` logits, no bias), ``X`` routed experts of inner size ``F_e``
of which each token uses ``X_a``, and one **shared expert** of inner size ``F_s`` that every token uses,
behind a gate of its own (``shared_expert_gate``: ``D`` to one logit, through a sigmoid). Which layers hold
experts is the config's: layer ``i`` does unless it is in ``mlp_only_layers`` or ``i + 1`` is not a multiple of
``decoder_sparse_step``; the other ``L_f`` keep a dense feed-forward of width ``F`` (none in the releases).
Qwen3-MoE (``derivations.qwen3_moe``) builds on the same blocks.

Active per token (:data:`ACTIVE`), as on the Mixtral page: the ``X_a`` routed experts, the shared expert, the
router and the gates, everything else whole, the input embedding included.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import (AttentionLayout, Part, attention, column_parallel, feed_forward, group, leaf, linear,
                          row_parallel, task_heads, score)
from ..readers import qwen2_moe as reader
from ..sources import Citation
from ..symbols import C, D, F_e, F_s, H, K, L, L_f, V, X, X_a, b, d_h, f_a, s, u
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# The blocks (Qwen3-MoE reuses them)
# ---------------------------------------------------------------------------------------------


def routed_experts(stored: sympy.Expr = X) -> Part:
    """The routed experts as transformers 5.x stores them (``experts``): every expert's gate and up projections in
    one X-by-2F_e-by-D tensor, the down projections in one X-by-D-by-F_e tensor; ``stored`` experts counted."""
    which = "every routed expert's" if stored == X else "the X_a routed experts' (the ones the router picks)"
    return group("experts", f"routed experts: {which} gated feed-forward, stacked",
                 # Tensor parallelism cuts each expert's inner width F_e.
                 column_parallel(leaf("gate_up", f"gate and up projections, {which} (one 3-D tensor)",
                                      stored * 2 * D * F_e, "gate_up_proj", matrix=X_a * 2 * D * F_e,
                                      shape=(stored, 2, D, F_e)), "inner", F_e),
                 row_parallel(leaf("down", f"down projections, {which} (one 3-D tensor)", stored * F_e * D, "down_proj",
                                   matrix=X_a * F_e * D, shape=(stored, 1, F_e, D)), "inner", F_e),
                 path="experts")


router = linear("router", "router: one logit per routed expert, no bias", D, X, False, "gate")
# One routed expert: a gated feed-forward of inner size F_e, no biases: 3 D F_e.
expert = feed_forward(D, F_e, bias=False, gate="gate_proj", up="up_proj", down="down_proj", name="expert",
                      label="one routed expert: a gated feed-forward, no biases")

# $$N_\mathrm{moe} = D X + X \cdot 3 D F_e + 3 D F_s + D$$
shared_expert = feed_forward(D, F_s, bias=False, gate="gate_proj", up="up_proj", down="down_proj",
                             name="shared_expert", path="shared_expert",
                             label="shared expert: a gated feed-forward every token uses")
shared_expert_gate = linear("shared_expert_gate", "the shared expert's gate: one logit, through a sigmoid", D, 1,
                            False, "shared_expert_gate")


def sparse_moe(stored: sympy.Expr = X) -> Part:
    """Qwen2MoeSparseMoeBlock (``mlp``)."""
    return group("moe", "mixture of experts with a shared expert", router, routed_experts(stored), shared_expert,
                 shared_expert_gate, path="mlp", kind="feed-forward", symbol=r"N_{\mathrm{moe}}")


dense_feed_forward = llama.gated_feed_forward()  # Qwen2MoeMLP of width F, in the layers without experts

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")


def self_attention(qkv_bias: bool = True) -> Part:
    """Qwen2MoeAttention: Qwen2's (biases on q, k and v, unless qkv_bias is false; none on o)."""
    return attention(D, H, d_h, K, bias=qkv_bias, output_bias=False, layout=_PROJECTIONS, path="self_attn",
                     label="grouped-query self-attention" + (", biases on q, k and v" if qkv_bias else ""), causal=True)


def layers(attention_part: Part, moe: Part) -> tuple[Part, Part]:
    """The two kinds of decoder layer in one module list: the L_f dense ones and the L - L_f that hold experts,
    each selecting its copies by the experts it has (or lacks)."""
    dense = llama.decoder_layer(attention=attention_part, mlp=dense_feed_forward)
    sparse = llama.decoder_layer(attention=attention_part, mlp=moe, mlp_label="the experts")
    return (replace(dense, name="dense_layer", label="decoder layer with a dense feed-forward", repeat=L_f,
                    copies="!mlp.experts", symbol=r"N_{\mathrm{dense}}"),
            replace(sparse, name="layer", label="decoder layer with experts", repeat=L - L_f, copies="mlp.experts"))


def classes(prefix: str, attention_part: Part, moe: Part, *, tied: bool, no_token_bias: bool,
            suffix: str = "", qa_prefix: str = "model") -> dict[str, Part]:
    """A Qwen mixture's classes: the body, the causal LM and the three task classes (Qwen3-MoE's span head keeps its
    body under ``transformer``, as LLaMA's does; Qwen2-MoE's under ``model``)."""
    body = f"{prefix}Model"
    dense, sparse = layers(attention_part, moe)
    model = group(body, f"{body}: embeddings, layers, final RMSNorm{suffix}", llama.token_embeddings, dense, sparse,
                  llama.final_norm, symbol=rf"N_{{\mathrm{{{body}}}}}")
    out = {body: model}

    def wrapped(name: str, label: str, head: Part, path: str = "model") -> Part:
        return group(name, label + suffix, replace(model, path=path), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    out[f"{prefix}ForCausalLM"] = wrapped(f"{prefix}ForCausalLM", "with the language-model head", llama.lm_head(tied))
    for name, (label, head) in task_heads(prefix, score(D, C, not no_token_bias)).items():
        out[name] = wrapped(name, label, head, qa_prefix if name.endswith("QuestionAnswering") else "model")
    return out


def active(classes_of_stored) -> dict[str, Part]:
    """The classes with only the X_a routed experts counted, under a symbol of their own."""
    return {name: replace(part, symbol=rf"N_{{\mathrm{{{name}}}}}^{{\mathrm{{active}}}}")
            for name, part in classes_of_stored(X_a).items()}


# ---------------------------------------------------------------------------------------------
# Qwen2-MoE's classes
# $$N_\mathrm{layer} = 2D + N_\mathrm{attn} + N_\mathrm{moe}$$
# ---------------------------------------------------------------------------------------------

moe = sparse_moe()
attention_block = self_attention()
dense_layer, layer = layers(attention_block, moe)


def architectures(no_qkv_bias: bool = False, tied: bool = False, no_token_bias: bool = False,
                  stored: sympy.Expr = X) -> dict[str, Part]:
    return classes("Qwen2Moe", self_attention(not no_qkv_bias), sparse_moe(stored), tied=tied,
                   no_token_bias=no_token_bias, suffix="" if stored == X else ": active per token")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(
    lambda **layout: active(lambda stored: architectures(stored=stored, **layout)))
ACTIVE = ACTIVE_VARIANTS[""]


idle_experts = replace(leaf("idle_experts", "the routed experts a token does not use, in every layer with experts",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["Qwen2MoeForCausalLM"].total - ACTIVE["Qwen2MoeForCausalLM"].total
                    - idle_experts.total) == 0

# The other convention: the input embedding left out (a token reads one row of it).
active_without_embedding = leaf("active_without_embedding", "active per token, without the input embedding",
                                ACTIVE["Qwen2MoeForCausalLM"].total - V * D)
# The "non-embedding" count of the Qwen2 release post: without the embeddings and the (untied) head.
non_embedding = leaf("non_embedding", "everything but the token embeddings and the head",
                     ARCHITECTURES["Qwen2MoeForCausalLM"].total - 2 * V * D)
# The Qwen1.5-MoE post's "activated non-embedding" count: the active parameters without the embeddings and the head.
active_non_embedding = leaf("active_non_embedding", "active per token, without the token embeddings and the head",
                            ACTIVE["Qwen2MoeForCausalLM"].total - 2 * V * D)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_BLOG_15 = Citation("qwen15-moe-blog", "its table of sizes, “#Parameters” 14.3 and “#(Activated) Parameters” 2.7; "
                                      "the model card says the same: “14.3B parameters in total and 2.7B activated "
                                      "parameters during runtime”")
_BLOG_15_NON_EMBEDDING = Citation("qwen15-moe-blog", "“Qwen1.5-MoE-A2.7B contains only 2.0 billion non-embedding "
                                                     "parameters”, and its table's “#(Activated) Non-embedding "
                                                     "parameters”")
_BLOG_2 = Citation("qwen2-blog", "table of sizes, Qwen2-57B-A14B, “Params” and “Non-Emb Params”")
_ACTIVE = (ACTIVE["Qwen2MoeForCausalLM"], active_without_embedding)
TOTALS = (
    Rounded("a2_7b_total", 14_300_000_000, "Qwen1.5-MoE-A2.7B, total", _BLOG_15, "qwen1.5-moe-a2.7b",
            (ARCHITECTURES["Qwen2MoeForCausalLM"],), precision=10**8, printed="14.3B"),
    Rounded("a2_7b_active_non_embedding", 2_000_000_000, "Qwen1.5-MoE-A2.7B, activated non-embedding",
            _BLOG_15_NON_EMBEDDING, "qwen1.5-moe-a2.7b", (active_non_embedding,), precision=10**8, printed="2.0B"),
    Rounded("a14b_total", 57_410_000_000, "Qwen2-57B-A14B, total", _BLOG_2, "qwen2-57b-a14b",
            (ARCHITECTURES["Qwen2MoeForCausalLM"],), precision=10**7, printed="57.41B"),
    Rounded("a14b_non_embedding", 56_320_000_000, "Qwen2-57B-A14B, non-embedding", _BLOG_2, "qwen2-57b-a14b",
            (non_embedding,), precision=10**7, printed="56.32B"),
)
ACTIVE_CLAIMS = (
    Rounded("a2_7b_active", 2_700_000_000, "Qwen1.5-MoE-A2.7B, activated", _BLOG_15, "qwen1.5-moe-a2.7b", _ACTIVE,
            precision=10**8, printed="2.7B"),
    Rounded("a14b_active", 14_000_000_000, "Qwen2-57B-A14B, “A14B”", Citation("hub-qwen", "the name, Qwen2-57B-A14B"),
            "qwen2-57b-a14b", _ACTIVE, precision=10**9, printed="14B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): Qwen2's, each feed-forward a mixture of experts with a shared
# expert, the routed experts' tensors at the routing that holds the most (derivations.transient.WORST)
# ---------------------------------------------------------------------------------------------

def router_forward(t: tr.Timeline) -> tuple[str, ...]:
    """Qwen2MoeTopKRouter.forward on the rows (Qwen3-MoE's is the same): the logits (X a row), their softmax in fp32
    (an fp32 copy below fp32, dying once read), ``topk`` (fp32 values, 64-bit indices), the values divided in place
    by their sum where norm_topk_prob (f_a: a temporary of one fp32 a row), then cast to the logits' dtype (below
    fp32 a copy, the fp32 values dying as the name is bound again; in fp32 the values themselves). Returns what the
    block keeps (``_, routing_weights, selected_experts = self.gate(...)``)."""
    rows = b * s
    t.new("router_logits", tr.activation(rows * X))
    t.new("router.upcast", tr.upcast(rows * X))
    t.new("router.probs", tr.FP32 * rows * X)
    t.drop("router.upcast")
    t.new("router.top", tr.FP32 * rows * X_a)
    t.new("top_k_index", tr.INT64 * rows * X_a)
    t.new("router.sum", f_a * tr.FP32 * rows)
    t.drop("router.sum")
    t.split("router.top", **{"router.top.below_fp32": u, "top_k_weights.fp32": 1 - u})
    t.new("top_k_weights.cast", tr.downcast(rows * X_a))
    t.drop("router.top.below_fp32")
    t.join("top_k_weights", "top_k_weights.cast", "top_k_weights.fp32")
    t.drop("router.probs")  # the function returns
    return "router_logits", "top_k_weights", "top_k_index"


def moe_forward(t: tr.Timeline, x: str, routing: tr.Routing = tr.WORST, shared: bool = True) -> str:
    """Qwen2MoeSparseMoeBlock.forward on the normed ``x`` (views of it): the shared expert first (LLaMA's gated
    feed-forward, F_s wide), the router, the routed experts' loop over X + 1 classes (each F_e wide, the router's
    weights in the activation dtype), then ``sigmoid(shared_expert_gate(x)) * shared_expert_output`` (one logit a
    row) and the sum of the two; the router's tensors and the gated shared output die when the block returns.
    ``shared`` False: Qwen3-MoE's block, the routed experts alone."""
    rows = b * s
    if shared:
        shared_out = llama.gated_mlp_forward(t, x, width=F_s)
    kept = router_forward(t)
    out = tr.experts_loop(t, routing, X + 1, D, tr.gated_experts(F_e, fp32_weights=False))
    if not shared:
        t.drop(*kept)
        return out
    t.new("shared_gate", tr.activation(rows))
    t.new("shared_gate.sigmoid", tr.activation(rows))
    t.drop("shared_gate")
    t.new("shared_gated", tr.activation(rows * D))
    t.drop("shared_gate.sigmoid", shared_out)  # shared_expert_output bound again
    t.new("moe_out", tr.activation(rows * D))
    t.drop(out)  # expert_output bound again
    t.drop("shared_gated", *kept)  # the function returns
    return "moe_out"


def masks(t: tr.Timeline, sliding: bool) -> tuple[str, ...]:
    """Qwen2MoeModel.forward's masks: the causal one and a sliding-window one, always (Qwen2MoeConfig sets a window
    of 0 where use_sliding_window is false, and the model builds the mask of the sliding layers even where none
    slides)."""
    return tr.causal_mask(t), tr.causal_mask(t, True, "sliding_mask")


# What the program assumes: every layer holds experts (the releases' layout; the dense layers' places, which
# mlp_only_layers and decoder_sparse_step set, are not derived), and norm_topk_prob read as f_a.
EVERY_LAYER_SPARSE = dict(requires=(("mlp_only_layers", [], ([], None)), ("decoder_sparse_step", 1, (1,))),
                          at_least=(("X", 1),), flags=(("f_a", "norm_topk_prob", False, True),))


def transient(routing: tr.Routing = tr.WORST) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived (derivations.llama.transient), the experts at ``routing``."""
    return llama.transient("Qwen2Moe", llama.Kin(masks=masks, mlp=partial(moe_forward, routing=routing)),
                           layouts=VARIANTS, windowed=True, bound=tr.ROUTED_BOUND, **EVERY_LAYER_SPARSE)


TRANSIENT = transient()


FAMILY = Family(
    name="qwen2_moe",
    reader=reader.READER,
    variants=VARIANTS,
    base="Qwen2MoeModel",
    # config.json of Qwen/Qwen1.5-MoE-A2.7B and Qwen/Qwen2-57B-A14B on the Hugging Face hub [cite: hub-qwen]: the fields
    # that set the count (sizes, the experts' widths and numbers, decoder_sparse_step, vocabulary, tie_word_embeddings),
    # with model_type, architectures and the context length. Every layer holds experts in both (L_f = 0).
    checkpoints=("qwen1.5-moe-a2.7b", "qwen2-57b-a14b"),
    first_published="2024-07",
    kind="decoder",
    maker="Alibaba",
    headlines=(
        Headline("Qwen2MoeForCausalLM", "qwen2-57b-a14b", "Qwen2-57B-A14B, in total"),
        Headline(
            "ACTIVE.Qwen2MoeForCausalLM",
            "qwen2-57b-a14b",
            "Qwen2-57B-A14B, per token",
            convention="Active per token: in each layer the routed experts the router picks (num_experts_per_tok), "
            "the shared expert, the router and the gates, and every tensor outside the experts whole, the "
            "input embedding included (as on the Mixtral page).",
        ),
    ),
    example="qwen2-57b-a14b",
    table_symbols=(L, D, H, K, F_e, F_s, X, X_a, V),
    table_columns={
        "Qwen2MoeForCausalLM": "Qwen2MoeForCausalLM",
        "ACTIVE.Qwen2MoeForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
    },
    rounded=TOTALS + ACTIVE_CLAIMS,
    minimum={X_a: 0, L_f: 0},
    active=ACTIVE_VARIANTS,
    transient=TRANSIENT,
)
