"""Mixtral (Jiang et al. 2024), composed from the components, laid out as transformers' ``MixtralModel``.

Mistral 7B's decoder (RMSNorm with a scale only, grouped-query attention with ``K`` key/value heads,
rotary positions that learn nothing, no biases anywhere, an untied head) in which every feed-forward
is a sparse mixture of experts: a router (``D`` to ``X`` logits, no bias) and ``X`` gated
feed-forwards, of which each token uses the ``X_a`` that the router ranks highest.

transformers 5.x stores the experts of a layer in two 3-D tensors, ``mlp.experts.gate_up_proj``
(``X`` by ``2F`` by ``D``: every expert's gate and up projections) and ``mlp.experts.down_proj``
(``X`` by ``D`` by ``F``), and the router as ``mlp.gate.weight``. The tree follows that layout, so that
the tests compare it node by node with the reference implementation: ``X`` is a factor of the two
stacked leaves, not a repeat over a list of modules. The layout of Mistral's reference code and of
transformers 4.x (``block_sparse_moe.experts.<i>.w1 / w2 / w3``, one module per expert) is
:data:`moe_per_expert`, built with ``components.mixture_of_experts``; the two count the same, and the
tests prove it.

Active parameters per token (:data:`ACTIVE`): the same tree with only ``X_a`` experts' tensors, the
router whole (it scores every expert) and everything else whole. NOTE: the input embedding is counted
as active, as Mistral AI's "12.9B" counts it (a lookup reads one row, but the convention keeps the
table); :data:`active_without_embedding` leaves it out, and the page shows both.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import llama, mistral
from ..claims import Miscount, Rounded
from ..components import (Part, column_parallel, feed_forward, group, leaf, linear, mixture_of_experts,
                          row_parallel)
from ..readers import mixtral as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, X, X_a, b, s
from .. import transient as tr


# Attention: LLaMA's grouped-query self-attention, no biases; rotary positions learn nothing
# $$N_\mathrm{attn} = D H d_h + 2 D K d_h + H d_h D$$
self_attention = llama.self_attention()

# ---------------------------------------------------------------------------------------------
# The sparse mixture of experts
# One expert: $$\mathrm{FFN}_e(x) = (\mathrm{SiLU}(x W_{g,e}) \odot x W_{1,e}) W_{2,e}$$, three D-by-F maps: 3DF.
# The block: $$y = \sum_{e \in \mathrm{top}_{X_a}(x W_r)} \mathrm{softmax}(\cdot)_e \, \mathrm{FFN}_e(x)$$
# $$N_\mathrm{moe} = D X + X \cdot 3 D F$$
# ---------------------------------------------------------------------------------------------

# One expert, as Mistral's reference code names its maps (w1 the gate, w3 the up map, w2 the down map).
expert = feed_forward(D, F, bias=False, gate="w1", up="w3", down="w2", name="expert",
                      label="one expert: a gated feed-forward, no biases")


def sparse_moe(stored: sympy.Expr = X) -> Part:
    """MixtralSparseMoeBlock (``mlp``) as transformers 5.x stores it: the router (``gate``) and the
    experts stacked in two tensors. ``stored`` is how many experts' tensors are counted: all ``X``
    of them, or the ``X_a`` one token uses."""
    which = "every expert's" if stored == X else "the X_a experts' (the ones the router picks)"
    return group(
        "moe", "sparse mixture of experts",
        linear("router", "router: one logit per expert, no bias", D, X, False, "gate"),
        group("experts", f"experts: {which} gated feed-forward, stacked",
              # gate and up of every expert in one X x 2F x D tensor: X (DF + DF).
              # Tensor parallelism cuts each expert's inner width F.
              column_parallel(leaf("gate_up", f"gate and up projections, {which} (one 3-D tensor)", stored * 2 * D * F,
                                   "gate_up_proj", matrix=X_a * 2 * D * F, shape=(stored, 2, D, F)), "inner", F),
              # down of every expert in one X x D x F tensor: X FD.
              row_parallel(leaf("down", f"down projections, {which} (one 3-D tensor)", stored * F * D, "down_proj",
                                matrix=X_a * F * D, shape=(stored, 1, F, D)), "inner", F),
              path="experts"),
        path="mlp", kind="feed-forward", symbol=r"N_{\mathrm{moe}}",
    )


moe = sparse_moe()
# The stacked experts are X copies of one expert, tensor for tensor.
assert sympy.expand(moe.child("experts").total - X * expert.total) == 0

# The same block one module per expert (transformers 4.x, Mistral's reference code): the component.
moe_per_expert = mixture_of_experts(D, F, X, router_path="gate", experts_path="experts", expert=expert,
                                    path="block_sparse_moe")

# ---------------------------------------------------------------------------------------------
# One decoder layer (pre-norm): RMSNorm, attention, residual; RMSNorm, mixture of experts, residual
# $$N_\mathrm{layer} = 2D + N_\mathrm{attn} + D X + 3 X D F$$
# ---------------------------------------------------------------------------------------------


def decoder_layer(stored: sympy.Expr = X) -> Part:
    """MixtralDecoderLayer (``layers.<i>``): LLaMA's layer around the mixture of experts, with ``stored``
    experts' tensors counted."""
    return llama.decoder_layer(mlp=sparse_moe(stored), mlp_label="the experts")


