"""gpt-oss (OpenAI 2025), laid out as transformers' ``GptOssModel``.

A decoder in LLaMA's arrangement (pre-norm RMSNorm layers, grouped-query attention, rotary positions, a final
RMSNorm, an untied head) whose feed-forward is a mixture of ``X`` experts of which each token uses ``X_a``.
What differs from Mixtral (``derivations.mixtral``), in the tensors:

- the attention has biases on q, k, v and o, and one learned **sink** per head and layer (``sinks``: a logit
  that joins every row of scores, so that a head may attend to nothing);
- the router has a bias (``D`` to ``X`` plus ``X``);
- the experts have biases, and keep their gate and up projections in one tensor (``gate_up_proj``, ``X`` by
  ``D`` by ``2F``, with ``gate_up_proj_bias``, ``X`` by ``2F``), the down projection in another (``down_proj``,
  with ``down_proj_bias``, ``X`` by ``D``).

Local (sliding-window, 128 tokens) and full attention alternate: a mask, no parameter.

Active parameters per token (:data:`ACTIVE`): as on the Mixtral page, the experts the router picks, the router
and everything else whole, the input embedding included; OpenAI's model card counts them without the input
embedding (:data:`active_without_embedding`), and the page shows both.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import AttentionLayout, Part, Shard, attention, column_parallel, group, leaf, linear, row_parallel
from ..readers import gpt_oss as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, V, X, X_a, b, c_t, d_h, g_kv, s, u
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# Attention: biases on the four projections, and a sink per head
# $$N_\mathrm{attn} = (D H d_h + H d_h) + 2 (D K d_h + K d_h) + (H d_h D + D) + H$$
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")


def self_attention(bias: bool = True) -> Part:
    """GptOssAttention (``self_attn``): LLaMA's four projections, with biases unless ``attention_bias`` is
    false, and ``sinks``: one learned logit per head."""
    plain = attention(D, H, d_h, K, bias=bias, layout=_PROJECTIONS, path="self_attn",
                      label="grouped-query self-attention with biases and sinks", causal=True)
    # One per head: tensor parallelism gives each device its heads' sinks.
    sinks = replace(leaf("sinks", "attention sinks: one learned logit per head", H, "sinks", kind="attention"),
                    shards=(Shard("heads", H),))
    return replace(plain, children=plain.children + (sinks,))


# ---------------------------------------------------------------------------------------------
# The mixture of experts: a router with a bias, and X experts with biases, stacked
# One expert: $$(D \cdot 2F + 2F) + (F D + D)$$  The block: $$N_\mathrm{moe} = (D X + X) + X (3 D F + 2F + D)$$
# ---------------------------------------------------------------------------------------------

expert = group("expert", "one expert: a gated feed-forward with biases",
               leaf("gate_up", "gate and up projections, fused, with their biases", D * 2 * F + 2 * F),
               leaf("down", "down projection, with its bias", F * D + D), kind="feed-forward")


def sparse_moe(stored: sympy.Expr = X) -> Part:
    """GptOssMLP (``mlp``): the router and the experts as transformers stores them, ``stored`` experts'
    tensors counted (all ``X``, or the ``X_a`` one token uses)."""
    which = "every expert's" if stored == X else "the X_a experts' (the ones the router picks)"
    return group(
        "moe", "sparse mixture of experts",
        linear("router", "router: one logit per expert, with a bias", D, X, True, "router"),
        group("experts", f"experts: {which}, stacked",
              # Each token runs through X_a experts, whichever the router picks.
              # Tensor parallelism cuts each expert's inner width F: gate_up and its biases by their outputs, down
              # by its inputs (its biases, added after the devices' sum, whole on every device).
              column_parallel(leaf("gate_up", f"gate and up projections, {which} (X by D by 2F)", stored * D * 2 * F,
                                   "gate_up_proj", matrix=X_a * D * 2 * F, shape=(stored, 2, D, F)), "inner", F),
              column_parallel(leaf("gate_up_bias", "their biases (X by 2F)", stored * 2 * F, "gate_up_proj_bias"),
                              "inner", F),
              row_parallel(leaf("down", f"down projections, {which} (X by F by D)", stored * F * D, "down_proj",
                                matrix=X_a * F * D, shape=(stored, 1, F, D)), "inner", F),
              leaf("down_bias", "their biases (X by D)", stored * D, "down_proj_bias"),
              path="experts"),
        path="mlp", kind="feed-forward", symbol=r"N_{\mathrm{moe}}")


moe = sparse_moe()
assert sympy.expand(moe.child("experts").total - X * expert.total) == 0


def decoder_layer(attention_bias: bool = True, stored: sympy.Expr = X) -> Part:
    """GptOssDecoderLayer (``layers.<i>``): RMSNorm, attention, residual; RMSNorm, mixture of experts, residual."""
    return llama.decoder_layer(attention=self_attention(attention_bias), mlp=sparse_moe(stored),
                               mlp_label="the experts")


layer = decoder_layer()
attention_block = layer.child("attention")


def architectures(no_attention_bias: bool = False, tied: bool = False, no_token_bias: bool = False,
                  stored: sympy.Expr = X) -> dict[str, Part]:
    """GptOssModel, GptOssForCausalLM, GptOssForSequenceClassification and GptOssForTokenClassification (no span
    head), with ``stored`` experts' tensors counted."""
    classes = llama.architectures("GptOss", tied=tied, no_token_bias=no_token_bias, qa_prefix="model",
                                  layer=decoder_layer(not no_attention_bias, stored),
                                  suffix="" if stored == X else ": active per token")
    classes = {name: part for name, part in classes.items() if not name.endswith("QuestionAnswering")}
    if stored == X:
        return classes
    return {name: replace(part, symbol=rf"N_{{\mathrm{{{name}}}}}^{{\mathrm{{active}}}}") for name, part in classes.items()}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)


