"""OLMo 2 (OLMo et al. 2024, "2 OLMo 2 Furious"), laid out as transformers' ``Olmo2Model``.

LLaMA's tensors (``derivations.llama``: grouped-query attention without biases, a gated SwiGLU feed-forward, RMSNorm,
an untied head) with the norms moved and two added. No norm comes before a sublayer: each layer normalizes the
attention's output (``post_attention_layernorm``) and the feed-forward's output (``post_feedforward_layernorm``)
before adding them to the residual stream. The queries and keys are normalized by an RMSNorm over the whole
projected width (``q_norm`` of H d_h, ``k_norm`` of K d_h), before the heads are split: one scale a coordinate,
not one shared by every head as in Qwen3. OLMo 3 (``derivations.olmo3``) holds the same tensors.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..components import Part, group, rms_norm
from ..contract import Family, Headline
from ..readers import olmo2 as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, H, K, L, V, b, d_h, s, u
from .. import transient as tr
from . import llama


# ---------------------------------------------------------------------------------------------
# Attention: LLaMA's, with an RMSNorm of the whole query width and one of the whole key width
# $$N_\mathrm{attn} = D H d_h + 2 D K d_h + H d_h D + H d_h + K d_h$$
# ---------------------------------------------------------------------------------------------

# Olmo2Attention: q_norm(q_proj(x)) and k_norm(k_proj(x)), then the view into heads.
width_norms = (rms_norm("query_norm", H * d_h, "q_norm", label="RMSNorm of the queries (all heads: H d_h scales)"),
               rms_norm("key_norm", K * d_h, "k_norm", label="RMSNorm of the keys (all heads: K d_h scales)"))


def self_attention(bias: bool = False) -> Part:
    """Olmo2Attention (``self_attn``): LLaMA's four projections (all four biased with ``attention_bias``) and the
    query and key norms over the whole width."""
    plain = llama.self_attention(bias)
    return replace(plain, children=plain.children + width_norms,
                   label="grouped-query self-attention with query and key norms" + (", biases" if bias else ""))


# $$x \leftarrow x + \mathrm{RMSNorm}(\mathrm{Attn}(x)),\quad x \leftarrow x + \mathrm{RMSNorm}(\mathrm{FFN}(x))$$
def decoder_layer(attention_bias: bool = False) -> Part:
    """Olmo2DecoderLayer (``layers.<i>``): attention, its output's RMSNorm, residual; feed-forward, its output's
    RMSNorm, residual. No input norm.
    $$N_\\mathrm{layer} = D H d_h + 2 D K d_h + H d_h D + (H + K) d_h + D + 3 D F + D$$"""
    return group("layer", "decoder layer",
                 self_attention(attention_bias),
                 rms_norm("attention_output_norm", D, "post_attention_layernorm",
                          label="RMSNorm of the attention's output"),
                 llama.gated_feed_forward(),
                 rms_norm("feed_forward_output_norm", D, "post_feedforward_layernorm",
                          label="RMSNorm of the feed-forward's output"),
                 path="layers", symbol=r"N_{\mathrm{layer}}")


layer = decoder_layer()
attention_block = layer.child("attention")
# What OLMo 2's two norms of the queries and keys add to a LLaMA layer of the same sizes (which has as many norms).
qk_norms = group("qk_norms", "the RMSNorms of the queries and keys", *width_norms)

TASKS = ("Model", "ForCausalLM", "ForSequenceClassification")


def architectures(attention_bias: bool = False, tied: bool = False, prefix: str = "Olmo2") -> dict[str, Part]:
    """Every class of the model_type (``Olmo2``, and ``Olmo3``, which holds the same tensors): LLaMA's classes around
    OLMo 2's layer; no token classifier, no span head."""
    every = llama.architectures(prefix, tied=tied, layer=decoder_layer(attention_bias), qa_prefix="model")
    return {f"{prefix}{task}": every[f"{prefix}{task}"] for task in TASKS}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

