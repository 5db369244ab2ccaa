"""Llama 4's language model (Meta 2025: Scout, Maverick), laid out as transformers' ``Llama4TextModel``.

LLaMA's decoder (``derivations.llama``: pre-norm RMSNorm layers, grouped-query attention of ``H`` heads of size
``d_h``, no biases unless ``attention_bias``, a final RMSNorm, an untied head unless ``tie_word_embeddings``) in which
the feed-forward (``feed_forward``) of the layers listed in ``moe_layers`` is a mixture of experts:

- a router (``D`` to ``X`` logits, no bias) that keeps the top ``X_a`` logits of each token, through a sigmoid;
- ``X`` routed experts of inner size ``F_e`` (``intermediate_size``), stored as two 3-D tensors (``gate_up_proj``,
  ``X`` by ``D`` by ``2F_e``; ``down_proj``, ``X`` by ``F_e`` by ``D``);
- one **shared expert** of the same inner size ``F_e`` that every token uses, with no gate of its own.

The other ``L_f`` layers keep a dense gated feed-forward of width ``F`` (``intermediate_size_mlp``): none in Scout,
every other layer in Maverick (``interleave_moe_layer_step`` 2). The queries and keys of the rotary layers go through
an L2 norm with no weight (``use_qk_norm``), and the layers without rotary positions scale their queries by a
temperature: neither holds a parameter. Chunked attention (``attention_chunk_size``) is a mask, not a parameter.

Active per token (:data:`ACTIVE`), as on the Mixtral page: the ``X_a`` routed experts the router picks, the shared
expert, the router and everything else whole, the input embedding included. transformers' forward runs every
expert on every token, each token scaled by its router score (0 where the router did not pick the expert), so the
FLOPs it computes are those of all ``X`` experts: the ``matrix`` of the experts says so.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import Part, column_parallel, feed_forward, group, leaf, linear, row_parallel
from ..contract import Family, Headline
from ..readers import llama4_text as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, F_e, H, K, L, L_f, V, X, X_a, d_h
from . import llama

# ---------------------------------------------------------------------------------------------
# The mixture of experts (Llama4TextMoe): a router, X routed experts, one shared expert
# $$N_\mathrm{moe} = D X + X \cdot 3 D F_e + 3 D F_e$$
# ---------------------------------------------------------------------------------------------


def routed_experts(stored: sympy.Expr = X) -> Part:
    """Llama4TextExperts (``experts``): gate_up_proj (X by D by 2F_e) and down_proj (X by F_e by D), ``stored``
    experts counted. Every expert multiplies every row (transformers' forward: the rows repeated X times, scaled by
    the router's scores, through one batched product), hence X in ``matrix``."""
    which = "every routed expert's" if stored == X else "the X_a routed experts' (the ones the router picks)"
    return group("experts", f"routed experts: {which} gated feed-forward, stacked",
                 # Tensor parallelism cuts each expert's inner width F_e (the plan's packed_rowwise on the last axis of
                 # gate_up_proj, colwise on the middle one of down_proj).
                 column_parallel(leaf("gate_up", f"gate and up projections, {which} (one 3-D tensor)",
                                      stored * 2 * D * F_e, "gate_up_proj", matrix=X * 2 * D * F_e,
                                      shape=(stored, 2, D, F_e)), "inner", F_e),
                 row_parallel(leaf("down", f"down projections, {which} (one 3-D tensor)", stored * F_e * D,
                                   "down_proj", matrix=X * F_e * D, shape=(stored, 1, F_e, D)), "inner", F_e),
                 path="experts")


router = linear("router", "router: one logit per routed expert, no bias (top-k, then a sigmoid)", D, X, False,
                "router")
# One routed expert: a gated feed-forward of inner size F_e, no biases: 3 D F_e.
expert = feed_forward(D, F_e, bias=False, gate="gate_proj", up="up_proj", down="down_proj", name="expert",
                      label="one routed expert: a gated feed-forward, no biases")
# Llama4TextMLP at intermediate_size: every token runs through it, ungated.
shared_expert = feed_forward(D, F_e, bias=False, gate="gate_proj", up="up_proj", down="down_proj",
                             name="shared_expert", path="shared_expert",
                             label="shared expert: a gated feed-forward every token uses")


def sparse_moe(stored: sympy.Expr = X) -> Part:
    """Llama4TextMoe (``feed_forward`` of a layer with experts), ``stored`` routed experts counted."""
    return group("moe", "mixture of experts with a shared expert", router, routed_experts(stored), shared_expert,
                 path="feed_forward", kind="feed-forward", symbol=r"N_{\mathrm{moe}}")


# Llama4TextMLP at intermediate_size_mlp, in the layers without experts.
dense_feed_forward = feed_forward(D, F, bias=False, gate="gate_proj", up="up_proj", down="down_proj",
                                  path="feed_forward", label="gated (SwiGLU) feed-forward of width F")


def self_attention(bias: bool = False) -> Part:
    """Llama4TextAttention (``self_attn``): LLaMA's four projections (biases on all four with attention_bias); its
    L2 norm of queries and keys has no weight."""
    return llama.self_attention(bias)


def layers(attention_bias: bool = False, stored: sympy.Expr = X) -> tuple[Part, Part]:
    """Llama4TextDecoderLayer, both kinds in one module list: the L_f dense ones and the L - L_f with experts, each
    selecting its copies by the experts it has (or lacks)."""
    attention = self_attention(attention_bias)
    dense = llama.decoder_layer(attention=attention, mlp=dense_feed_forward)
    sparse = llama.decoder_layer(attention=attention, mlp=sparse_moe(stored), mlp_label="the experts")
    return (replace(dense, name="dense_layer", label="decoder layer with a dense feed-forward", repeat=L_f,
                    copies="!feed_forward.experts", symbol=r"N_{\mathrm{dense}}"),
            replace(sparse, name="layer", label="decoder layer with experts", repeat=L - L_f,
                    copies="feed_forward.experts"))


def architectures(attention_bias: bool = False, tied: bool = False, stored: sympy.Expr = X) -> dict[str, Part]:
    """Llama4TextModel and Llama4ForCausalLM (the classes transformers maps llama4_text to), ``stored`` routed
    experts counted."""
    suffix = "" if stored == X else ": active per token"
    dense, sparse = layers(attention_bias, stored)
    body = "Llama4TextModel"
    model = group(body, f"{body}: embeddings, layers, final RMSNorm{suffix}", llama.token_embeddings, dense, sparse,
                  llama.final_norm, symbol=rf"N_{{\mathrm{{{body}}}}}")
    causal = group("Llama4ForCausalLM", f"with the language-model head{suffix}", replace(model, path="model"),
                   llama.lm_head(tied), symbol=r"N_{\mathrm{Llama4ForCausalLM}}")
    classes = {body: model, "Llama4ForCausalLM": causal}
    if stored == X:
        return classes
    return {name: replace(part, symbol=rf"N_{{\mathrm{{{name}}}}}^{{\mathrm{{active}}}}") for name, part in classes.items()}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(lambda **layout: architectures(stored=X_a, **layout))
ACTIVE = ACTIVE_VARIANTS[""]
moe = sparse_moe()
dense_layer, layer = layers()
attention_block = layer.child("attention")

idle_experts = replace(leaf("idle_experts", "the routed experts a token does not use, in every layer with experts",
                            (L - L_f) * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["Llama4ForCausalLM"].total - ACTIVE["Llama4ForCausalLM"].total
                    - idle_experts.total) == 0
assert sympy.expand(moe.total - D * X - (X + 1) * 3 * D * F_e) == 0
# The other convention: the input embedding left out (a token reads one row of it).
active_without_embedding = leaf("active_without_embedding", "active per token, without the input embedding",
                                ACTIVE["Llama4ForCausalLM"].total - V * D)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: "17B active" (the language model's); the totals (109B, 400B) are the whole
# checkpoints', vision tower included (the composite llama4 reconciles them)
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-meta-llama4", "card", "Meta", "Llama 4 model cards and config.json of "
           "meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E (“17B (Activated) 109B (Total)”, "
           "“17B (Activated) 400B (Total)”)", "Hugging Face, meta-llama", 2025,
           "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E", read="2026-11-26",
           short="the Llama 4 model cards"),
    Source("meta-llama4-blog", "card", "Meta", "The Llama 4 herd: The beginning of a new era of natively multimodal "
           "AI innovation", "ai.meta.com", 2025, "https://ai.meta.com/blog/llama-4-multimodal-intelligence/",
           read="2026-11-26", short="Meta's Llama 4 post"),
)

_CARD = Citation("hub-meta-llama4", "the model cards' table of the models, “17B (Activated)”")
_ACTIVE = (ACTIVE["Llama4ForCausalLM"], active_without_embedding)
CARDS_ACTIVE = tuple(
    Rounded(f"{name}_active", 17 * 10**9, f"Llama 4 {name.title()}, “17B (Activated)”", _CARD, checkpoint, _ACTIVE,
            precision=10**9, printed="17B")
    for name, checkpoint in (("scout", "llama-4-scout-17b-16e-text"), ("maverick", "llama-4-maverick-17b-128e-text")))


FAMILY = Family(
    name="llama4_text",
    reader=reader.READER,
    variants=VARIANTS,
    base="Llama4TextModel",
    # The text_config of meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E on the Hugging Face hub
    # [cite: hub-meta-llama4] as llama4_text configs: the fields that set the count, with model_type,
    # architectures (Llama4ForCausalLM: the checkpoints' own is the composite's), the context length, the chunk size,
    # use_qk_norm and the layer lists. Scout's as a public copy of its config prints it (moe_layers 0 to 47,
    # no_rope_layers); Maverick's as NVIDIA TensorRT-LLM's tests reproduce it (LLAMA_4_MAVERICK_TWO_LAYER_CONFIG in
    # tests/unittest/_torch/modeling/test_modeling_llama.py, its 48 layers restored and the NoPE interval it adds
    # removed), whose moe_layers and no_rope_layers the config class derives (interleave_moe_layer_step 2: the odd
    # layers hold experts). attn_temperature_tuning (4 in both, which transformers 5.23's strict config refuses: it
    # is typed bool) is left out: it sets no size.
    checkpoints=("llama-4-scout-17b-16e-text", "llama-4-maverick-17b-128e-text"),
    first_published="2025-04",
    kind="decoder",
    maker="Meta",
    headlines=(
        Headline("Llama4ForCausalLM", "llama-4-maverick-17b-128e-text", "Maverick's language model, in total"),
        Headline(
            "ACTIVE.Llama4ForCausalLM",
            "llama-4-maverick-17b-128e-text",
            "Maverick's language model, per token",
            convention="Active per token: in each layer with experts the routed experts the router picks "
            "(num_experts_per_tok of them), the shared expert and the router, and every tensor outside the experts "
            "whole, the input embedding included (as on the Mixtral page).",
        ),
    ),
    example="llama-4-scout-17b-16e-text",
    table_symbols=(L, L_f, D, H, K, d_h, F, F_e, X, X_a, V),
    table_columns={
        "Llama4ForCausalLM": "Llama4ForCausalLM",
        "ACTIVE.Llama4ForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
    },
    rounded=CARDS_ACTIVE,
    minimum={X_a: 0, L_f: 0},
    active=ACTIVE_VARIANTS,
    sources=SOURCES,
)