ACTIVE_VARIANTS = reader.READER.layout.variants(lambda **layout: architectures(stored=X_a, **layout))
ACTIVE = ACTIVE_VARIANTS[""]
active_layer = decoder_layer(stored=X_a)
token_embeddings, final_norm, lm_head = llama.token_embeddings, llama.final_norm, llama.lm_head(tied=False)

# OpenAI's convention: the input embedding is a lookup, and is left out; the unembedding (the head) stays.
active_without_embedding = group(
    "active_without_embedding", "active per token, without the input embedding",
    replace(active_layer, repeat=L), final_norm, lm_head, symbol=r"N_{\mathrm{active}}'")
idle_experts = replace(leaf("idle_experts", "the experts a token does not use: X - X_a of them, in every layer",
                            L * (X - X_a) * expert.total), symbol=r"N_{\mathrm{idle}}")
assert sympy.expand(ARCHITECTURES["GptOssForCausalLM"].total - ACTIVE["GptOssForCausalLM"].total
                    - idle_experts.total) == 0

# ---------------------------------------------------------------------------------------------
# The model card's lines: what each holds
# ---------------------------------------------------------------------------------------------

# "MLP": every layer's router and experts (not the norm before them).
mlp_parameters = leaf("mlp_parameters", "router and experts, every layer", L * moe.total)
# "Attention": every layer's projections, biases and sinks (not the norm before them).
attention_parameters = leaf("attention_parameters", "attention, every layer (projections, biases, sinks)",
                            L * attention_block.total)
# "Embed + Unembed": the token embeddings and the untied head.
embed_unembed = leaf("embed_unembed", "token embeddings and the head", 2 * V * D)
# What no line names: the RMSNorms, two per layer and the final one.
norms = leaf("norms", "RMSNorm weights: two per layer and the final one", (2 * L + 1) * D)
assert sympy.expand(ARCHITECTURES["GptOssForCausalLM"].total - mlp_parameters.total - attention_parameters.total
                    - embed_unembed.total - norms.total) == 0

# The released files (the card's "Checkpoint Size"): the experts' weight matrices in MXFP4, 4 bits a weight and an
# 8-bit scale for each block of 32 (4.25 bits), everything else in BF16 (attention, router, the experts' biases,
# norms, embeddings, head), as the config's quantization_config leaves them.
expert_matrices = leaf("expert_matrices", "the experts' weight matrices, every layer (stored in MXFP4)", L * X * 3 * D * F)
# As the page writes it (B the bytes, N the parameters, N_experts the experts' matrices), then evaluated.
_B, _N, _E = sympy.symbols(r"B N N_{\mathrm{experts}}")
CHECKPOINT_BYTES = {_E: expert_matrices.total,
                    _B: sympy.Add(sympy.Rational(17, 32) * _E, sympy.Mul(2, sympy.Add(_N, -_E), evaluate=False),
                                  evaluate=False)}
