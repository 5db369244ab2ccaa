"""Command R and Command R+ (Cohere For AI 2024), laid out as transformers' ``CohereModel``.

LLaMA's tensors (``derivations.llama``: grouped-query attention with ``K`` key/value heads, biases on all four
projections only where ``attention_bias``; a gated SwiGLU feed-forward without biases), arranged otherwise:

- **one norm a layer**, shared: ``input_layernorm`` feeds the attention and the feed-forward, which run in
  **parallel** and are added to the residual together (no post-attention norm);
- the norms are **LayerNorms without bias** (a scale of ``D``; the mean is subtracted, unlike an RMSNorm), the final
  one too;
- where ``use_qk_norm`` (Command R+), a LayerNorm of each query head and of each key head, with a scale for every
  head: ``H d_h`` for the queries and ``K d_h`` for the keys (Qwen3's and GLM-4.5's share one ``d_h`` scale among
  the heads);
- the head is **tied** to the token embeddings (``tie_word_embeddings`` true by default and in every release), and
  the logits are multiplied by ``logit_scale``, a float of the config: not a parameter.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..contract import Family, Headline
from . import llama
from ..components import Part, group, layer_norm
from ..readers import cohere as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, H, K, L, V, b, d_h, s
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# One decoder layer: one LayerNorm (a scale, no bias), then attention and feed-forward side by side
# $$x + \mathrm{Attn}(\mathrm{LN}(x)) + \mathrm{FFN}(\mathrm{LN}(x))$$
# $$N_\mathrm{layer} = D + (D H d_h + 2 D K d_h + H d_h D) \;[+ H d_h + 2 K d_h + D] \;[+ H d_h + K d_h] + 3 D F$$
# ---------------------------------------------------------------------------------------------

# CohereLayerNorm((H, d_h)) and ((K, d_h)): a scale of every coordinate of every head, no bias.
head_norms = (layer_norm("query_norm", H * d_h, "q_norm", bias=False,
                         label="LayerNorm of each query head (a scale of d_h for each of the H heads)"),
              layer_norm("key_norm", K * d_h, "k_norm", bias=False,
                         label="LayerNorm of each key head (a scale of d_h for each of the K heads)"))


def self_attention(attention_bias: bool = False, qk_norm: bool = False) -> Part:
    """CohereAttention (``self_attn``): LLaMA's four projections (all four biased with ``attention_bias``), and the
    query and key norms with ``use_qk_norm``."""
    plain = llama.self_attention(attention_bias)
    if not qk_norm:
        return plain
    return replace(plain, children=plain.children + head_norms, label=plain.label + ", query and key norms")


def decoder_layer(attention_bias: bool = False, qk_norm: bool = False) -> Part:
    """CohereDecoderLayer (``layers.<i>``): the shared norm, the attention and the feed-forward in parallel."""
    return group("layer", "decoder layer (attention and feed-forward in parallel)",
                 layer_norm("input_norm", D, "input_layernorm", bias=False,
                            label="LayerNorm before both (a scale, no bias)"),
                 self_attention(attention_bias, qk_norm),
                 llama.gated_feed_forward(),
                 path="layers", symbol=r"N_{\mathrm{layer}}")


final_norm = layer_norm("final_norm", D, "norm", bias=False, label="final LayerNorm (a scale, no bias)")


def architectures(attention_bias: bool = False, qk_norm: bool = False, untied: bool = False) -> dict[str, Part]:
    """CohereModel and CohereForCausalLM."""
    layer = decoder_layer(attention_bias, qk_norm)
    body = group("CohereModel", "CohereModel: embeddings, layers, final LayerNorm", llama.token_embeddings,
                 replace(layer, repeat=L), final_norm, symbol=r"N_{\mathrm{CohereModel}}")
    causal = group("CohereForCausalLM", "with the language-model head", replace(body, path="model"),
                   llama.lm_head(not untied), symbol=r"N_{\mathrm{CohereForCausalLM}}")
    return {"CohereModel": body, "CohereForCausalLM": causal}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
layer = decoder_layer()
attention_block = layer.child("attention")
COMMAND_R_PLUS = VARIANTS["qk_norm"]["CohereForCausalLM"]

SOURCES = declare(
    Source("hub-cohereforai", "config", "Cohere For AI", "Command R checkpoints: config.json and model cards of "
           "c4ai-command-r-v01, c4ai-command-r-08-2024 and c4ai-command-r-plus (read in copies committed to GitHub: "
           "a Rust port's test that quotes c4ai-command-r-v01's config.json, and a table of the three configs)",
           "Hugging Face, CohereForAI", 2024, "https://huggingface.co/CohereForAI", read="2026-11-26",
           short="CohereForAI on the Hugging Face hub"),
    Source("llama.cpp-6033", "thread", "Noeda and others", "Add Command-R Model (the comment of 2024-04-04: Command "
           "R+ “has a use_qk_norm=True flag compared to old one”)", "GitHub, ggml-org/llama.cpp", 2024,
           "https://github.com/ggml-org/llama.cpp/pull/6033", read="2026-11-26", short="ggml-org/llama.cpp#6033"),
)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the model cards' 35 billion, 32 billion and 104 billion
# ---------------------------------------------------------------------------------------------

CARDS = (
    Rounded("card_r", 35 * 10**9, "Command R (c4ai-command-r-v01)", Citation(
        "hub-cohereforai", "c4ai-command-r-v01 model card: “a 35 billion parameter highly performant generative "
                           "model”"), "command-r-v01", (ARCHITECTURES["CohereForCausalLM"],), precision=10**9,
            printed="35 billion"),
    Rounded("card_r_08_2024", 32 * 10**9, "Command R 08-2024", Citation(
        "hub-cohereforai", "c4ai-command-r-08-2024 model card: “a 32 billion parameter highly performant generative "
                           "model”"), "command-r-08-2024", (ARCHITECTURES["CohereForCausalLM"],), precision=10**9,
            printed="32 billion"),
    Rounded("card_r_plus", 104 * 10**9, "Command R+ (c4ai-command-r-plus)", Citation(
        "hub-cohereforai", "c4ai-command-r-plus model card: “a 104B billion parameter model”; “Model Size: 104 "
                           "billion parameters”"), "command-r-plus", (COMMAND_R_PLUS,), precision=10**9,
            printed="104B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_cohere.py, statement by statement;
# LLaMA's order (derivations.llama) but for the norm, the rotation, the layer and the logits
# ---------------------------------------------------------------------------------------------

def layer_norm_forward(t: tr.Timeline, name: str, width, rows=None, scale=None) -> str:
    """CohereLayerNorm.forward on ``rows`` rows of ``width`` (the normed coordinates; ``scale``: the weight's size,
    ``width`` unless the norm is per head): ``x.to(fp32)``; ``mean``; ``(x - mean).pow(2).mean(-1)`` (the difference
    and its square dying once read); ``(x - mean) * rsqrt(variance + eps)`` (each inner result dying once read, the
    upcast as the name is bound again); ``weight.to(fp32) * x`` (the weight's copy below fp32 dying at once);
    ``.to(input_dtype)``, below fp32 a copy, in fp32 the product itself. The mean and variance die at the return."""
    rows = b * s if rows is None else rows
    scale = width if scale is None else scale
    n = rows * width
    t.new(f"{name}.x32", tr.upcast(n))
    t.new(f"{name}.mean", tr.FP32 * rows)
    t.new(f"{name}.centred", tr.FP32 * n)
    t.new(f"{name}.pow", tr.FP32 * n)
    t.drop(f"{name}.centred")
    t.new(f"{name}.variance", tr.FP32 * rows)
    t.drop(f"{name}.pow")
    t.new(f"{name}.centred2", tr.FP32 * n)
    t.new(f"{name}.eps", tr.FP32 * rows)
    t.new(f"{name}.rsqrt", tr.FP32 * rows)
    t.drop(f"{name}.eps")
    t.new(f"{name}.normed", tr.FP32 * n)
    t.drop(f"{name}.centred2", f"{name}.rsqrt", f"{name}.x32")
    t.new(f"{name}.weight32", tr.upcast(scale))
    t.new(f"{name}.scaled", tr.FP32 * tr.u * n)
    t.new(f"{name}.kept", tr.FP32 * (1 - tr.u) * n)
    t.drop(f"{name}.weight32", f"{name}.normed")
    t.new(f"{name}.cast", tr.downcast(n))
    t.drop(f"{name}.scaled", f"{name}.mean", f"{name}.variance")  # the function returns
    return t.join(name, f"{name}.kept", f"{name}.cast")


def rotate_interleaved(t: tr.Timeline, name: str, x: str, elements) -> str:
    """One of q and k in apply_rotary_pos_emb (its fp32 copy ``x``): ``(x * cos) + (rotate_half(x) * sin)``, in fp32
    (the cosine and sine in the activation dtype, promoted), where rotate_half is ``torch.stack([-x2, x1],
    dim=-1).flatten(-2)`` of the even and odd coordinates (views): the negation, half the elements, dies once
    stacked; each product once summed."""
    t.new(f"{name}.cos", tr.FP32 * elements)
    t.new(f"{name}.neg", tr.FP32 * elements / 2)
    t.new(f"{name}.stacked", tr.FP32 * elements)
    t.drop(f"{name}.neg")
    t.new(f"{name}.sin", tr.FP32 * elements)
    t.drop(f"{name}.stacked")
    t.new(name, tr.FP32 * elements)
    t.drop(f"{name}.cos", f"{name}.sin")
    return name


def attention_forward(t: tr.Timeline, x: str, generate: bool, qk_norm: bool = False) -> tuple[str, tuple[str, str]]:
    """CohereAttention.forward on the normed ``x``: q, k and v projected (views); with ``use_qk_norm`` q and k
    normed per head (CohereLayerNorm, each projection dying as its name is bound again); apply_rotary_pos_emb:
    ``q.float()``, ``k.float()`` (copies below fp32), each rotated (:func:`rotate_interleaved`), both cast back
    (copies below fp32; in fp32 the rotated tensors themselves), the fp32 copies dying at its return and q and k as
    their names are bound again; with a cache (generate) k and v go into it; eager attention; o_proj."""
    rows = b * s
    q, k = tr.linear(t, "q", rows, H * d_h), tr.linear(t, "k", rows, K * d_h)
    v = tr.linear(t, "v", rows, K * d_h)
    if qk_norm:
        normed_q = layer_norm_forward(t, "q_normed", d_h, rows * H, H * d_h)
        t.drop(q)
        normed_k = layer_norm_forward(t, "k_normed", d_h, rows * K, K * d_h)
        t.drop(k)
        q, k = normed_q, normed_k
    nq, nk = rows * H * d_h, rows * K * d_h
    t.new("q32", tr.upcast(nq))
    t.new("k32", tr.upcast(nk))
    rotate_interleaved(t, "q_embed", "q32", nq)
    rotate_interleaved(t, "k_embed", "k32", nk)
    t.split("q_embed", **{"q_embed.below": tr.u, "q_rot.fp32": 1 - tr.u})
    t.split("k_embed", **{"k_embed.below": tr.u, "k_rot.fp32": 1 - tr.u})
    t.new("q_rot.cast", tr.downcast(nq))
    t.new("k_rot.cast", tr.downcast(nk))
    t.drop("q32", "k32", "q_embed.below", "k_embed.below")  # apply_rotary_pos_emb returns
    q_rot, k_rot = t.join("q_rot", "q_rot.cast", "q_rot.fp32"), t.join("k_rot", "k_rot.cast", "k_rot.fp32")
    return llama.rotated_attention_forward(t, q, k, q_rot, k_rot, v, generate)


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """CohereDecoderLayer.forward on ``x``, which its caller holds: the one norm, the attention and the feed-forward
    on it, ``residual + attention + mlp`` (the first sum dying once read); the norm, the two outputs and the attention
    weights (``_``) die when it returns."""
    normed = kin.norm(t, "input_norm", D)
    attended, weights = kin.attention(t, normed, generate)
    mlp = kin.mlp(t, normed)
    t.new("partial_sum", tr.activation(b * s * D))
    t.new(out, tr.activation(b * s * D))
    t.drop("partial_sum", normed, attended, mlp, *weights)
    return out


def logits_forward(t: tr.Timeline, rows) -> None:
    """``logits = lm_head(hidden_states)``, then ``logits * logit_scale``, the first dying as the name is bound
    again."""
    t.new("logits_unscaled", tr.activation(rows * V))
    t.new("logits", tr.activation(rows * V))
    t.drop("logits_unscaled")


def _kin(qk_norm: bool) -> llama.Kin:
    return llama.Kin(layer=layer_forward, logits=logits_forward, norm=layer_norm_forward,
                     attention=lambda t, x, generate: attention_forward(t, x, generate, qk_norm))


TRANSIENT = {layout: llama.transient("Cohere", _kin(settings["qk_norm"]), layouts=(layout,))[layout]
             for layout, settings in reader.READER.layout.settings().items()}
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = {layout: llama.transient("Cohere", _kin(settings["qk_norm"]), layouts=(layout,),
                                          attention="sdpa")[layout]
                  for layout, settings in reader.READER.layout.settings().items()}


FAMILY = Family(
    name="cohere",
    reader=reader.READER,
    variants=VARIANTS,
    base="CohereModel",
    # config.json of CohereForAI/c4ai-command-r-v01, c4ai-command-r-08-2024 and c4ai-command-r-plus on the Hugging
    # Face hub [cite: hub-cohereforai], read in copies committed to GitHub (a Rust port's test quoting v01's config;
    # a table of the three configs' sizes, logit_scale and tie_word_embeddings), Command R+'s use_qk_norm as the
    # llama.cpp thread quotes its config [cite: llama.cpp-6033]: the fields that set the count, with model_type,
    # architectures and the context length. Aya 23 and Aya Expanse are model_type cohere too; Command R7B and
    # Command A are cohere2 (another family: sliding-window layers).
    checkpoints=("command-r-v01", "command-r-08-2024", "command-r-plus"),
    first_published="2024-03",
    kind="decoder",
    maker="Cohere",
    headlines=(Headline("CohereForCausalLM", "command-r-v01", "Command R"),
               Headline("CohereForCausalLM", "command-r-plus", "Command R+")),
    example="command-r-v01",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"CohereForCausalLM": "CohereForCausalLM"},
    rounded=CARDS,
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
