"""Phi-3 and Phi-4 (Abdin et al. 2024), laid out as transformers' ``Phi3Model``.

LLaMA's decoder (``derivations.llama``: RMSNorm, grouped-query attention, RMSNorm, SwiGLU feed-forward, no
biases) with its matrices fused: the query, key and value projections are one matrix ``qkv_proj`` (D by
H d_h + 2 K d_h), the gate and up projections one matrix ``gate_up_proj`` (D by 2F). A fused matrix holds
exactly the parameters of the matrices it stacks; the tree names the tensors transformers has. LongRoPE
scaling (``rope_scaling``, the 128k models) and a partial rotary factor (Phi-4-mini) rescale or restrict the
rotation: no parameter. Phi-4 and Phi-4-mini use the same class; Phi-3-small is another model_type
(``phi3small``, its own code, not in transformers).
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import Part, Shard, attention_products, column_parallel, group, linear, row_parallel
from ..readers import phi3 as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, V, b, d_h, d_r, g_kv, s
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# Attention: one fused matrix for q, k and v
# $$N_\mathrm{attn} = D (H d_h + 2 K d_h) + H d_h D$$
# ---------------------------------------------------------------------------------------------

self_attention = replace(group(
    "attention", "grouped-query self-attention, q, k and v fused",
    # Tensor parallelism: the fused map's query rows by query heads, its key and value rows by key/value heads.
    replace(linear("qkv", "query, key and value projections, fused (qkv_proj): D to H d_h + 2 K d_h", D,
                   H * d_h + 2 * K * d_h, False, "qkv_proj"),
            shards=(Shard("heads", H, 0, D * H * d_h), Shard("kv_heads", K, 0, 2 * D * K * d_h))),
    row_parallel(linear("output", "output projection", H * d_h, D, False, "o_proj"), "heads", H),
    # The cache keeps the K key heads and K value heads of each token (grouped-query: K, not H), each device its own.
    path="self_attn", kind="attention", ops=attention_products(H, d_h, d_h, causal=True), cache=2 * K * d_h),
    cache_shard=Shard("kv_heads", K))

# $$N_\mathrm{ffn} = D \cdot 2F + F D$$  gate and up fused in one D-by-2F matrix
gated_feed_forward = group(
    "feed_forward", "gated (SwiGLU) feed-forward, gate and up fused",
    column_parallel(linear("gate_up", "gate and up projections, fused (gate_up_proj): D to 2F", D, 2 * F, False,
                           "gate_up_proj"), "inner", F),
    row_parallel(linear("down", "down projection", F, D, False, "down_proj"), "inner", F),
    path="mlp", kind="feed-forward")

# The fused matrices hold what LLaMA's separate ones hold.
assert (self_attention.total - llama.self_attention().total).expand() == 0
assert (gated_feed_forward.total - llama.gated_feed_forward().total).expand() == 0

layer = llama.decoder_layer(attention=self_attention, mlp=gated_feed_forward)
attention_block = self_attention


def architectures(tied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """Phi3Model, Phi3ForCausalLM, Phi3ForSequenceClassification and Phi3ForTokenClassification: LLaMA's
    classes around Phi-3's layer (transformers defines no span head for Phi-3)."""
    classes = llama.architectures("Phi3", tied=tied, no_token_bias=no_token_bias, qa_prefix="model", layer=layer)
    return {name: part for name, part in classes.items() if not name.endswith("QuestionAnswering")}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

Phi3ForCausalLM_tied = VARIANTS["tied"]["Phi3ForCausalLM"]

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.phi3.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# config.json of microsoft/Phi-3-mini-4k-instruct, Phi-3-medium-4k-instruct, Phi-3.5-mini-instruct, phi-4 and
# Phi-4-mini-instruct on the Hugging Face hub [cite: hub-microsoft-phi]: the fields that set the count (sizes,
# vocabulary, tie_word_embeddings), with model_type, architectures, the context length and Phi-4-mini's partial
# rotary factor; the rope scaling factors set no parameter. Phi-3-mini-128k has the sizes of the 4k model.
CHECKPOINTS = ("phi-3-mini-4k", "phi-3-medium-4k", "phi-3.5-mini", "phi-4", "phi-4-mini")
TIED_CHECKPOINTS = ("phi-4-mini",)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_PHI3 = Citation("abdin2024phi3", "abstract: “phi-3-mini, a 3.8 billion parameter language model”, and “7B and 14B "
                                  "models ... called phi-3-small and phi-3-medium”")