checkpoint_bytes = leaf("checkpoint_bytes", "the released files' bytes: the experts' matrices in MXFP4, the rest in BF16",
                        CHECKPOINT_BYTES[_B].subs({_E: expert_matrices.total,
                                                   _N: ARCHITECTURES["GptOssForCausalLM"].total}))

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the model card's Table 1, line by line
# ---------------------------------------------------------------------------------------------


def _card(checkpoint: str, model: str, line: str, printed: str, candidates: tuple[Part, ...]) -> Rounded:
    return Rounded(f"card_{model.split('-')[-1]}_{line.lower().replace(' ', '_').replace('+', 'and')}",
                   round(float(printed.removesuffix("B")) * 10**9), f"{model}, “{line}”",
                   Citation("openai2025gptoss", f"Table 1, “{line}”"), checkpoint, candidates, precision=10**7,
                   printed=printed)


_FIGURES = {"gpt-oss-120b": ("114.71B", "0.96B", "1.16B", "116.83B", "5.13B"),
            "gpt-oss-20b": ("19.12B", "0.64B", "1.16B", "20.91B", "3.61B")}
CARD = tuple(_card(checkpoint, checkpoint, line, printed, (part,))
             for checkpoint, figures in _FIGURES.items()
             for line, printed, part in zip(("MLP", "Attention", "Embed + Unembed", "Total Parameters"), figures,
                                            (mlp_parameters, attention_parameters, embed_unembed,
                                             ARCHITECTURES["GptOssForCausalLM"])))
# The active lines, against both conventions: the card's (no input embedding) first.
CARD_ACTIVE = tuple(_card(checkpoint, checkpoint, "Active Parameters", figures[-1],
                          (active_without_embedding, ACTIVE["GptOssForCausalLM"]))
                    for checkpoint, figures in _FIGURES.items())


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_gpt_oss.py, statement by statement, the
# experts at the routing that holds the most (derivations.transient.WORST)
# ---------------------------------------------------------------------------------------------

def rms_norm(t: tr.Timeline, name: str, width, rows=None) -> str:
    """GptOssRMSNorm.forward: LLaMA's statements (derivations.transient.rms_normed) up to the normed fp32 rows, then
    ``(self.weight * hidden_states).to(input_dtype)``: the product in fp32 (the result itself in fp32), cast below
    fp32, where the product dies once read."""
    n = tr.rms_normed(t, name, width, b * s if rows is None else rows)
    t.new(f"{name}.product", tr.FP32 * u * n)
    t.new(f"{name}.kept", tr.FP32 * (1 - u) * n)
    t.new(f"{name}.cast", tr.downcast(n))
    t.drop(f"{name}.product")
    t.drop(f"{name}.normed", f"{name}.variance")  # the function returns
    return t.join(name, f"{name}.kept", f"{name}.cast")


