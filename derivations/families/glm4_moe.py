"""GLM-4.5 and GLM-4.5-Air (GLM-4.5 Team 2025), laid out as transformers' ``Glm4MoeModel``.

DeepSeek-V3's mixture (``derivations.deepseek_v3``: the first ``L_f`` layers dense, the others a sigmoid router
with a correction bias, ``X`` routed experts of width ``F_e`` of which each token uses ``X_a``, and ``X_s`` shared
experts held as one gated feed-forward) around LLaMA's grouped-query attention (``derivations.llama``: ``H`` query
heads and ``K`` key/value heads of ``d_h``, a field of its own), with a bias on q, k and v where
``attention_bias`` (o_proj never has one: Qwen2's attention, ``derivations.qwen2``) and, where ``use_qk_norm``, an
RMSNorm of each query and key head (Qwen3's, ``derivations.qwen3``: one scale of ``d_h`` for all heads).

What the released checkpoints hold beyond transformers' model, as for DeepSeek-V3:

- the routers' **correction bias** (``e_score_correction_bias``, ``X`` per expert layer): a buffer in transformers,
  not a parameter;
- the **multi-token-prediction** (MTP) layer (``num_nextn_predict_layers``, 1), stored as layer ``L`` (92 in
  GLM-4.5, 46 in the Air) and not built by transformers (``_keys_to_ignore_on_load_unexpected`` drops
  ``model.layers.92.*`` and ``model.layers.46.*``): an expert layer, the norms of the hidden state and of the next
  token's embedding, their projection (2D to D), and its own copies of the embeddings and of the head with its norm.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..claims import Miscount, Rounded
from ..contract import Family, Headline
from . import deepseek_v2, deepseek_v3, llama, qwen3
from ..components import AttentionLayout, Part, attention, group, leaf, linear, rms_norm
from ..readers import glm4_moe as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, F_e, H, K, L, L_f, V, X, X_a, X_s, b, d_h, d_r, f_c, s
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# Attention: grouped-query, a bias on q, k and v where attention_bias, none on o; query and key norms where
# use_qk_norm
# $$N_\mathrm{attn} = D H d_h + 2 D K d_h + H d_h D \;[+ H d_h + 2 K d_h] \;[+ 2 d_h]$$
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")


def self_attention(attention_bias: bool = False, qk_norm: bool = False) -> Part:
    """Glm4MoeAttention (``self_attn``)."""
    words = [w for w, on in (("biases on q, k and v", attention_bias), ("query and key norms", qk_norm)) if on]
    plain = attention(D, H, d_h, K, bias=attention_bias, output_bias=False, layout=_PROJECTIONS, path="self_attn",
                      causal=True, label="grouped-query self-attention" + (", " + " and ".join(words) if words else ""))
    return replace(plain, children=plain.children + (qwen3.head_norms if qk_norm else ()))


dense_feed_forward = deepseek_v2.dense_feed_forward()  # Glm4MoeMLP, F wide, in the first L_f layers
expert = deepseek_v2.expert


def architectures(no_attention_bias: bool = False, qk_norm: bool = False, tied: bool = False,
                  stored: sympy.Expr = X) -> dict[str, Part]:
    """Glm4MoeModel and Glm4MoeForCausalLM (``stored``: the routed experts counted in each expert layer)."""
    return deepseek_v2.classes("Glm4Moe", self_attention(not no_attention_bias, qk_norm), dense_feed_forward,
                               deepseek_v2.mixture(stored), tied=tied, tasks={},
                               suffix="" if stored == X else ": active per token")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(
    lambda **layout: deepseek_v2.with_active_symbols(architectures(stored=X_a, **layout)))
layer = ARCHITECTURES["Glm4MoeModel"].child("layer")  # an expert layer, in the plain layout (GLM-4.5-Air's)
attention_block = layer.child("attention")
attention_qk_norm = self_attention(True, True)  # GLM-4.5's
# The released configs: attention_bias in both, use_qk_norm in GLM-4.5 alone.
GLM45 = VARIANTS["qk_norm"]["Glm4MoeForCausalLM"]
GLM45_ACTIVE = ACTIVE_VARIANTS["qk_norm"]["Glm4MoeForCausalLM"]
AIR = VARIANTS[""]["Glm4MoeForCausalLM"]
AIR_ACTIVE = ACTIVE_VARIANTS[""]["Glm4MoeForCausalLM"]

idle_experts = replace(leaf("idle_experts", "the routed experts a token does not use, in every expert layer",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(GLM45.total - GLM45_ACTIVE.total - idle_experts.total) == 0

# ---------------------------------------------------------------------------------------------
# What the checkpoints hold beyond transformers' model: the routers' correction biases (buffers), the MTP layer
# $$N_\mathrm{bias} = (L - L_f) X$$
# $$N_\mathrm{MTP} = N_\mathrm{layer} + X + 2D + 2D \cdot D + V D + D + D V$$
# ---------------------------------------------------------------------------------------------

router_bias = replace(leaf("router_bias", "the routers' correction biases: X in every expert layer (buffers in "
                                          "transformers)", (L - L_f) * X), symbol=r"N_{\mathrm{bias}}")


def _mtp(model: Part, stored: sympy.Expr = X) -> Part:
    """The MTP layer as the checkpoint stores it (layer L), beside ``model``'s layers: its expert layer (``stored``
    routed experts counted), its router's correction bias, enorm, hnorm, eh_proj, and its copies of the embeddings,
    of the final norm and of the head."""
    layer = model.child("Glm4MoeModel").child("layer")
    if stored != X:
        layer = replace(layer, children=tuple(
            c if c.name != "moe" else deepseek_v2.mixture(stored) for c in layer.children))
    return group(
        "mtp_layer", "the multi-token-prediction layer, as stored (layer L)",
        replace(layer, name="mtp_block", label="one decoder layer with experts", repeat=1, copies="", path=None),
        leaf("mtp_router_bias", "its router's correction bias", X),
        rms_norm("enorm", D, label="RMSNorm of the next token's embedding (enorm)"),
        rms_norm("hnorm", D, label="RMSNorm of the hidden state (hnorm)"),
        linear("eh_proj", "projection of the two, concatenated: 2D to D (eh_proj)", 2 * D, D, False),
        leaf("mtp_embeddings", "its copy of the token embeddings (embed_tokens)", V * D, kind="embeddings"),
        rms_norm("shared_head_norm", D, label="its copy of the final RMSNorm (shared_head.norm)"),
        leaf("mtp_head", "its copy of the head (shared_head.head)", D * V, kind="heads"),
        symbol=r"N_{\mathrm{MTP}}")


mtp_layer = _mtp(GLM45)
mtp_layer_air = _mtp(AIR)


def _without_copies(mtp: Part, name: str) -> Part:
    return leaf(name, "the MTP layer without its copies of the embeddings and head", mtp.total - 2 * V * D)


mtp_without_copies = _without_copies(mtp_layer, "mtp_without_copies")
mtp_without_copies_air = _without_copies(mtp_layer_air, "mtp_without_copies_air")


def _checkpoint(model: Part, mtp: Part, name: str) -> Part:
    return leaf(name, "every tensor of the released checkpoint: the model, the routers' correction biases and the "
                      "MTP layer", model.total + router_bias.total + mtp.total)


checkpoint_count = _checkpoint(GLM45, mtp_layer, "checkpoint_count")
checkpoint_count_air = _checkpoint(AIR, mtp_layer_air, "checkpoint_count_air")

# ---------------------------------------------------------------------------------------------
# The technical report's convention (Table 1's caption): "we include the parameters of MTP layers but not word
# embeddings and the output layer"
# $$N_\mathrm{report} = N - 2 V D + (N_\mathrm{MTP} - 2 V D)$$
# Active: the same, with the X_a routed experts a token uses in each expert layer, the MTP layer's too.
# ---------------------------------------------------------------------------------------------


def _report(model: Part, mtp: Part, name: str, label: str) -> Part:
    return leaf(name, label, model.total - 2 * V * D + mtp.total - 2 * V * D)


def _without_embeddings(model: Part, name: str, label: str) -> Part:
    return leaf(name, label, model.total - 2 * V * D)


report_total = _report(GLM45, mtp_layer, "report_total", "as Table 1 counts: with the MTP layer, without the "
                                                           "embeddings and the head")
report_active = _report(GLM45_ACTIVE, _mtp(GLM45, X_a), "report_active",
                        "active as Table 1 counts: with the MTP layer, without the embeddings and the head")
report_total_air = _report(AIR, mtp_layer_air, "report_total_air", "as Table 1 counts: with the MTP layer, "
                                                                   "without the embeddings and the head")
report_active_air = _report(AIR_ACTIVE, _mtp(AIR, X_a), "report_active_air",
                            "active as Table 1 counts: with the MTP layer, without the embeddings and the head")
non_embedding = _without_embeddings(GLM45, "non_embedding", "without the MTP layer, the embeddings and the head")
non_embedding_air = _without_embeddings(AIR, "non_embedding_air", "without the MTP layer, the embeddings and the "
                                                                  "head")
active_non_embedding = _without_embeddings(GLM45_ACTIVE, "active_non_embedding",
                                           "active, without the MTP layer, the embeddings and the head")
active_non_embedding_air = _without_embeddings(AIR_ACTIVE, "active_non_embedding_air",
                                               "active, without the MTP layer, the embeddings and the head")

SOURCES = declare(
    Source("glm2025", "paper", "GLM-4.5 Team (Zhipu AI and Tsinghua University)", "GLM-4.5: Agentic, Reasoning, and "
           "Coding (ARC) Foundation Models", "arXiv:2508.06471", 2025, "https://arxiv.org/abs/2508.06471",
           short="GLM-4.5 Team 2025"),
    Source("hub-zai-org", "config", "Z.ai (Zhipu AI)", "GLM-4.5 checkpoints: config.json of zai-org/GLM-4.5 and "
           "zai-org/GLM-4.5-Air (read in copies committed to GitHub: modelscope/ms-swift's listing of GLM-4.5-Air's "
           "Glm4MoeConfig, and a test of GLM-4.5's full config)", "Hugging Face, zai-org", 2025,
           "https://huggingface.co/zai-org", read="2026-11-26", short="zai-org on the Hugging Face hub"),
    Source("glm45-readme", "card", "Z.ai (Zhipu AI)", "GLM-4.5: README.md, Model Introduction and Model Downloads "
           "(“355 billion total parameters with 32 billion active parameters”; “106 billion total parameters and 12 "
           "billion active parameters”)", "GitHub, zai-org/GLM-4.5", 2025, "https://github.com/zai-org/GLM-4.5",
           revision="https://github.com/zai-org/GLM-4.5/blob/08158da0b5cb63e7e9da9529482cc5d30e2a7437/README.md",
           short="GLM-4.5's README"),
    Source("glm45-listing", "card", "free2aitools", "zai-org/glm-4.5: Engineering Specs (“Parameters 358.34B”, the "
           "Hugging Face hub's count of the safetensors files)", "free2aitools.com", 2025,
           "https://free2aitools.com/model/zai-org/glm-4.5", read="2026-11-26", short="a model listing of GLM-4.5"),
    Source("apxml-glm45", "card", "ApX Machine Learning", "GLM-4.5: its model page (“Active Parameters 355B”; "
           "“Total Expert Parameters 32.0B”)", "apxml.com", 2025, "https://apxml.com/models/glm-45", read="2026-11-26",
           short="ApX's GLM-4.5 page"),
)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: 355B and 32B, 106B and 12B (the report's Table 1 and the README)
# ---------------------------------------------------------------------------------------------

_TABLE = Citation("glm2025", "Table 1 (“we include the parameters of MTP layers but not word embeddings and the "
                             "output layer”)")
_README = Citation("glm45-readme", "Model Introduction")
# Table 1's totals, each against the report's convention, the count without the MTP layer (nor the embeddings and
# head), transformers' count and the checkpoint's.
TOTALS = (
    Rounded("report_total", 355 * 10**9, "GLM-4.5, total (Table 1)", _TABLE, "glm-4.5",
            (report_total, non_embedding, GLM45, checkpoint_count), precision=10**9, printed="355B"),
    # The Air's 106B is not what the caption says it counts: with the MTP layer it is 108B; 106B is the count
    # without it (the page says so).
    Rounded("report_total_air", 106 * 10**9, "GLM-4.5-Air, total (Table 1)", _TABLE, "glm-4.5-air",
            (report_total_air, non_embedding_air, AIR, checkpoint_count_air), precision=10**9, printed="106B"),
)
ACTIVE_CLAIMS = (
    Rounded("report_active", 32 * 10**9, "GLM-4.5, activated (Table 1)", _TABLE, "glm-4.5",
            (report_active, active_non_embedding, GLM45_ACTIVE), precision=10**9, printed="32B"),
    Rounded("report_active_air", 12 * 10**9, "GLM-4.5-Air, activated (Table 1)", _TABLE, "glm-4.5-air",
            (report_active_air, active_non_embedding_air, AIR_ACTIVE), precision=10**9, printed="12B"),
)
README = (
    Rounded("readme_total", 355 * 10**9, "GLM-4.5, total (README)", _README, "glm-4.5",
            (report_total, non_embedding), precision=10**9, printed="355 billion"),
    Rounded("readme_total_air", 106 * 10**9, "GLM-4.5-Air, total (README)", _README, "glm-4.5-air",
            (report_total_air, non_embedding_air), precision=10**9, printed="106 billion"),
)
LISTING = (
    Rounded("listing_files", 35834 * 10**7, "GLM-4.5, the safetensors files (a model listing)",
            Citation("glm45-listing", "“358.34B Params”"), "glm-4.5", (checkpoint_count, GLM45),
            precision=10**7, printed="358.34B"),
)


# A model listing swaps the two figures: “Active Parameters 355B” and “Total Expert Parameters 32.0B”
# [cite: apxml-glm45]. Its 355B is the report's total; the report's active count leaves out, in every expert layer
# and in the MTP layer's, the routed experts a token does not use.
_idle_mtp = leaf("idle_experts_mtp", "less the routed experts a token does not use in the MTP layer",
                 -(X - X_a) * expert.total)
active_as_total = Miscount(
    # The claim: the report's total, exactly (its 355B is that count rounded; the page shows no working).
    "active_as_total", 355_233_992_096,
    "GLM-4.5, “Active Parameters 355B”", Citation("apxml-glm45", "“Active Parameters 355B”"), "glm-4.5",
    report_active,
    terms=(replace(idle_experts, name="idle_experts_layers", label="less the routed experts a token does not use, "
                   "in every expert layer", expr=-idle_experts.expr), _idle_mtp),
    reconstruction=group("claimed", "the report's total (Table 1)", report_total),
    printed="355B", model="GLM-4.5 (<code>glm-4.5</code>)",
    cause="the page prints the report's total as the parameters active per token (and the report's active count "
          "as “Total Expert Parameters”)",
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): DeepSeek-V3's layers and mixture (derivations.deepseek_v2,
# derivations.deepseek_v3: the same router and experts' loop), LLaMA's attention with GPT-NeoX's partial rotation
# (the first d_r = int(d_h partial_rotary_factor) coordinates of each head, by halves)
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, x: str, generate: bool, qk_norm: bool = False) -> tuple[str, tuple[str, str]]:
    """Glm4MoeAttention.forward on the normed ``x``: q, k and v projected (views); with ``use_qk_norm``, then, q and
    k normed per head (Glm4MoeRMSNorm, LLaMA's; all three projections alive, each of q and k dying as its name is bound
    again);
    apply_rotary_pos_emb: the rotary parts of q, then of k, rotated by halves (views of them; LLaMA's rotation), then
    ``torch.cat([rotated, rest])`` for q, then for k, each rotated part dying as its name is bound again; with a
    cache (generate) k and v go into it; eager attention; o_proj."""
    rows = b * s

    def normed(product: str, heads) -> str:
        name = tr.rms_norm(t, f"{product}_normed", d_h, rows=rows * heads)
        t.drop(product)
        return name

    q, k, v = tr.linear(t, "q", rows, H * d_h), tr.linear(t, "k", rows, K * d_h), tr.linear(t, "v", rows, K * d_h)
    if qk_norm:  # after all three projections (a q norm's peak holds k and v)
        q, k = normed(q, H), normed(k, K)
    q_part = tr.rotate(t, "q_rot.part", q, rows * H * d_r)
    k_part = tr.rotate(t, "k_rot.part", k, rows * K * d_r)
    q_rot = t.new("q_rot", tr.activation(rows * H * d_h))
    t.drop(q_part)
    k_rot = t.new("k_rot", tr.activation(rows * K * d_h))
    t.drop(k_part)
    return llama.rotated_attention_forward(t, q, k, q_rot, k_rot, v, generate)


# What the program reads beyond the sizes: the rotary part of a head (d_r = int(d_h partial_rotary_factor), even:
# its halves are rotated), the router's groups (Glm4MoeConfig's defaults, 1 and 1), norm_topk_prob (f_b), a
# token's experts from one group (f_c).
ASSUMES = dict(even=("d_r",), derived=(("d_r", "partial_rotary_factor", 0.5, "d_h"),),
               counts=(("G_x", "n_group", 1), ("G_k", "topk_group", 1)),
               flags=(("f_b", "norm_topk_prob", True, True), ("f_c", "topk_group", 1, 1)))


def transient(routing: tr.Routing = deepseek_v2.routed(f_c)) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived, in every layout, the experts at ``routing``."""
    def classes(no_attention_bias: bool = False, qk_norm: bool = False, **layout) -> dict[str, tr.Transient]:
        attention = partial(attention_forward, qk_norm=qk_norm)
        moe = partial(deepseek_v2.moe_forward, router=deepseek_v3.router_forward, routing=routing)

        return deepseek_v2.causal_lm_classes("Glm4Moe", attention, moe, lambda t: tr.rotary(t, d_r), ASSUMES)

    return reader.READER.layout.variants(classes)


TRANSIENT = transient()


FAMILY = Family(
    name="glm4_moe",
    reader=reader.READER,
    variants=VARIANTS,
    base="Glm4MoeModel",
    # config.json of zai-org/GLM-4.5 and zai-org/GLM-4.5-Air on the Hugging Face hub [cite: hub-zai-org], read in
    # copies committed to GitHub (GLM-4.5: a converter's test that lists the whole config; GLM-4.5-Air: ms-swift's
    # printout of its Glm4MoeConfig, transformers 4.54.1), agreeing with the report's Table 1 [cite: glm2025]: the
    # fields that set the count, with model_type, architectures, the context length and num_nextn_predict_layers.
    # GLM-4.5-Base, -FP8, GLM-4.6 and GLM-4.7 have GLM-4.5's sizes; GLM-4.5-Air-Base and -FP8 the Air's.
    checkpoints=("glm-4.5", "glm-4.5-air"),
    first_published="2025-07",
    kind="decoder",
    maker="Zhipu AI",
    headlines=(
        Headline("Glm4MoeForCausalLM", "glm-4.5", "GLM-4.5, in total"),
        Headline("ACTIVE.Glm4MoeForCausalLM", "glm-4.5", "GLM-4.5, per token",
                 convention="Active per token: in each expert layer the routed experts the router picks "
                 "(num_experts_per_tok), the shared expert, the router and every tensor outside the experts whole, "
                 "the input embedding included (as on the Mixtral and DeepSeek pages; the report's 32B leaves out "
                 "the embeddings and the head, and adds the MTP layer)."),
        Headline("Glm4MoeForCausalLM", "glm-4.5-air", "GLM-4.5-Air, in total"),
    ),
    example="glm-4.5",
    table_symbols=(L, L_f, D, H, K, d_h, X, X_a, X_s, F, F_e, V),
    table_columns={
        "Glm4MoeForCausalLM": "Glm4MoeForCausalLM",
        "ACTIVE.Glm4MoeForCausalLM": "active per token",
    },
    rounded=TOTALS + ACTIVE_CLAIMS + README + LISTING,
    miscounts=(active_as_total,),
    minimum={X_a: 0, L_f: 0, X_s: 0},
    active=ACTIVE_VARIANTS,
    # Each built from its checkpoint's layout by name (the plain one is GLM-4.5-Air's), or the same in every layout.
    layout_free=("idle_experts", "router_bias", "mtp_layer", "mtp_layer_air", "mtp_without_copies",
                 "mtp_without_copies_air", "checkpoint_count", "checkpoint_count_air", "report_total",
                 "report_active", "report_total_air", "report_active_air", "non_embedding", "non_embedding_air",
                 "active_non_embedding", "active_non_embedding_air"),
    sources=SOURCES,
    transient=TRANSIENT,
)
