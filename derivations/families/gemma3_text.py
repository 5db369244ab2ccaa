"""Gemma 3's language model (Gemma Team 2025), laid out as transformers' ``Gemma3TextModel``.

Gemma 2's layer (``derivations.gemma2``: four RMSNorms, GeGLU, head size 256 or 128) with an RMSNorm on each
head's queries and on each head's keys (``q_norm``, ``k_norm``: ``d_h`` weights each, shared by the heads), in
place of Gemma 2's soft-capping. Five local (sliding-window) layers for each global one: masks, no parameter.
The 1B model is text only; the 4B, 12B and 27B add a vision encoder (SigLIP) and a projection, which this page
does not count: their language model is ``Gemma3ForCausalLM`` on the config's ``text_config``.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import gemma, gemma2
from ..claims import Rounded
from ..components import Part, group, rms_norm
from ..readers import gemma3_text as reader
from ..sources import Citation
from . import llama
from .. import transient as tr
from ..symbols import D, F, H, K, L, V, b, d_h, f_a, f_m, g_kv, s


# The query and key norms: one scale of d_h each, applied to every head.
head_norms = (replace(rms_norm("query_norm", d_h, "q_norm", label="RMSNorm of each query head (one scale of d_h)"),
                      note="scales by 1 + w"),
              replace(rms_norm("key_norm", d_h, "k_norm", label="RMSNorm of each key head (one scale of d_h)"),
                      note="scales by 1 + w"))


def self_attention(bias: bool = False) -> Part:
    plain = gemma.self_attention(bias)
    return replace(plain, children=plain.children + head_norms, label="self-attention with query and key norms")


def decoder_layer(attention_bias: bool = False) -> Part:
    """Gemma3DecoderLayer (``layers.<i>``): Gemma 2's layer around Gemma 3's attention.
    $$N_\\mathrm{layer} = 4D + D H d_h + 2 D K d_h + H d_h D + 2 d_h + 3 D F$$"""
    plain = gemma2.decoder_layer(attention_bias)
    return replace(plain, children=tuple(self_attention(attention_bias) if c.name == "attention" else c
                                         for c in plain.children))


layer = decoder_layer()
attention_block = layer.child("attention")


def architectures(attention_bias: bool = False, untied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """Gemma3TextModel, Gemma3ForCausalLM and Gemma3TextForSequenceClassification: the classes transformers builds
    for a gemma3_text config (no token classifier, no span head)."""
    return gemma.classes("Gemma3", "Gemma3TextModel", "Gemma3ForCausalLM", decoder_layer(attention_bias),
                         untied=untied, no_token_bias=no_token_bias, tasks=("ForSequenceClassification",),
                         sequence="Gemma3TextForSequenceClassification")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)


embedding_parameters = gemma.embedding_parameters
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings; the head is tied)",
                      replace(layer, repeat=L), gemma.final_norm, symbol=r"N_{\text{non-emb}}")


# The report's Table 1, in millions: embedding and non-embedding parameters of each size (and the vision
# encoder's 417M for the three multimodal sizes, not counted here).
_TABLE_1 = Citation("gemma3-2025", "Table 1, “Embedding Parameters” and “Non-embedding Parameters” (millions)")
PAPER = tuple(
    claim for checkpoint, size, embedding, rest in (
        ("gemma-3-1b", "1B", 302, 698), ("gemma-3-4b", "4B", 675, 3_209), ("gemma-3-12b", "12B", 1_012, 10_759),
        ("gemma-3-27b", "27B", 1_416, 25_600))
    for claim in (
        Rounded(f"paper_{size.lower()}_embedding", embedding * 10**6, f"Gemma 3 {size}, embedding parameters",
                _TABLE_1, checkpoint, (embedding_parameters,), printed=f"{embedding:,}M"),
        Rounded(f"paper_{size.lower()}_non_embedding", rest * 10**6, f"Gemma 3 {size}, non-embedding parameters",
                _TABLE_1, checkpoint, (non_embedding,), printed=f"{rest:,}M")))


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): Gemma 2's, with each head's query and key normed, no softcap
# unless set, and rotary embeddings for each kind of layer present
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, x: str, generate: bool) -> tuple[tuple[str, ...], tuple[str, str]]:
    """Gemma3Attention.forward: q, k and v projected, then q and k normed per head (Gemma's RMSNorm; each product
    dies with its name bound again), rotated; with a cache (generate) k and v go into it; eager attention (scores
    softcapped where attn_logit_softcapping is set, f_a 0); o_proj."""
    rows = b * s
    q, k, v = (tr.linear(t, "q", rows, H * d_h), tr.linear(t, "k", rows, K * d_h), tr.linear(t, "v", rows, K * d_h))
    q_normed = tr.gemma_rms_norm(t, "q_normed", d_h, rows=rows * H)
    t.drop(q)
    k_normed = tr.gemma_rms_norm(t, "k_normed", d_h, rows=rows * K)
    t.drop(k)
    q_rot, k_rot = tr.rotate(t, "q_rot", q_normed, rows * H * d_h), tr.rotate(t, "k_rot", k_normed, rows * K * d_h)
    t.drop(q_normed, k_normed)
    if generate:
        t.drop(k_rot, v)
    context, weights = tr.attend(t, q_rot, k_rot, v, "mask", H, d_h, g_kv, 1 - f_a)
    out = tr.linear(t, "o", rows, D)
    t.drop(*context)
    t.drop(q_rot, *(() if generate else (k_rot, v)))
    return out, weights


def rotary(t: tr.Timeline) -> tuple[str, ...]:
    """Gemma3TextModel.forward's rotary embeddings, one pair for each kind of layer its layer_types hold: a second
    pair where both kinds are (f_m 1)."""
    return (*tr.rotary(t, d_h), *tr.rotary(t, d_h, "second_", exists=f_m))


KIN = replace(gemma2.KIN, attention=attention_forward, rotary=rotary)
# A causal model (not the bidirectional embedding variant); softcaps unset by default (f_a, f_b 1).
REQUIRES = (("hidden_activation", "gelu_pytorch_tanh", ("gelu_pytorch_tanh", "gelu")),
            ("use_bidirectional_attention", False, (False, None)))
FLAGS = (("f_a", "attn_logit_softcapping", None, None), ("f_b", "final_logit_softcapping", None, None))


def renamed(by_layout: dict) -> dict:
    """transformers names the causal LM Gemma3ForCausalLM (not Gemma3TextForCausalLM)."""
    return {layout: {"Gemma3TextModel": by_class["Gemma3TextModel"], "Gemma3ForCausalLM": by_class[
        "Gemma3TextForCausalLM"]} for layout, by_class in by_layout.items()}


TRANSIENT = renamed(llama.transient("Gemma3Text", KIN, layouts=VARIANTS, requires=REQUIRES, flags=FLAGS))
# ... under sdpa attention (transformers' default), which refuses a softcap of the scores (sdpa_attention_forward
# raises): the program requires none.
# Gemma3TextModel builds its sliding-window mask whatever its layers are, with sliding_window (4096 by default).
TRANSIENT_SDPA = renamed(llama.transient("Gemma3Text", KIN, layouts=VARIANTS, attention="sdpa", flags=FLAGS,
                                         requires=REQUIRES + (("attn_logit_softcapping", None, (None,)),),
                                         window=("sliding_window", 4096)))


FAMILY = Family(
    name="gemma3_text",
    reader=reader.READER,
    variants=VARIANTS,
    base="Gemma3TextModel",
    # google/gemma-3-1b-pt's config.json (model_type gemma3_text) and the text_config of google/gemma-3-4b-pt, -12b-pt
    # and -27b-pt [cite: hub-google-gemma], with the fields those text_configs leave out at Gemma3TextConfig's
    # defaults, as transformers fills them (vocab_size 262,208; 8 heads, 4 key/value heads, head_dim 256 for the 4B).
    checkpoints=("gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b"),
    first_published="2025-03",
    kind="decoder",
    maker="Google",
    headlines=(
        Headline("Gemma3ForCausalLM", "gemma-3-1b", "1B"),
        Headline("Gemma3ForCausalLM", "gemma-3-27b", "27B, its language model"),
    ),
    example="gemma-3-1b",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"Gemma3ForCausalLM": "Gemma3ForCausalLM", "non_embedding": "non-embedding"},
    rounded=PAPER,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