def attention_forward(t: tr.Timeline, x: str, generate: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """GptOssAttention.forward on the normed ``x``: q, k and v projected (a bias added in the same product), q and k
    rotated (_apply_rotary_emb, by the halves of a head: derivations.transient.rotate_pairs); with a cache (generate), k
    and v go into it; then eager_attention_forward with the sinks: ``repeat_kv`` (copies where grouped), the scores
    scaled and masked, ``torch.cat([scores, sinks])`` (one more column a row: the sink, a view of a parameter),
    ``combined - combined.max(-1).values`` (the max's values and 64-bit indices, the indices dying with the tuple at
    once), the softmax in the activation dtype (its view without the sink column is the attention weights returned, the
    masked scores dying as their name is bound to it), the product with the values (the view read as it is), transposed
    by a copy where c_t; the combined logits die when the function returns. Returns the output (two names, one of 0
    bytes) and the weights (the softmax's storage), which the layer holds."""
    rows, n = b * s, b * H * s
    q, k, v = tr.linear(t, "q", rows, H * d_h), tr.linear(t, "k", rows, K * d_h), tr.linear(t, "v", rows, K * d_h)
    q_rot, k_rot = tr.rotate_pairs(t, "q_rot", rows * H * d_h), tr.rotate_pairs(t, "k_rot", rows * K * d_h)
    t.drop(q, k)  # query_states, key_states = apply_rotary_pos_emb(...)
    if generate:
        t.drop(k_rot, v)  # past_key_values.update(...): the cache's tensors now
    t.new("keys_repeated", tr.activation(g_kv * n * d_h))
    t.new("values_repeated", tr.activation(g_kv * n * d_h))
    t.new("scores", tr.activation(n * s))
    t.new("scaled", tr.activation(n * s))
    t.drop("scores")
    t.new("masked", tr.activation(n * s))
    t.drop("scaled")
    t.new("combined", tr.activation(n * (s + 1)))
    t.new("max.values", tr.activation(n))
    t.new("max.indices", tr.INT64 * n)
    t.drop("max.indices")
    t.new("shifted", tr.activation(n * (s + 1)))
    t.drop("max.values", "combined")
    t.new("probabilities", tr.activation(n * (s + 1)))
    t.drop("masked")  # attn_weights bound to the view of the probabilities
    t.new("context_copied", tr.activation(c_t * n * d_h))
    t.new("context", tr.activation((1 - c_t) * n * d_h))
    t.new("context_contiguous", tr.activation(c_t * n * d_h))
    t.drop("context_copied", "keys_repeated", "values_repeated", "shifted")  # eager_attention_forward returns
    out = tr.linear(t, "o", rows, D)
    t.drop("context", "context_contiguous")
    t.drop(q_rot, *(() if generate else (k_rot, v)))  # the function returns
    return out, ("probabilities",)


def experts_body(t: tr.Timeline, tag: str, rows, previous: str | None) -> tuple[str, ...]:
    """GptOssExperts.forward's iteration after the gathered rows: ``current_state @ gate_up_proj[e] +
    gate_up_proj_bias[e]`` (the product dying once the bias is added), _apply_gate (the interleaved gate and up
    columns, views, each clamped; ``gate * sigmoid(gate * alpha)``; ``(up + 1) * glu``; its locals dying when it
    returns), ``@ down_proj[e] + down_proj_bias[e]``, ``* routing_weights[token_idx, top_k_pos, None]`` (in the
    activation dtype: the cast to it before ``index_add_`` is the tensor itself). Each name the iteration binds
    drops the previous iteration's tensor as it is bound."""
    def bound(name: str) -> None:
        if previous is not None:
            t.drop(f"{previous}.{name}")

    t.new(f"{tag}.gate_up_product", tr.activation(rows * 2 * F))
    t.new(f"{tag}.gate_up", tr.activation(rows * 2 * F))
    t.drop(f"{tag}.gate_up_product")
    bound("gate_up")
    t.new(f"{tag}.gate", tr.activation(rows * F))
    t.new(f"{tag}.up", tr.activation(rows * F))
    t.new(f"{tag}.gate_alpha", tr.activation(rows * F))
    t.new(f"{tag}.sigmoid", tr.activation(rows * F))
    t.drop(f"{tag}.gate_alpha")
    t.new(f"{tag}.glu", tr.activation(rows * F))
    t.drop(f"{tag}.sigmoid")
    t.new(f"{tag}.up_plus_one", tr.activation(rows * F))
    t.new(f"{tag}.gated", tr.activation(rows * F))
    t.drop(f"{tag}.up_plus_one")
    t.drop(f"{tag}.gate", f"{tag}.up", f"{tag}.glu")  # _apply_gate returns
    bound("gated")
    t.new(f"{tag}.down_product", tr.activation(rows * D))
    t.new(f"{tag}.out", tr.activation(rows * D))
    t.drop(f"{tag}.down_product")
    bound("out")
    t.new(f"{tag}.routing_weights", tr.activation(rows))
    t.new(f"{tag}.weighted", tr.activation(rows * D))
    t.drop(f"{tag}.routing_weights")
    bound("weighted")
    return f"{tag}.gate_up", f"{tag}.gated", f"{tag}.out", f"{tag}.weighted"


def moe_forward(t: tr.Timeline, x: str, routing: tr.Routing = tr.WORST) -> tuple[str, str]:
    """GptOssMLP.forward on the normed ``x`` (views of it): GptOssTopKRouter (the logits, a bias in the same
    product; ``topk`` of them, values and 64-bit indices; the softmax of the values in their dtype, the values dying
    when the router returns), the experts' loop over X classes (no sentinel class: the one-hot has X), the logits
    and the indices dying when the block returns. Returns the output and the router's scores, which the layer
    holds (``hidden_states, _ = self.mlp(...)``)."""
    rows = b * s
    t.new("router_logits", tr.activation(rows * X))
    t.new("router.top", tr.activation(rows * X_a))
    t.new("top_k_index", tr.INT64 * rows * X_a)
    t.new("router_scores", tr.activation(rows * X_a))
    t.drop("router.top")  # the router returns
    out = tr.experts_loop(t, routing, X, D, experts_body)
    t.drop("router_logits", "top_k_index")  # the block returns
    return out, "router_scores"


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """GptOssDecoderLayer.forward on ``x``: LLaMA's layer, but ``hidden_states, _ = self.mlp(...)`` binds ``_`` to the
    router's scores, dropping the attention weights it held, and the scores die when the layer returns."""
    rows = b * s
    normed = kin.norm(t, "input_norm", D)
    attended, weights = kin.attention(t, normed, generate)
    t.drop(normed)
    t.new("residual", tr.activation(rows * D))
    t.drop(attended)
    normed = kin.norm(t, "post_norm", D)
    mlp, scores = kin.mlp(t, normed)
    t.drop(normed, *weights)
    t.new(out, tr.activation(rows * D))
    t.drop(mlp, "residual", scores)
    return out


def transient(routing: tr.Routing = tr.WORST) -> dict[str, dict[str, tr.Transient]]:
    """The classes whose forward is derived (derivations.llama.transient's causal LM and body): both masks always
    (GptOssModel.forward builds the sliding-window one whether or not a layer slides), rotary angles not doubled,
    gpt-oss's norm, attention, layer and experts at ``routing``."""
    kin = llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t), tr.causal_mask(t, True, "sliding_mask")),
                    layer=layer_forward, attention=attention_forward, mlp=partial(moe_forward, routing=routing),
                    norm=rms_norm, rotary=lambda t: tr.rotary(t, d_h, doubled=False))
    return llama.transient("GptOss", kin, layouts=VARIANTS, bound=tr.ROUTED_BOUND)


