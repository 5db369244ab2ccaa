"""DeepSeek-V2 (DeepSeek-AI 2024), laid out as transformers' ``DeepseekV2Model``.

A decoder of pre-norm RMSNorm layers whose attention is **multi-head latent attention** (MLA) and whose
feed-forward, after the first ``L_f`` dense layers, is a mixture of experts with shared experts:

- MLA compresses: the keys and values of all heads come from one latent of rank ``R_kv`` per token
  (``kv_a_proj_with_mqa`` makes it, with a rotary key of ``d_r`` shared by every head; ``kv_a_layernorm``
  normalizes it; ``kv_b_proj`` expands it to each head's key part of ``d_n`` and value of ``d_v``), and the
  queries from a latent of rank ``R_q`` (``q_a_proj``, ``q_a_layernorm``, ``q_b_proj``), or straight from the
  hidden state where ``q_lora_rank`` is null (V2-Lite: ``q_proj``). Each query and key head has ``d_n + d_r``
  coordinates, each value head ``d_v``; ``o_proj`` maps ``H d_v`` back to ``D``.
- The mixture: a router (``D`` to ``X``, no bias), ``X`` routed experts of width ``F_e`` of which each token uses
  ``X_a``, stacked as transformers stores them, and ``X_s`` shared experts that every token uses, held as one
  gated feed-forward of width ``X_s F_e`` (``shared_experts``).

DeepSeek-V3 (``derivations.deepseek_v3``) builds on these blocks.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import (Part, attention_products, column_parallel, feed_forward, group, leaf, linear, rms_norm,
                          row_parallel, score, task_heads)
from ..readers import deepseek_v2 as reader
from ..sources import Citation
from ..symbols import (C, D, F, F_e, G_k, G_x, H, L, L_f, R_kv, R_q, V, X, X_a, X_s, b, c_g, d_n, d_r, d_v, f_a, f_b,
                       l_d2, l_e2, l_fd, s, u, x_g, x_h)
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# Multi-head latent attention
# With q_lora_rank:  $$N_\mathrm{attn} = D R_q + R_q + R_q H (d_n + d_r) + D (R_{kv} + d_r) + R_{kv}
#                                         + R_{kv} H (d_n + d_v) + H d_v D$$
# Without it, D H (d_n + d_r) for the queries instead of the first three terms.
# ---------------------------------------------------------------------------------------------


def latent_attention(compressed_queries: bool = True, bias: bool = False) -> Part:
    """DeepseekV2Attention (``self_attn``); ``bias`` (attention_bias) gives q_a_proj, kv_a_proj_with_mqa and o_proj a
    bias."""
    if compressed_queries:
        queries = (linear("query_down", "queries compressed: D to R_q (q_a_proj)", D, R_q, bias, "q_a_proj"),
                   rms_norm("query_norm", R_q, "q_a_layernorm", label="RMSNorm of the compressed queries"),
                   column_parallel(linear("query_up", "queries expanded: R_q to H (d_nope + d_rope) (q_b_proj)", R_q,
                                          H * (d_n + d_r), False, "q_b_proj"), "heads", H))
    else:
        queries = (column_parallel(linear("query", "queries: D to H (d_nope + d_rope) (q_proj)", D, H * (d_n + d_r),
                                          False, "q_proj"), "heads", H),)
    return group(
        "attention", "multi-head latent attention" + ("" if compressed_queries else ", queries not compressed"),
        *queries,
        linear("key_value_down", "the latent and the shared rotary key: D to R_kv + d_rope (kv_a_proj_with_mqa)", D,
               R_kv + d_r, bias, "kv_a_proj_with_mqa"),
        rms_norm("key_value_norm", R_kv, "kv_a_layernorm", label="RMSNorm of the latent"),
        # transformers caches the latent and expands every cached row again at each new token (expand_kv).
        # Tensor parallelism (as Megatron's multi-latent attention): the maps out of the latents and the output by
        # heads; the down-projections, their norms and the cache of the latent whole on every device.
        column_parallel(replace(linear("key_value_up", "keys and values expanded: R_kv to H (d_nope + d_v) (kv_b_proj)",
                                       R_kv, H * (d_n + d_v), False, "kv_b_proj"), expands_cache=True), "heads", H),
        row_parallel(linear("output", "output projection: H d_v to D", H * d_v, D, bias, "o_proj"), "heads", H),
        # Queries and keys of d_nope + d_rope a head, values of d_v: the products as the eager code runs them.
        path="self_attn", kind="attention", ops=attention_products(H, d_n + d_r, d_v, causal=True),
        # The cache keeps the normalized latent and the one rotary key all heads share, before kv_b_proj
        # expands them: R_kv + d_rope a token, where multi-head attention would keep H (d_nope + d_rope + d_v).
        cache=R_kv + d_r)


# ---------------------------------------------------------------------------------------------
# The feed-forwards: dense in the first L_f layers, a mixture of experts in the others
# $$N_\mathrm{moe} = D X + X \cdot 3 D F_e + 3 D X_s F_e$$
# ---------------------------------------------------------------------------------------------

# One routed expert: a gated feed-forward of width F_e, no biases.
expert = feed_forward(D, F_e, bias=False, gate="gate_proj", up="up_proj", down="down_proj", name="expert",
                      label="one routed expert: a gated feed-forward, no biases")


def dense_feed_forward(bias: bool = False) -> Part:
    """The dense layers' gated feed-forward of width F (mlp_bias: biases on its three maps)."""
    return feed_forward(D, F, bias=bias, gate="gate_proj", up="up_proj", down="down_proj", path="mlp",
                        label="gated (SwiGLU) feed-forward" + (" with biases" if bias else ""))


