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

import sympy

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import (Part, attention_products, column_parallel, feed_forward, group, leaf, linear, rms_norm,
                          row_parallel, score, task_heads)
from ..readers import deepseek_v2 as reader
from ..sources import Citation
from ..symbols import C, D, F, F_e, H, L, L_f, R_kv, R_q, V, X, X_a, X_s, d_n, d_r, d_v


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
)