layer = decoder_layer()
token_embeddings, final_norm = llama.token_embeddings, llama.final_norm
# The heads. Untied (tie_word_embeddings false, the default and every release): a D-by-V map, no bias.
lm_head, lm_head_tied = llama.lm_head(tied=False), llama.lm_head(tied=True)


def architectures(tied: bool = False, no_token_bias: bool = False, stored: sympy.Expr = X) -> dict[str, Part]:
    """Every Mixtral class of transformers, named as transformers names it: LLaMA's classes around
    Mixtral's layer, with ``stored`` experts' tensors counted (all X, or the X_a a token uses)."""
    classes = llama.architectures("Mixtral", tied=tied, no_token_bias=no_token_bias, qa_prefix="model",
                                  layer=decoder_layer(stored), suffix="" if stored == X else ": active per token")
    if stored == X:
        return classes
    # The active counts get a symbol of their own: N_active, not the total's N.
    return {name: replace(part, symbol=rf"N_{{\mathrm{{{name}}}}}^{{\mathrm{{active}}}}")
            for name, part in classes.items()}


ARCHITECTURES = architectures()

# Layouts a config.json can ask for (readers.mixtral.layout): a head tied to the token embeddings
# (tie_word_embeddings true), a token classifier without bias (token_classification_bias false).
VARIANTS = reader.READER.layout.variants(architectures)


# ---------------------------------------------------------------------------------------------
# Active parameters per token
# $$N_\mathrm{active} = N - L (X - X_a) \cdot 3 D F$$
# NOTE: the convention of components.active_per_token: the router and everything outside the experts
# count whole, the input embedding included.
# ---------------------------------------------------------------------------------------------

# layout -> class -> the parameters one token uses (the same keys as VARIANTS).
ACTIVE_VARIANTS = reader.READER.layout.variants(lambda **layout: architectures(stored=X_a, **layout))
ACTIVE = ACTIVE_VARIANTS[""]
active_layer = decoder_layer(X_a)

# The other convention: the input embedding is a lookup, one row per token, so leave the table out.
# (Untied layout: the head is a matrix product over the whole table, and stays.)
active_without_embedding = group(
    "active_without_embedding", "active per token, without the input embedding",
    replace(active_layer, repeat=L), final_norm, lm_head, symbol=r"N_{\mathrm{active}}'")