final_norm = llama.final_norm
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings, no head)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-allenai-olmo2", "config", "Allen Institute for AI", "OLMo 2 checkpoints: config.json and model cards "
           "of OLMo-2-1124-7B, OLMo-2-1124-13B and OLMo-2-0325-32B", "Hugging Face, allenai", 2024,
           "https://huggingface.co/allenai", read="2026-11-26", short="allenai on the Hugging Face hub"),
    Source("olmo2-paper", "paper", "Team OLMo", "2 OLMo 2 Furious", "arXiv:2501.00656", 2024,
           "https://arxiv.org/abs/2501.00656", short="Team OLMo 2024"),
)

_CARD = Citation("hub-allenai-olmo2")
_CAUSAL = ARCHITECTURES["Olmo2ForCausalLM"]

# The names the releases go by: names, not roundings.
NAMES = tuple(Rounded(f"name_{size}", billions * 10**9, f"OLMo 2 {size.upper()}", _CARD, checkpoint, (_CAUSAL,),
                      precision=10**9, printed=f"{billions}B")
              for size, billions, checkpoint in (("7b", 7, "olmo-2-7b"), ("13b", 13, "olmo-2-13b"),
                                                 ("32b", 32, "olmo-2-32b")))


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_olmo2.py, statement by statement
# ---------------------------------------------------------------------------------------------

def forward_rms_norm(t: tr.Timeline, name: str, width, rows=None) -> str:
    """Olmo2RMSNorm.forward: LLaMA's RMSNorm (derivations.transient.rms_normed) but for its last statement,
    ``(self.weight * hidden_states).to(input_dtype)``: the weight multiplies the fp32 normed tensor (a product in
    fp32), which is then cast (in fp32 the product is the result itself)."""
    n = tr.rms_normed(t, name, width, b * s if rows is None else rows)
    t.new(f"{name}.weighted", tr.upcast(n))  # below fp32 a product of its own, as big as an upcast
    t.new(name, tr.activation(n))  # the cast below fp32; in fp32, the product itself
    t.drop(f"{name}.weighted")
    t.drop(f"{name}.normed", f"{name}.variance")  # the function returns
    return name


def rotary(t: tr.Timeline, prefix: str = "", exists=1) -> tuple[str, ...]:
    """Olmo2RotaryEmbedding.forward: LLaMA's angles, cosine and sine (derivations.transient.rotary), not cast to the
    activation dtype: the layers are given them in fp32. ``exists``: 0 where the call is not made (OLMo 3's second
    kind of layer, absent)."""
    t.new(f"{prefix}positions_f", exists * tr.FP32 * s)
    t.new(f"{prefix}freqs", exists * tr.FP32 * s * d_h / 2)
    t.drop(f"{prefix}positions_f")
    t.new(f"{prefix}emb", exists * tr.FP32 * s * d_h)
    for name in ("cos", "sin"):
        t.new(f"{prefix}{name}_raw", exists * tr.FP32 * s * d_h)
        t.new(f"{prefix}{name}", exists * tr.FP32 * s * d_h)  # emb.cos() * attention_scaling
        t.drop(f"{prefix}{name}_raw")
    t.drop(f"{prefix}freqs", f"{prefix}emb")
    return (f"{prefix}cos", f"{prefix}sin")


def rotate(t: tr.Timeline, name: str, elements) -> str:
    """``(x * cos) + (rotate_half(x) * sin)`` with the fp32 cosine and sine: both products, and their sum, in fp32
    (rotate_half, ``torch.cat((-x2, x1))``, in the activation dtype)."""
    t.new(f"{name}.cos", tr.FP32 * elements)
    t.new(f"{name}.neg", tr.activation(elements / 2))
    t.new(f"{name}.half", tr.activation(elements))
    t.drop(f"{name}.neg")
    t.new(f"{name}.sin", tr.FP32 * elements)
    t.drop(f"{name}.half")
    t.new(name, tr.FP32 * elements)
    t.drop(f"{name}.cos", f"{name}.sin")
    return name


