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

import sympy

from ..contract import Family, Headline
from . import deepseek_v2
from ..claims import Rounded
from ..components import Part, group, leaf, linear, rms_norm, score, task_heads
from ..readers import deepseek_v3 as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, F_e, H, L, L_f, R_kv, R_q, V, X, X_a, X_s, d_n, d_r, d_v


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
)