# The experts one token leaves idle: what separates the total from the active count.
idle_experts = replace(leaf("idle_experts", "the experts a token does not use: X - X_a of them, in every layer",
                            L * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["MixtralForCausalLM"].total - ACTIVE["MixtralForCausalLM"].total
                    - idle_experts.total) == 0

# The two parts of the total: what every token shares, and the experts.
all_experts = leaf("all_experts", "every expert of every layer", L * X * expert.total)
shared = leaf("shared", "everything but the experts: embeddings, attention, norms, routers, head",
              ARCHITECTURES["MixtralForCausalLM"].total - all_experts.total)
# One expert through every layer: what one of the X "models" of the name holds of its own.
expert_across_layers = leaf("expert_across_layers", "one expert in every layer", L * expert.total)

# ---------------------------------------------------------------------------------------------
# Mistral 7B: the same decoder with one dense gated feed-forward per layer, no router
# ---------------------------------------------------------------------------------------------

# Jiang et al. 2024: "Mixtral has the same architecture as Mistral 7B" but for the experts; Mixtral
# 8x7B has Mistral 7B's sizes (dim 4096, 32 layers, 32 heads, 8 key/value heads, head_dim 128,
# hidden_dim 14336, vocabulary 32000: Table 1 of both papers).
mistral_7b = replace(mistral.ARCHITECTURES["MistralForCausalLM"], name="mistral_7b",
                     label="Mistral 7B (MistralForCausalLM)", symbol=r"N_{\mathrm{Mistral\,7B}}")
# X whole Mistral 7Bs, as the name "8x7B" suggests: every tensor X times, not only the feed-forward.
whole_mistral_7bs = leaf("whole_mistral_7bs", "X whole Mistral 7Bs", X * mistral_7b.total)
# A Mixtral with one expert is Mistral 7B plus a one-logit router in every layer.
assert sympy.expand(ARCHITECTURES["MixtralForCausalLM"].total.subs(X, 1) - mistral_7b.total - L * D) == 0

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_BLOG = Citation("mixtral-announcement", "“Mixtral has 46.7B total parameters but only uses 12.9B parameters per token”")
_PAPER = Citation("jiang2024", "abstract: “each token has access to 47B parameters, but only uses 13B active parameters during inference”")
_DOCS = Citation("mistral-docs-models", "“it leverages up to 45B parameters but only uses about 12B during inference”")
_BLOG_22B = Citation("mixtral-8x22b-announcement", "“a sparse Mixture-of-Experts (SMoE) model that uses only 39B active parameters out of 141B”")

total_blog = Rounded("total_blog", 46_700_000_000, "Mixtral 8x7B, total", _BLOG, "mixtral-8x7b",
                     (ARCHITECTURES["MixtralForCausalLM"],), precision=10**8, printed="46.7B")
total_paper = Rounded("total_paper", 47_000_000_000, "Mixtral 8x7B, total (paper)", _PAPER, "mixtral-8x7b",
                      (ARCHITECTURES["MixtralForCausalLM"],), precision=10**9, printed="47B")
total_docs = Rounded("total_docs", 45_000_000_000, "Mixtral 8x7B, total (platform docs)", _DOCS, "mixtral-8x7b",
                     (ARCHITECTURES["MixtralForCausalLM"],), precision=10**9, printed="45B")
total_22b = Rounded("total_22b", 141_000_000_000, "Mixtral 8x22B, total", _BLOG_22B, "mixtral-8x22b",
                    (ARCHITECTURES["MixtralForCausalLM"],), precision=10**9, printed="141B")
TOTALS = (total_blog, total_paper, total_docs, total_22b)

_ACTIVE = (ACTIVE["MixtralForCausalLM"], active_without_embedding)
active_blog = Rounded("active_blog", 12_900_000_000, "Mixtral 8x7B, per token", _BLOG, "mixtral-8x7b", _ACTIVE,
                      precision=10**8, printed="12.9B")
active_paper = Rounded("active_paper", 13_000_000_000, "Mixtral 8x7B, active (paper)", _PAPER, "mixtral-8x7b",
                       _ACTIVE, precision=10**9, printed="13B")
active_docs = Rounded("active_docs", 12_000_000_000, "Mixtral 8x7B, during inference (platform docs)", _DOCS,
                      "mixtral-8x7b", _ACTIVE, precision=10**9, printed="12B")
active_22b = Rounded("active_22b", 39_000_000_000, "Mixtral 8x22B, active", _BLOG_22B, "mixtral-8x22b", _ACTIVE,
                     precision=10**9, printed="39B")
ACTIVE_CLAIMS = (active_blog, active_paper, active_docs, active_22b)

# "8x7B" read as eight 7B models. No Mistral AI source says 56B; this one does.
_56B = Citation("techchilli-mixtral", "“The “8x7B” refers to its structure: 8 groups of 7 billion parameter experts, resulting in a total of 56 billion parameters”")
# Mistral 7B without its feed-forward: what Mixtral stores once and eight Mistral 7Bs would store X times.
_mistral_shared = token_embeddings.total + L * (2 * D + self_attention.total) + final_norm.total + lm_head.total
assert sympy.expand(_mistral_shared - (mistral_7b.total - L * expert.total)) == 0
eight_times_seven = Miscount(
    "eight_times_seven", 56_000_000_000, "Mixtral 8x7B as “56 billion parameters”: 8 times 7B", _56B,
    "mixtral-8x7b", ARCHITECTURES["MixtralForCausalLM"],
    terms=(leaf("shared_once", "embeddings, attention, norms and head: stored once, not X times as in X Mistral 7Bs",
                -(X - 1) * _mistral_shared),
           leaf("routers", "the routers, which no Mistral 7B has", L * D * X),
           leaf("seven", "Mistral 7B is not 7B: X times its count above the 7B of the name",
                X * (mistral_7b.total - 7_000_000_000))),
    reconstruction=group("claimed", "X models of 7B each", leaf("models", "X times 7B", X * 7_000_000_000)),
    printed="56B",
    model="Mixtral 8x7B (<code>mixtral-8x7b</code>)",
    cause="only the feed-forward is replicated per expert, the rest is stored once, and Mistral 7B is not 7B",
)



# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): Mistral's, each feed-forward a mixture of experts whose
# tensors depend on the routing (derivations.transient.WORST: the routing that holds the most)
# ---------------------------------------------------------------------------------------------

def router_forward(t: tr.Timeline) -> tuple[str, ...]:
    """MixtralTopKRouter.forward on the normed rows: the logits (X a row), ``softmax(logits.float())`` (an fp32
    copy below fp32, dying once read), ``topk`` (fp32 weights, 64-bit indices), the weights divided in place by
    their sum (a temporary). Returns what the block keeps (``_, top_k_weights, top_k_index = self.gate(...)``)."""
    rows = b * s
    t.new("router_logits", tr.activation(rows * X))
    t.new("router.upcast", tr.upcast(rows * X))
    t.new("router.probs", tr.FP32 * rows * X)
    t.drop("router.upcast")
    t.new("top_k_weights", tr.FP32 * rows * X_a)
    t.new("top_k_index", tr.INT64 * rows * X_a)
    t.new("router.sum", tr.FP32 * rows)
    t.drop("router.sum")
    t.drop("router.probs")  # the function returns
    return "router_logits", "top_k_weights", "top_k_index"


def moe_forward(t: tr.Timeline, x: str, routing: tr.Routing = tr.WORST) -> str:
    """MixtralSparseMoeBlock.forward on the normed ``x`` (views of it): the router, the experts' loop over X + 1
    classes (the one-hot's last class, never picked, stands for experts held elsewhere), each expert F wide with
    the router's fp32 weights; the router's tensors die when the block returns."""
    kept = router_forward(t)
    out = tr.experts_loop(t, routing, X + 1, D, tr.gated_experts(F, fp32_weights=True))
    t.drop(*kept)
    return out


def transient(routing: tr.Routing = tr.WORST) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived (derivations.llama.transient), the experts at ``routing``."""
    return llama.transient("Mixtral", llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t, sliding),),
                                                mlp=partial(moe_forward, routing=routing)),
                           layouts=VARIANTS, windowed=True, bound=tr.ROUTED_BOUND)


TRANSIENT = transient()


FAMILY = Family(
    name="mixtral",
    reader=reader.READER,
    variants=VARIANTS,
    base="MixtralModel",
    # The config.json files of mistralai/Mixtral-8x7B-v0.1 and of an 8x22B conversion with vocab_size 32000
    # and transformers_version 4.40.0.dev0 (as mistral-community/Mixtral-8x22B-v0.1; Mistral AI's
    # Mixtral-8x22B-Instruct-v0.1 has vocab_size 32768, which the Mixtral page shows too). The
    # fields that set the count (vocab_size, hidden_size, intermediate_size, num_hidden_layers,
    # num_attention_heads, num_key_value_heads, num_local_experts, num_experts_per_tok; no head_dim, no
    # tie_word_embeddings true) are those of the hub's Mixtral-8x7B file [cite: hub-mistralai], and of copies
    # of the two files in public code (transformers_version 4.36.0.dev0 and 4.40.0.dev0); they agree with
    # the papers' and blog posts' sizes.
    checkpoints=("mixtral-8x7b", "mixtral-8x22b"),
    first_published="2024-01",
    kind="decoder",
    maker="Mistral AI",
    headlines=(
        Headline("MixtralForCausalLM", "mixtral-8x7b", "8x7B, in total"),
        Headline(
            "ACTIVE.MixtralForCausalLM",
            "mixtral-8x7b",
            "8x7B, per token",
            convention="Active per token: in each layer the experts the router picks (num_experts_per_tok of them), "
            "the router and every tensor outside the experts whole, the input embedding included "
            "(Mistral AI's convention; without it, see below).",
        ),
    ),
    example="mixtral-8x7b",
    table_symbols=(L, D, F, H, K, X, X_a),
    table_columns={
        "MixtralForCausalLM": "MixtralForCausalLM",
        "ACTIVE.MixtralForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
    },
    miscounts=(eight_times_seven,),
    rounded=TOTALS + ACTIVE_CLAIMS,
    minimum={X_a: 0},
    active=ACTIVE_VARIANTS,
    transient=TRANSIENT,
)
