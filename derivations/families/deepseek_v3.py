"""DeepSeek-V3 (DeepSeek-AI 2024), laid out as transformers' ``DeepseekV3Model``.

DeepSeek-V2's blocks (``derivations.deepseek_v2``: multi-head latent attention, the first ``L_f`` layers dense,
the others a router, ``X`` routed experts and ``X_s`` shared experts) at a larger size, with two additions that
transformers does not count as parameters of the model it builds:

- the router's **correction bias** (``e_score_correction_bias``, ``X`` per expert layer), added to the scores to
  balance the experts' load: a parameter in DeepSeek's own code, a buffer (not a parameter) in transformers;
- the **multi-token-prediction** (MTP) module, one more layer that predicts the token after next during training,
  stored in the released checkpoint as layer 61 but not built by transformers: an expert layer, two RMSNorms
  (``enorm``, ``hnorm``), a projection of the two concatenated (``eh_proj``, 2D to D), and copies of the token
  embeddings and of the head with its norm (``shared_head``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import deepseek_v2
from ..claims import Rounded
from ..components import Part, group, leaf, linear, rms_norm, score, task_heads
from ..readers import deepseek_v3 as reader
from ..sources import Citation, Source, declare
from ..symbols import (C, D, F, F_e, G_k, G_x, H, L, L_f, R_kv, R_q, V, X, X_a, X_s, b, c_g, d_n, d_r, d_v, f_a, f_b,
                       f_c, s)
from .. import transient as tr


attention_block = deepseek_v2.attention_block
expert = deepseek_v2.expert
moe = deepseek_v2.mixture()
dense_layer, layer = deepseek_v2.layers(attention_block, deepseek_v2.dense_feed_forward(), moe)


def architectures(no_q_lora: bool = False, attention_bias: bool = False, tied: bool = False,
                  no_token_bias: bool = False, stored: sympy.Expr = X) -> dict[str, Part]:
    """DeepseekV3Model, DeepseekV3ForCausalLM, DeepseekV3ForSequenceClassification and
    DeepseekV3ForTokenClassification."""
    heads = task_heads("DeepseekV3", score(D, C, not no_token_bias))
    tasks = {name: heads[name] for name in ("DeepseekV3ForSequenceClassification", "DeepseekV3ForTokenClassification")}
    return deepseek_v2.classes("DeepseekV3", deepseek_v2.latent_attention(not no_q_lora, attention_bias),
                               deepseek_v2.dense_feed_forward(), deepseek_v2.mixture(stored), tied=tied, tasks=tasks,
                               suffix="" if stored == X else ": active per token")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(
    lambda **layout: deepseek_v2.with_active_symbols(architectures(stored=X_a, **layout)))
ACTIVE = ACTIVE_VARIANTS[""]


idle_experts = replace(leaf("idle_experts", "the routed experts a token does not use, in every expert layer",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["DeepseekV3ForCausalLM"].total - ACTIVE["DeepseekV3ForCausalLM"].total
                    - idle_experts.total) == 0
active_without_embedding = leaf("active_without_embedding", "active per token, without the input embedding",
                                ACTIVE["DeepseekV3ForCausalLM"].total - V * D)

# ---------------------------------------------------------------------------------------------
# What transformers does not count: the router's correction bias, and the MTP module
# $$N_\mathrm{bias} = (L - L_f) X$$
# ---------------------------------------------------------------------------------------------

router_bias = replace(leaf("router_bias", "the routers' correction biases: X in every expert layer (a buffer in "
                                          "transformers, a parameter in DeepSeek's code)", (L - L_f) * X),
                      symbol=r"N_{\mathrm{bias}}")
# The count of DeepSeek's own code (inference/model.py: Gate.bias is an nn.Parameter in the 7168-wide model).
deepseek_code_count = leaf("deepseek_code_count", "the main model as DeepSeek's code counts it",
                           ARCHITECTURES["DeepseekV3ForCausalLM"].total + router_bias.total)

# $$N_\mathrm{MTP} = N_\mathrm{layer} + X + 2D + 2D \cdot D + V D + D + D V$$
# One MTP module (num_nextn_predict_layers = 1), as the released checkpoint stores it (layer 61): an expert layer
# (its router with its correction bias), the norms of the hidden state and of the next token's embedding, their
# projection, and its own copies of the embeddings and of the head with the final norm.
mtp_module = group(
    "mtp_module", "the multi-token-prediction module, as stored (layer 61)",
    replace(layer, name="mtp_layer", label="one decoder layer with experts", repeat=1, copies="", path=None),
    leaf("mtp_router_bias", "its router's correction bias", X),
    rms_norm("enorm", D, label="RMSNorm of the next token's embedding (enorm)"),
    rms_norm("hnorm", D, label="RMSNorm of the hidden state (hnorm)"),
    linear("eh_proj", "projection of the two, concatenated: 2D to D (eh_proj)", 2 * D, D, False),
    leaf("mtp_embeddings", "its copy of the token embeddings (embed_tokens)", V * D, kind="embeddings"),
    rms_norm("shared_head_norm", D, label="its copy of the final RMSNorm (shared_head.norm)"),
    leaf("mtp_head", "its copy of the head (shared_head.head)", D * V, kind="heads"),
    symbol=r"N_{\mathrm{MTP}}")
mtp_without_copies = leaf("mtp_without_copies", "the MTP module without its copies of the embeddings and head",
                          mtp_module.total - 2 * V * D)
# The module's parameters a token uses: its expert layer's chosen experts, the rest whole.
mtp_active = leaf("mtp_active", "the MTP module active per token, its copies of the embeddings and head included",
                  mtp_module.total - (X - X_a) * expert.total)
# Everything the released checkpoint stores: the model, the routers' biases and the MTP module.
checkpoint_count = leaf("checkpoint_count", "every tensor of the released checkpoint",
                        deepseek_code_count.total + mtp_module.total)

# The released weights are FP8 with one scale per block of 128 x 128 of every quantized matrix (weight_scale_inv,
# README_WEIGHTS.md [cite: deepseek-v3-code]): the matrices of the attention and of the feed-forwards and experts;
# the embeddings, the head, the routers and the norms stay in BF16. A reader of the safetensors files that counts
# every tensor counts the scales too. (README_WEIGHTS.md does not list which matrices carry scales: the files'
# bytes, stored_bytes below, check this choice, eh_proj in BF16 included.)
def _blocks(rows: sympy.Expr, columns: sympy.Expr) -> sympy.Expr:
    return sympy.ceiling(rows / 128) * sympy.ceiling(columns / 128)


_attention_scales = (_blocks(R_q, D) + _blocks(H * (d_n + d_r), R_q) + _blocks(R_kv + d_r, D)
                     + _blocks(H * (d_n + d_v), R_kv) + _blocks(D, H * d_v))
_expert_scales = 2 * _blocks(F_e, D) + _blocks(D, F_e)
_shared_scales = 2 * _blocks(X_s * F_e, D) + _blocks(D, X_s * F_e)
fp8_scales = leaf("fp8_scales", "the FP8 block scales of the checkpoint's quantized matrices (one per 128 x 128 block)",
                  (L + 1) * _attention_scales + (L - L_f + 1) * (X * _expert_scales + _shared_scales)
                  + L_f * (2 * _blocks(F, D) + _blocks(D, F)))
stored_tensors = leaf("stored_tensors", "every tensor of the released files: the checkpoint's parameters and the FP8 "
                                        "scales", checkpoint_count.total + fp8_scales.total)

SOURCES = declare(
    Source("model-inspect", "code", "simpx", "model-inspect: README.md, its listing of the safetensors headers of "
           "deepseek-ai/DeepSeek-V3 (“Total Parameters Size: 688,574,839,360 bytes”)", "GitHub, simpx/model-inspect",
           2025, "https://github.com/simpx/model-inspect",
           revision="https://github.com/simpx/model-inspect/blob/50b76503633c54d72cb7283bb2179d5b505c8e95/README.md",
           short="simpx/model-inspect"),
)

# The files' bytes: the quantized matrices in FP8 (1 byte), the scales and the routers' correction biases in F32
# (4 bytes), everything else in BF16 (2 bytes). The listing of the files' headers that simpx/model-inspect's README
# printed (688,574,839,360, in the source's title) is this, to the byte (tests/test_deepseek_v3.py).
fp8_elements = ((L + 1) * (R_q * D + H * (d_n + d_r) * R_q + (R_kv + d_r) * D + H * (d_n + d_v) * R_kv + D * H * d_v)
                + (L - L_f + 1) * (X + X_s) * 3 * F_e * D + L_f * 3 * F * D)
_f32_elements = fp8_scales.total + (L - L_f + 1) * X  # the scales, and the biases of the main model's and MTP's routers
# As the page writes it (B the bytes, N_stored every number the files hold, N_FP8 and N_F32 those in FP8 and in
# F32), then evaluated.
_B, _N, _F8, _F32 = sympy.symbols(r"B N_{\mathrm{stored}} N_{\mathrm{FP8}} N_{\mathrm{F32}}")
STORED_BYTES = {_B: sympy.Add(_F8, 4 * _F32, sympy.Mul(2, sympy.Add(_N, -_F8, -_F32), evaluate=False),
                              evaluate=False)}
stored_bytes = leaf("stored_bytes", "the released files' bytes: FP8 matrices, F32 scales and router biases, the rest "
                                    "in BF16",
                    STORED_BYTES[_B].subs({_F8: fp8_elements, _F32: _f32_elements, _N: stored_tensors.total}))




# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: 671B and 37B (paper), 685B (model page)
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("deepseek2024v3", "abstract: “671B total parameters with 37B activated for each token”")
_PAGE = Citation("hub-deepseek", "DeepSeek-V3 model page: “The total size of DeepSeek-V3 models on Hugging Face is "
                                 "685B, which includes 671B of the Main Model weights and 14B of the Multi-Token "
                                 "Prediction (MTP) Module weights”")
TOTALS = (
    Rounded("paper_total", 671 * 10**9, "DeepSeek-V3, total (paper)", _PAPER, "deepseek-v3",
            (ARCHITECTURES["DeepseekV3ForCausalLM"], deepseek_code_count), precision=10**9, printed="671B"),
    Rounded("page_total", 685 * 10**9, "DeepSeek-V3 on Hugging Face (model page)", _PAGE, "deepseek-v3",
            (stored_tensors, checkpoint_count), precision=10**9, printed="685B"),
    Rounded("page_mtp", 14 * 10**9, "its MTP module (model page)", _PAGE, "deepseek-v3",
            (mtp_module, mtp_without_copies), precision=10**9, printed="14B"),
)
# DeepSeek's description of the released weights (README_WEIGHTS.md), each figure against the count it describes.
_WEIGHTS = "README_WEIGHTS.md: “{}”"
WEIGHTS = (
    Rounded("weights_active", 367 * 10**8, "main model, activation parameters", Citation(
        "deepseek-v3-code", _WEIGHTS.format("36.7B (including 0.9B for Embedding and 0.9B for the output Head)")),
        "deepseek-v3", (ACTIVE["DeepseekV3ForCausalLM"],), precision=10**8, printed="36.7B"),
    Rounded("weights_embedding", 9 * 10**8, "its embedding, and its output head", Citation(
        "deepseek-v3-code", _WEIGHTS.format("0.9B for Embedding and 0.9B for the output Head")),
        "deepseek-v3", (leaf("embedding_table", "one table: V D", V * D),), precision=10**8, printed="0.9B"),
    Rounded("weights_mtp", 115 * 10**8, "MTP module, unique parameters", Citation(
        "deepseek-v3-code", _WEIGHTS.format("11.5B unique parameters, excluding the shared 0.9B Embedding and 0.9B "
                                            "output Head")),
        "deepseek-v3", (mtp_without_copies,), precision=10**8, printed="11.5B"),
    Rounded("weights_mtp_active", 24 * 10**8, "MTP module, activation parameters", Citation(
        "deepseek-v3-code", _WEIGHTS.format("2.4B (including the shared 0.9B Embedding and 0.9B output Head)")),
        "deepseek-v3", (mtp_active,), precision=10**8, printed="2.4B"),
)
ACTIVE_CLAIMS = (
    Rounded("paper_active", 37 * 10**9, "DeepSeek-V3, activated per token (paper)", _PAPER, "deepseek-v3",
            (active_without_embedding, ACTIVE["DeepseekV3ForCausalLM"]), precision=10**9, printed="37B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): DeepSeek-V2's (derivations.deepseek_v2), with V3's rotary
# embeddings (LLaMA's, d_r wide, applied to interleaved pairs or to halves) and its router
# ---------------------------------------------------------------------------------------------

def rope(t: tr.Timeline) -> tuple[str, str]:
    """The rotary parts of the queries (H d_r a row) and of the shared key (d_r a row) rotated: by interleaved pairs
    where rope_interleave (f_a: apply_rotary_pos_emb_interleave, derivations.transient.rotate_pairs), else by halves
    (apply_rotary_pos_emb, LLaMA's: derivations.transient.rotate); the queries first, then the key."""
    rows = b * s
    for name, n in (("q_rot", rows * H * d_r), ("k_rot", rows * d_r)):
        tr.rotate_pairs(t, f"{name}.pairs", f_a * n)
        tr.rotate(t, f"{name}.halves", name, (1 - f_a) * n)
        t.join(name, f"{name}.pairs", f"{name}.halves")
    return "q_rot", "k_rot"


def router_forward(t: tr.Timeline) -> tuple[str, ...]:
    """DeepseekV3TopkRouter.forward: the logits in fp32 (the rows and the router's weight copied to fp32 below fp32,
    dying once read), ``sigmoid``, ``+ e_score_correction_bias`` (the scores for the choice); each group's two best
    (``topk(2)``: values and 64-bit indices, the indices dying at once) summed (the values dying once read); ``topk`` of
    the G_k groups (the values dying at once); a zero mask of the groups filled in place, expanded to the experts (a
    copy where c_g); ``masked_fill(~mask.bool(), -inf)`` (two boolean masks, each dying once read; the scores for the
    choice die as the name is bound again); ``topk`` of the X_a experts (the values dying at once), the sigmoid's scores
    gathered at them; where norm_topk_prob (f_b) their sum plus 1e-20 (the sum dying once read), divided in place; times
    routed_scaling_factor (the product kept). What it made dies when it returns."""
    rows = b * s
    t.new("router.rows_fp32", tr.upcast(rows * D))
    t.new("router.weight_fp32", tr.upcast(X * D))
    t.new("router_logits", tr.FP32 * rows * X)
    t.drop("router.rows_fp32", "router.weight_fp32")
    t.new("router.scores", tr.FP32 * rows * X)
    t.new("router.for_choice", tr.FP32 * rows * X)
    t.new("router.group_top2", tr.FP32 * rows * G_x * 2)
    t.new("router.group_top2_idx", tr.INT64 * rows * G_x * 2)
    t.drop("router.group_top2_idx")
    t.new("router.group_scores", tr.FP32 * rows * G_x)
    t.drop("router.group_top2")
    t.new("router.group_top", tr.FP32 * rows * G_k)
    t.new("router.group_idx", tr.INT64 * rows * G_k)
    t.drop("router.group_top")
    t.new("router.group_mask", tr.FP32 * rows * G_x)
    t.new("router.score_mask", c_g * tr.FP32 * rows * X)  # reshape: a copy, or a view (c_g)
    t.new("router.mask_bool", tr.BOOL * rows * X)
    t.new("router.mask_not", tr.BOOL * rows * X)
    t.drop("router.mask_bool")
    t.new("router.masked", tr.FP32 * rows * X)
    t.drop("router.mask_not")
    t.drop("router.for_choice")  # scores_for_choice bound again
    t.new("router.top", tr.FP32 * rows * X_a)
    t.new("top_k_index", tr.INT64 * rows * X_a)
    t.drop("router.top")
    t.new("router.gathered", tr.FP32 * rows * X_a)
    t.new("router.sum", f_b * tr.FP32 * rows)
    t.new("router.denominator", f_b * tr.FP32 * rows)
    t.drop("router.sum")
    t.new("top_k_weights", tr.FP32 * rows * X_a)
    t.drop("router.gathered")  # topk_weights bound again
    t.drop("router.scores", "router.masked", "router.group_scores", "router.group_idx", "router.group_mask",
           "router.score_mask", "router.denominator")  # the function returns
    return "router_logits", "top_k_weights", "top_k_index"


# What the program reads beyond the sizes: the groups (DeepseekV3Config's defaults, 8 and 4), the key/value heads
# (one a query head), rope_interleave (f_a), norm_topk_prob (f_b), a token's experts from one group (f_c).
ASSUMES = dict(counts=(("G_x", "n_group", 8), ("G_k", "topk_group", 4), ("K", "num_key_value_heads", "H")),
               at_least=(("K", "H"),),
               flags=(("f_a", "rope_interleave", True, True), ("f_b", "norm_topk_prob", True, True),
                      ("f_c", "topk_group", 4, 1)))


def transient(routing: tr.Routing = deepseek_v2.routed(f_c)) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived, in every layout (q_lora_rank null: queries not compressed), the
    experts at ``routing``."""
    def classes(no_q_lora: bool = False, **layout) -> dict[str, tr.Transient]:
        attention = partial(deepseek_v2.latent_attention_forward, compressed=not no_q_lora, rope=rope)
        moe = partial(deepseek_v2.moe_forward, router=router_forward, routing=routing)

        return deepseek_v2.causal_lm_classes("DeepseekV3", attention, moe, lambda t: tr.rotary(t, d_r), ASSUMES)

    return reader.READER.layout.variants(classes)


TRANSIENT = transient()


FAMILY = Family(
    name="deepseek_v3",
    reader=reader.READER,
    variants=VARIANTS,
    base="DeepseekV3Model",
    # config.json of deepseek-ai/DeepSeek-V3 on the Hugging Face hub [cite: hub-deepseek]: the fields that set the
    # count, with model_type, architectures, the context length and num_nextn_predict_layers; the same sizes as
    # DeepSeek's inference config config_671B.json. DeepSeek-R1 and DeepSeek-V3-0324 have the same architecture and
    # sizes.
    checkpoints=("deepseek-v3",),
    first_published="2024-12",
    kind="decoder",
    maker="DeepSeek",
    headlines=(
        Headline("DeepseekV3ForCausalLM", "deepseek-v3", "V3, in total"),
        Headline(
            "ACTIVE.DeepseekV3ForCausalLM",
            "deepseek-v3",
            "V3, per token",
            convention="Active per token: in each expert layer the routed experts the router picks "
            "(num_experts_per_tok), the shared expert, the router and every tensor outside the experts "
            "whole, the input embedding included (as on the Mixtral page and in DeepSeek's description of the "
            "weights; the paper's 37B rounds the count without it).",
        ),
        Headline("stored_tensors", "deepseek-v3", "V3, the released files", label="every tensor of the released files",
                 unit="numbers stored",
                 convention="The model page's 685B: the main model, the multi-token-prediction module and the FP8 "
                 "weights' block scales."),
    ),
    example="deepseek-v3",
    table_symbols=(L, L_f, D, H, R_kv, X, X_a, X_s, F_e, V),
    table_columns={
        "DeepseekV3ForCausalLM": "DeepseekV3ForCausalLM",
        "ACTIVE.DeepseekV3ForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
        "checkpoint_count": "the released checkpoint",
    },
    rounded=TOTALS + ACTIVE_CLAIMS + WEIGHTS,
    minimum=deepseek_v2.FAMILY.minimum,
    active=ACTIVE_VARIANTS,
    sources=SOURCES,
    transient=TRANSIENT,
)