TRANSIENT = transient()


FAMILY = Family(
    name="gpt_oss",
    reader=reader.READER,
    variants=VARIANTS,
    base="GptOssModel",
    # config.json of openai/gpt-oss-20b and openai/gpt-oss-120b on the Hugging Face hub [cite: hub-openai-gpt-oss]: the
    # fields that set the count (sizes, head_dim, experts, vocabulary, attention_bias, tie_word_embeddings), with
    # model_type, architectures, the context length and the sliding window; the rope scaling and the quantization
    # config (the released weights of the experts are MXFP4) set no parameter.
    checkpoints=("gpt-oss-20b", "gpt-oss-120b"),
    first_published="2025-08",
    kind="decoder",
    maker="OpenAI",
    headlines=(
        Headline("GptOssForCausalLM", "gpt-oss-120b", "120b, in total"),
        Headline(
            "ACTIVE.GptOssForCausalLM",
            "gpt-oss-120b",
            "120b, per token",
            convention="Active per token: in each layer the experts the router picks (num_experts_per_tok of them), "
            "the router and every tensor outside the experts whole, the input embedding included (as "
            "on the Mixtral page; OpenAI's card leaves the input embedding out, see below).",
        ),
    ),
    example="gpt-oss-120b",
    table_symbols=(L, D, H, K, d_h, F, X, X_a, V),
    table_columns={
        "GptOssForCausalLM": "GptOssForCausalLM",
        "ACTIVE.GptOssForCausalLM": "active per token",
        "active_without_embedding": "active, input embedding left out",
    },
    rounded=CARD + CARD_ACTIVE,
    minimum={X_a: 0},
    active=ACTIVE_VARIANTS,
    transient=TRANSIENT,
)