def mixture(stored: sympy.Expr = X, bias: bool = False, router_bias: Part | None = None) -> Part:
    """The mixture (``mlp``): the router, the routed experts (``stored`` of them counted), the shared experts."""
    which = "every routed expert's" if stored == X else "the X_a routed experts' (the ones the router picks)"
    router = linear("router", "router: one logit per routed expert, no bias", D, X, False, "weight")
    gate = group("router", "router", router, *((router_bias,) if router_bias else ()), path="gate")
    experts = group("experts", f"routed experts: {which} gated feed-forward, stacked",
                    # Tensor parallelism cuts each expert's inner width F_e.
                    column_parallel(leaf("gate_up", f"gate and up projections, {which} (one 3-D tensor)",
                                         stored * 2 * D * F_e, "gate_up_proj", matrix=X_a * 2 * D * F_e,
                                         shape=(stored, 2, D, F_e)), "inner", F_e),
                    row_parallel(leaf("down", f"down projections, {which} (one 3-D tensor)", stored * F_e * D,
                                      "down_proj", matrix=X_a * F_e * D, shape=(stored, 1, F_e, D)), "inner", F_e),
                    path="experts")
    shared = feed_forward(D, X_s * F_e, bias=bias, gate="gate_proj", up="up_proj", down="down_proj",
                          name="shared_experts", path="shared_experts",
                          label="shared experts: one gated feed-forward of width X_s F_e, every token")
    return group("moe", "mixture of experts with shared experts", gate, experts, shared, path="mlp",
                 kind="feed-forward", symbol=r"N_{\mathrm{moe}}")


def layers(attention: Part, dense: Part, moe: Part) -> tuple[Part, Part]:
    """The first L_f layers (dense) and the L - L_f others (experts), each selecting its copies."""
    dense_layer = llama.decoder_layer(attention=attention, mlp=dense)
    expert_layer = llama.decoder_layer(attention=attention, mlp=moe, mlp_label="the experts")
    return (replace(dense_layer, name="dense_layer", label="decoder layer with a dense feed-forward (the first L_f)",
                    repeat=L_f, copies="!mlp.experts", symbol=r"N_{\mathrm{dense}}"),
            replace(expert_layer, name="layer", label="decoder layer with experts", repeat=L - L_f,
                    copies="mlp.experts"))