_PHI4 = Citation("abdin2024phi4", "abstract: “phi-4, a 14-billion parameter language model”")
_PHI4_MINI = Citation("microsoft2025phi4mini", "abstract: “Phi-4-Mini, a 3.8-billion-parameter language model”")
_PHI35 = Citation("hub-microsoft-phi", "Phi-3.5-mini-instruct model card: “3.8B parameters”")
_CAUSAL = ARCHITECTURES["Phi3ForCausalLM"]

# The papers' and the card's sizes, each the exact count rounded (the page's table of them).
ROUNDED = (
    Rounded("mini", 3_800_000_000, "Phi-3-mini", _PHI3, "phi-3-mini-4k", (_CAUSAL,), precision=10**8, printed="3.8B"),
    Rounded("medium", 14_000_000_000, "Phi-3-medium", _PHI3, "phi-3-medium-4k", (_CAUSAL,), precision=10**9,
            printed="14B"),
    Rounded("mini_3_5", 3_800_000_000, "Phi-3.5-mini", _PHI35, "phi-3.5-mini", (_CAUSAL,), precision=10**8,
            printed="3.8B"),
    Rounded("phi_4", 14_000_000_000, "Phi-4", _PHI4, "phi-4", (_CAUSAL,), precision=10**9, printed="14B"),
    Rounded("phi_4_mini", 3_800_000_000, "Phi-4-mini", _PHI4_MINI, "phi-4-mini", (Phi3ForCausalLM_tied,),
            precision=10**8, printed="3.8B"),
)

# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_phi3.py, LLaMA's (and Mistral's mask)
# but for its fused projections
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, x: str, generate: bool) -> tuple[tuple[str, ...], tuple[str, str]]:
    """Phi3Attention.forward: one qkv_proj product, sliced into q, k and v (views that keep it whole until the
    function returns, ``qkv`` being a local); the rotary part of q and k rotated; with a cache (generate) k and v go into it; eager
    attention; o_proj."""
    rows = b * s
    qkv = tr.linear(t, "qkv", rows, (H + 2 * K) * d_h)
    # apply_rotary_pos_emb: the rotary part d_r of each head rotated, then torch.cat with the rest (empty where
    # the whole head rotates: a copy all the same).
    q_rot, k_rot = tr.rotate_part(t, "q_rot", rows * H, d_h, d_r), tr.rotate_part(t, "k_rot", rows * K, d_h, d_r)
    if generate:
        t.drop(k_rot)  # key_states, value_states = past_key_values.update(...)
    # The rotated query is a torch.cat, laid out heads by tokens: sdpa's output is too (derivations.transient).
    context, weights = tr.attend(t, q_rot, k_rot, "v", "mask", H, d_h, g_kv, heads_first=1)
    out = tr.linear(t, "o", rows, D)
    t.drop(*context)
    t.drop(q_rot, *(() if generate else (k_rot,)), qkv)  # the function returns
    return out, weights


def mlp_forward(t: tr.Timeline, x: str) -> str:
    """Phi3MLP.forward: gate_up_proj's one product, chunked into gate and up (views of it, ``gate`` a local until
    the function returns); ``up * act(gate)``; down_proj."""
    rows = b * s
    gate_up = tr.linear(t, "gate_up", rows, 2 * F)
    t.new("act", tr.activation(rows * F))
    t.new("product", tr.activation(rows * F))
    t.drop("act")
    out = tr.linear(t, "down", rows, D)
    t.drop("product", gate_up)
    return out


# Rotary angles without rescaling (rope_scaling null): the path the program follows; the rotary part of a head,
# d_r = int(d_h partial_rotary_factor), even (Phi-4-mini rotates three quarters of each head).
KIN = llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t, sliding),), attention=attention_forward, mlp=mlp_forward,
                rotary_width=d_r)
ASSUMES = {"requires": (("rope_scaling", None, (None,)),), "derived": (("d_r", "partial_rotary_factor", 1.0, "d_h"),)}
TRANSIENT = llama.transient("Phi3", KIN, layouts=VARIANTS, windowed=True, **ASSUMES)
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = llama.transient("Phi3", KIN, layouts=VARIANTS, windowed=True, attention="sdpa", **ASSUMES)


FAMILY = Family(
    name="phi3",
    reader=reader.READER,
    variants=VARIANTS,
    base="Phi3Model",
    checkpoints=CHECKPOINTS,
    first_published="2024-04",
    kind="decoder",
    maker="Microsoft",
    headlines=(
        Headline("Phi3ForCausalLM", "phi-3-mini-4k", "Phi-3-mini"),
        Headline("Phi3ForCausalLM", "phi-4", "Phi-4"),
    ),
    example="phi-3-mini-4k",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"Phi3ForCausalLM": "Phi3ForCausalLM", "Phi3ForCausalLM.Phi3Model.layer": "all layers"},
    rounded=ROUNDED,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