def attention_forward(t: tr.Timeline, x: str, generate: bool) -> tuple[str, tuple[str, str]]:
    """Olmo2Attention.forward on ``x``: ``q_norm(q_proj(x))`` and ``k_norm(k_proj(x))`` over the whole width (the
    product dying with its norm), ``v_proj(x)``; apply_rotary_pos_emb in fp32, then ``q_embed.to(q_type)`` and
    ``k_embed.to(k_type)`` (copies below fp32, the fp32 sums dying as it returns; in fp32 the sums themselves); with a
    cache, k and v go into it; eager attention; o_proj. As llama.attention_forward otherwise."""
    rows = b * s

    def projected(name: str, heads) -> str:
        product = tr.linear(t, name, rows, heads * d_h)
        normed = forward_rms_norm(t, f"{name}_normed", heads * d_h)
        t.drop(product)
        return normed

    q, k, v = projected("q", H), projected("k", K), tr.linear(t, "v", rows, K * d_h)
    for name, heads in (("q", H), ("k", K)):
        rotate(t, f"{name}_embed", rows * heads * d_h)
    for name, heads in (("q", H), ("k", K)):
        t.new(f"{name}_cast", tr.downcast(rows * heads * d_h))
    for name in ("q", "k"):
        t.split(f"{name}_embed", **{f"{name}_embed_fp32": u, f"{name}_rot_fp32": 1 - u})
    t.drop("q_embed_fp32", "k_embed_fp32")  # apply_rotary_pos_emb returns
    q_rot, k_rot = t.join("q_rot", "q_cast", "q_rot_fp32"), t.join("k_rot", "k_cast", "k_rot_fp32")
    return llama.rotated_attention_forward(t, q, k, q_rot, k_rot, v, generate)


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """Olmo2DecoderLayer.forward on ``x`` (its caller's): the attention on ``x`` itself, its output normed, residual
    add; the feed-forward, its output normed, residual add. The attention weights (``_``) live until the layer
    returns."""
    stream = tr.activation(b * s * D)
    attended, weights = kin.attention(t, x, generate)
    normed = kin.norm(t, "post_attention_norm", D)
    t.drop(attended)
    t.new("residual", stream)
    t.drop(normed)
    mlp = kin.mlp(t, "residual")
    normed = kin.norm(t, "post_feedforward_norm", D)
    t.drop(mlp)
    t.new(out, stream)
    t.drop(normed, "residual", *weights)
    return out


KIN = llama.Kin(layer=layer_forward, norm=forward_rms_norm, attention=attention_forward, rotary=rotary)
TRANSIENT = llama.transient("Olmo2", KIN, layouts=VARIANTS)
# ... under sdpa attention (transformers' default). A sliding_window in config.json (not a field of the config class)
# makes transformers' cache keep a window though the attention never slides (the reader's windows, which the cache
# follows); under sdpa the derived masks would follow that window: such a config is refused here.
TRANSIENT_SDPA = llama.transient("Olmo2", KIN, layouts=VARIANTS, attention="sdpa",
                                 requires=(("sliding_window", None, (None,)),))


FAMILY = Family(
    name="olmo2",
    reader=reader.READER,
    variants=VARIANTS,
    base="Olmo2Model",
    # config.json of allenai/OLMo-2-1124-7B, OLMo-2-1124-13B and OLMo-2-0325-32B on the Hugging Face hub
    # [cite: hub-allenai-olmo2]: 13B as committed beside its weights' index in mauer4/Attention-From-Scratch
    # (weights/allenai/OLMo-2-1124-13B/config.json); 7B as NVIDIA's Megatron-Bridge tests mirror it
    # ("Mirror of allenai/OLMo-2-1124-7B/config.json"); 32B as MLC LLM's model presets copy it (mlc-ai/mlc-llm,
    # python/mlc_llm/model/model_preset.py, "olmo2_32b", written by transformers 4.49.0), whose sizes OLMo-core's
    # olmo2_32B also gives.
    checkpoints=("olmo-2-7b", "olmo-2-13b", "olmo-2-32b"),
    first_published="2024-11",
    kind="decoder",
    maker="AI2",
    headlines=(Headline("Olmo2ForCausalLM", "olmo-2-7b", "7B"), Headline("Olmo2ForCausalLM", "olmo-2-13b", "13B"),
               Headline("Olmo2ForCausalLM", "olmo-2-32b", "32B")),
    example="olmo-2-7b",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"Olmo2ForCausalLM": "Olmo2ForCausalLM", "Olmo2ForCausalLM.Olmo2Model.layer": "all layers"},
    rounded=NAMES,
    layout_free=("non_embedding", "qk_norms"),
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