def lm_head(tied: bool) -> Part:
    return llama.lm_head(tied)


def classes(prefix: str, attention: Part, dense: Part, moe: Part, *, tied: bool, tasks: dict[str, tuple[str, Part]],
            suffix: str = "") -> dict[str, Part]:
    """A DeepSeek family's classes: the body, the causal LM, and ``tasks`` (name: (label, head))."""
    body = f"{prefix}Model"
    dense_layer, expert_layer = layers(attention, dense, moe)
    model = group(body, f"{body}: embeddings, layers, final RMSNorm{suffix}", llama.token_embeddings, dense_layer,
                  expert_layer, llama.final_norm, symbol=rf"N_{{\mathrm{{{body}}}}}")
    out = {body: model}

    def wrapped(name: str, label: str, head: Part) -> Part:
        return group(name, label + suffix, replace(model, path="model"), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    out[f"{prefix}ForCausalLM"] = wrapped(f"{prefix}ForCausalLM", "with the language-model head", lm_head(tied))
    for name, (label, head) in tasks.items():
        out[name] = wrapped(name, label, head)
    return out


def with_active_symbols(parts: dict[str, Part]) -> dict[str, Part]:
    return {name: replace(part, symbol=rf"N_{{\mathrm{{{name}}}}}^{{\mathrm{{active}}}}") for name, part in parts.items()}


# ---------------------------------------------------------------------------------------------
# DeepSeek-V2's classes
# ---------------------------------------------------------------------------------------------

attention_block = latent_attention()
attention_uncompressed = latent_attention(compressed_queries=False)
moe = mixture()
dense_layer, layer = layers(attention_block, dense_feed_forward(), moe)


def architectures(no_q_lora: bool = False, attention_bias: bool = False, mlp_bias: bool = False, tied: bool = False,
                  stored: sympy.Expr = X) -> dict[str, Part]:
    """DeepseekV2Model, DeepseekV2ForCausalLM and DeepseekV2ForSequenceClassification (transformers defines no other
    task class for V2)."""
    tasks = {"DeepseekV2ForSequenceClassification": task_heads("DeepseekV2", score(D, C))[
        "DeepseekV2ForSequenceClassification"]}
    return classes("DeepseekV2", latent_attention(not no_q_lora, attention_bias), dense_feed_forward(mlp_bias),
                   mixture(stored, mlp_bias), tied=tied, tasks=tasks,
                   suffix="" if stored == X else ": active per token")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(lambda **layout: with_active_symbols(architectures(stored=X_a, **layout)))
ACTIVE = ACTIVE_VARIANTS[""]

DeepseekV2ForCausalLM_lite = VARIANTS["no_q_lora"]["DeepseekV2ForCausalLM"]
ACTIVE_lite = ACTIVE_VARIANTS["no_q_lora"]["DeepseekV2ForCausalLM"]

idle_experts = replace(leaf("idle_experts", "the routed experts a token does not use, in every expert layer",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["DeepseekV2ForCausalLM"].total - ACTIVE["DeepseekV2ForCausalLM"].total
                    - idle_experts.total) == 0
active_without_embedding = leaf("active_without_embedding", "active per token, without the input embedding",
                                ACTIVE["DeepseekV2ForCausalLM"].total - V * D)
active_without_embedding_lite = leaf("active_without_embedding_lite",
                                     "active per token, without the input embedding (queries not compressed)",
                                     ACTIVE_lite.total - V * D)

# What latent attention saves: the same heads as multi-head attention with keys and values of their own, for
# D d_h-sized queries, keys and values (d_h = d_nope + d_rope for queries and keys, d_v for values).
multi_head_equivalent = leaf("multi_head_equivalent", "multi-head attention with the same heads and head sizes",
                             D * H * (d_n + d_r) * 2 + D * H * d_v + H * d_v * D)


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: 236B and 21B (V2), 15.7B and 2.4B (V2-Lite)
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("deepseek2024v2", "abstract: “236B total parameters, of which 21B are activated for each token”")
_LITE = Citation("deepseek2024v2", "Appendix B: DeepSeek-V2-Lite “has 15.7B parameters in total, where 2.4B are "
                                   "activated for each token”")
TOTALS = (
    Rounded("v2_total", 236 * 10**9, "DeepSeek-V2, total", _PAPER, "deepseek-v2",
            (ARCHITECTURES["DeepseekV2ForCausalLM"],), precision=10**9, printed="236B"),
    Rounded("lite_total", 15_700_000_000, "DeepSeek-V2-Lite, total", _LITE, "deepseek-v2-lite",
            (DeepseekV2ForCausalLM_lite,), precision=10**8, printed="15.7B"),
)
ACTIVE_CLAIMS = (
    Rounded("v2_active", 21 * 10**9, "DeepSeek-V2, activated per token", _PAPER, "deepseek-v2",
            (ACTIVE["DeepseekV2ForCausalLM"], active_without_embedding), precision=10**9, printed="21B"),
    Rounded("lite_active", 2_400_000_000, "DeepSeek-V2-Lite, activated per token", _LITE, "deepseek-v2-lite",
            (ACTIVE_lite, active_without_embedding_lite), precision=10**8, printed="2.4B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_deepseek_v2.py, statement by statement;
# the first L_f layers dense, the others a mixture whose routed experts are at the routing that holds the most
# (derivations.transient.WORST)
# ---------------------------------------------------------------------------------------------

def rotary_complex(t: tr.Timeline) -> tuple[str, ...]:
    """DeepseekV2RotaryEmbedding.forward: the angles in fp32 (``position_ids[..., None].float() * inv_freq``, d_r / 2
    a position), ``torch.polar(torch.ones_like(freqs), freqs)`` (complex64: 8 bytes an angle) times
    attention_scaling (a new tensor), which the model holds for every layer."""
    angles = s * d_r / 2
    t.new("positions_f", tr.FP32 * s)
    t.new("freqs", tr.FP32 * angles)
    t.drop("positions_f")
    t.new("ones", tr.FP32 * angles)
    t.new("polar", COMPLEX64 * angles)
    t.drop("ones")
    t.new("freqs_cis", COMPLEX64 * angles)
    t.drop("polar", "freqs")  # freqs_cis bound again; the function returns
    return ("freqs_cis",)


# Bytes of one complex64 element: two fp32.
COMPLEX64 = 2 * tr.FP32


def rope_complex(t: tr.Timeline) -> tuple[str, str]:
    """apply_rotary_emb on the rotary parts of the queries (H d_r a row) and of the shared key (d_r a row): each
    ``.float()`` (a copy below fp32), viewed as complex, times freqs_cis (complex64: as many bytes as the fp32 rows),
    ``view_as_real(...).flatten(3).type_as(x)`` (below fp32 a copy, the product dying once read; in fp32 the product
    itself); the fp32 copies die when the function returns."""
    rows = b * s
    t.new("xq", tr.upcast(rows * H * d_r))
    t.new("xk", tr.upcast(rows * d_r))
    for name, n in (("q_rot", rows * H * d_r), ("k_rot", rows * d_r)):
        t.new(f"{name}.product", tr.FP32 * n)
        t.split(f"{name}.product", **{f"{name}.product.below_fp32": u, f"{name}.fp32": 1 - u})
        t.new(f"{name}.cast", tr.downcast(n))
        t.drop(f"{name}.product.below_fp32")
        t.join(name, f"{name}.cast", f"{name}.fp32")
    t.drop("xq", "xk")
    return "q_rot", "k_rot"


def latent_attention_forward(t: tr.Timeline, x: str, generate: bool, compressed: bool = True,
                             rope=rope_complex) -> tuple[str, tuple[str, str]]:
    """DeepseekV2Attention.forward on the normed ``x`` (DeepseekV3Attention's is the same but for ``rope``): the
    queries (``q_b_proj(q_a_layernorm(q_a_proj(x)))``, each inner result dying once read, or ``q_proj(x)`` where
    ``compressed`` is False: H (d_n + d_r) a row, split in views); ``kv_a_proj_with_mqa`` (R_kv + d_r a row, split
    in views) and ``kv_a_layernorm`` of the latent; ``rope`` on the rotary parts; with a cache (generate) the normed
    latent and the rotated key go into it; ``torch.cat((q_nope, q_pe))`` (the queries); expand_kv:
    ``kv_b_proj(latent)`` (H (d_n + d_v) a row; the values are a view of it) and the keys, ``new_empty`` filled in
    place (H (d_n + d_r) a row); eager attention (one key/value head a query head: no copies; values d_v wide);
    ``o_proj``. Returns the output and the attention weights, which the layer holds."""
    rows, width = b * s, d_n + d_r
    if compressed:
        tr.linear(t, "q_a", rows, R_q)
        tr.rms_norm(t, "q_a_norm", R_q)
        t.drop("q_a")
        tr.linear(t, "q", rows, H * width)
        t.drop("q_a_norm")
    else:
        tr.linear(t, "q", rows, H * width)
    tr.linear(t, "compressed_kv", rows, R_kv + d_r)
    tr.rms_norm(t, "latent", R_kv)
    q_rot, k_rot = rope(t)
    if generate:
        t.drop("latent", k_rot)  # past_key_values.update(...): the cache's tensors now
    t.new("query_states", tr.activation(rows * H * width))
    t.new("kv_expanded", tr.activation(rows * H * (d_n + d_v)))
    t.new("key_states", tr.activation(rows * H * width))
    context, weights = tr.eager_attention(t, "query_states", "key_states", "kv_expanded", "mask", H, d_v, 0)
    out = tr.linear(t, "o", rows, D)
    t.drop(*context)
    t.drop("q", q_rot, "compressed_kv", "query_states", "kv_expanded", "key_states",
           *(() if generate else ("latent", k_rot)))  # the function returns
    return out, weights


def router_forward(t: tr.Timeline) -> tuple[str, ...]:
    """DeepseekV2TopkRouter.forward: ``F.linear(x.type(fp32), weight.type(fp32))`` (the rows and the router's weight
    copied to fp32 below fp32, dying once read: the weight's copy is X D fp32), the softmax in fp32; where topk_method
    is group_limited_greedy (f_a), the groups' best scores (``max``: values and 64-bit indices, the indices dying at
    once), ``topk`` of the G_k groups (the values dying at once), a zero mask of the groups filled in place, expanded to
    the experts (a copy where c_g), and ``scores.masked_fill(~mask.bool(), 0)`` (two boolean masks, each dying once
    read; the softmax dies as the name is bound again); ``topk`` of the X_a experts (fp32 values, 64-bit indices); the
    values times routed_scaling_factor (the product kept, the values dying). The group tensors and the scores die when
    it returns."""
    rows, grouped = b * s, f_a
    t.new("router.rows_fp32", tr.upcast(rows * D))
    t.new("router.weight_fp32", tr.upcast(X * D))
    t.new("router_logits", tr.FP32 * rows * X)
    t.drop("router.rows_fp32", "router.weight_fp32")
    t.new("router.scores", tr.FP32 * rows * X)
    t.new("router.group_scores", grouped * tr.FP32 * rows * G_x)
    t.new("router.group_argmax", grouped * tr.INT64 * rows * G_x)
    t.drop("router.group_argmax")
    t.new("router.group_top", grouped * tr.FP32 * rows * G_k)
    t.new("router.group_idx", grouped * tr.INT64 * rows * G_k)
    t.drop("router.group_top")
    t.new("router.group_mask", grouped * tr.FP32 * rows * G_x)
    t.new("router.score_mask", grouped * c_g * tr.FP32 * rows * X)  # reshape: a copy, or a view (c_g)
    t.new("router.mask_bool", grouped * tr.BOOL * rows * X)
    t.new("router.mask_not", grouped * tr.BOOL * rows * X)
    t.drop("router.mask_bool")
    t.split("router.scores", **{"router.scores.grouped": grouped, "router.scores.greedy": 1 - grouped})
    t.new("router.masked", grouped * tr.FP32 * rows * X)
    t.drop("router.mask_not")
    t.drop("router.scores.grouped")  # scores bound again
    t.new("router.top", tr.FP32 * rows * X_a)
    t.new("top_k_index", tr.INT64 * rows * X_a)
    t.new("top_k_weights", tr.FP32 * rows * X_a)
    t.drop("router.top")  # topk_weights bound again
    t.drop("router.scores.greedy", "router.masked", "router.group_scores", "router.group_idx", "router.group_mask",
           "router.score_mask")  # the function returns
    return "router_logits", "top_k_weights", "top_k_index"


# Group-limited routing where it runs (V2: topk_method group_limited_greedy, f_a; V3: always) and a token's experts
# from one group (topk_group 1, f_b for V2): the experts hit, at most, are one group's (x_g).
def routed(grouped_to_one) -> tr.Routing:
    return tr.Routing(tr.WORST.current, tr.WORST.previous, x_h + grouped_to_one * (x_g - x_h))


def moe_forward(t: tr.Timeline, x: str, router=router_forward, routing: tr.Routing = routed(f_a * f_b)) -> str:
    """DeepseekV2Moe.forward on the normed ``x`` (views of it; V3's is the same but for its router): the router, the
    experts' loop over X + 1 classes (each F_e wide, the router's weights fp32), then ``+ shared_experts(x)`` (LLaMA's
    gated feed-forward, X_s F_e wide, dying once added; the experts' output dies as the name is bound again); the
    router's tensors die when the block returns."""
    kept = router(t)
    out = tr.experts_loop(t, routing, X + 1, D, tr.gated_experts(F_e, fp32_weights=True))
    shared = llama.gated_mlp_forward(t, x, width=X_s * F_e)
    t.new("moe_out", tr.activation(b * s * D))
    t.drop(shared, out)
    t.drop(*kept)  # the function returns
    return "moe_out"


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool, attention, moe, rotary) -> None:
    """DeepseekV2ForCausalLM.forward (the body alone without ``lm_head``): LLaMA's (derivations.llama), one causal
    mask, the model's rotary tensors, and two kinds of layer: the first layer dense (l_fd) or with experts; a later
    dense layer (l_d2), a later layer with experts (l_e2), each reading the previous layer's output (a later layer
    holds more than the first of its kind: the previous output beside the embeddings)."""
    stream = tr.activation(b * s * D)
    embeddings = llama.embed(t)
    position_ids = tr.positions(t)
    mask = tr.causal_mask(t)
    held = rotary(t)
    dense = llama.Kin(attention=attention, mlp=partial(llama.gated_mlp_forward, width=F))
    sparse = llama.Kin(attention=attention, mlp=moe)
    for kin, first in ((dense, l_fd), (sparse, 1 - l_fd)):
        with t.only(first):
            llama.layer_forward(t, embeddings, "hidden", generate, kin)
            t.drop("hidden")
    t.new("hidden", stream)  # the first layer's output, of either kind
    for kin, later in ((dense, l_d2), (sparse, l_e2)):
        with t.only(later):
            t.drop("hidden")
            t.new("previous", stream)
            llama.layer_forward(t, "previous", "hidden", generate, kin)
            t.drop("previous")
    tr.rms_norm(t, "final", D)
    t.drop("hidden", embeddings, position_ids, mask, *held)
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


def causal_lm_classes(prefix: str, attention, moe, rotary, assumes: dict) -> dict[str, tr.Transient]:
    """``{prefix}Model`` (the body alone: no head, no generation) and ``{prefix}ForCausalLM``, each running
    :func:`causal_lm_forward` with these parts, at the bound of the routing that holds the most."""
    def run(t, generate, lm_head=True):
        causal_lm_forward(t, generate, lm_head, attention, moe, rotary)

    return {f"{prefix}Model": tr.transient(lambda t, generate: run(t, False, False), generates=False,
                                           bound=tr.ROUTED_BOUND, **assumes),
            f"{prefix}ForCausalLM": tr.transient(run, bound=tr.ROUTED_BOUND, **assumes)}


# What the program reads beyond the sizes: the groups of the router (n_group and topk_group, 1 where unset: the
# greedy routing reads neither), the key/value heads (one a query head: transformers' forward fails otherwise, its
# keys already have H heads), the routing (f_a: group_limited_greedy; f_b: topk_group 1).
ASSUMES = dict(counts=(("G_x", "n_group", 1), ("G_k", "topk_group", 1), ("K", "num_key_value_heads", "H")),
               at_least=(("K", "H"),),
               flags=(("f_a", "topk_method", "greedy", "group_limited_greedy"), ("f_b", "topk_group", None, 1)))


def transient(routing: tr.Routing = routed(f_a * f_b)) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived, in every layout (q_lora_rank null: queries not compressed), the
    experts at ``routing``."""
    def classes(no_q_lora: bool = False, **layout) -> dict[str, tr.Transient]:
        attention = partial(latent_attention_forward, compressed=not no_q_lora)
        moe = partial(moe_forward, routing=routing)

        return causal_lm_classes("DeepseekV2", attention, moe, rotary_complex, ASSUMES)

    return reader.READER.layout.variants(classes)


TRANSIENT = transient()


FAMILY = Family(
    name="deepseek_v2",
    reader=reader.READER,
    variants=VARIANTS,
    base="DeepseekV2Model",
    # config.json of deepseek-ai/DeepSeek-V2 and deepseek-ai/DeepSeek-V2-Lite on the Hugging Face hub
    # [cite: hub-deepseek]: the fields that set the count, with model_type, architectures and the context length (the
    # same sizes as DeepSeek's own inference configs, config_236B.json and config_16B.json in the DeepSeek-V3
    # repository). DeepSeek-V2-Chat and -Lite-Chat have the same sizes.
    checkpoints=("deepseek-v2", "deepseek-v2-lite"),
    first_published="2024-05",
    kind="decoder",
    maker="DeepSeek",
    headlines=(
        Headline("DeepseekV2ForCausalLM", "deepseek-v2", "V2, in total"),
        Headline(
            "ACTIVE.DeepseekV2ForCausalLM",
            "deepseek-v2",
            "V2, per token",
            convention="Active per token: in each expert layer the routed experts the router picks "
            "(num_experts_per_tok), the shared experts, the router and every tensor outside the experts "
            "whole, the input embedding included (as on the Mixtral page).",
        ),
    ),
    example="deepseek-v2",
    table_symbols=(L, L_f, D, H, R_kv, X, X_a, X_s, F_e, V),
    table_columns={
        "DeepseekV2ForCausalLM": "DeepseekV2ForCausalLM",
        "ACTIVE.DeepseekV2ForCausalLM": "active per token",
    },
    rounded=TOTALS + ACTIVE_CLAIMS,
    minimum={X_a: 0, L_f: 0},
    active=ACTIVE_VARIANTS,
    layout_free=("idle_experts", "active_without_embedding_lite"),
    transient=TRANSIENT,
)
