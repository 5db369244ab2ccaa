"""GPT-J (Wang and Komatsuzaki 2021), laid out as transformers' ``GPTJModel``.

GPT-2's decoder (``derivations.gpt2``) with three changes for the count and one for the function:

- no position table: rotary embeddings turn the first ``rotary_dim`` coordinates of each query and key head (a
  buffer of sines and cosines, no parameter);
- the attention's four maps (q_proj, k_proj, v_proj, out_proj, each D by D) have no bias;
- one LayerNorm a layer (``ln_1``): attention and feed-forward both read its output, and their outputs are added to
  the layer's input at once (the "parallel" block), so there is no second norm;
- the head is a matrix of its own with a bias (``lm_head``, V of them), tied to the embeddings only where a config
  asks; tied, its bias stays its own.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Miscount, Rounded
from ..contract import Family, Headline
from ..components import (AttentionLayout, Part, as_kind, attention, embedding, feed_forward, group, layer_norm, leaf,
                         linear, score, span_head, tied_tensor)
from ..readers import gptj as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, L, P, V, b, c_bt, c_t, d_h, d_r, l_2, s, u
from .. import transient as tr

# Every released size has the feed-forward four times the width (n_inner null).
STANDARD = {F: 4 * D}

# ---------------------------------------------------------------------------------------------
# One layer (parallel): ln_1, then attention and feed-forward side by side, both added to the input
# $$N_\mathrm{layer} = 2D + 4 D H d_h + (2DF + F + D) = 2D + 4D^2 + 2DF + F + D$$  (H d_h = D)
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="out_proj")

self_attention = attention(D, H, d_h, bias=False, layout=_PROJECTIONS, path="attn", causal=True,
                           label="causal self-attention, rotary positions, no biases")

# $$\mathrm{FFN}(x) = \mathrm{GELU}(x W_\mathrm{in} + b_\mathrm{in}) W_\mathrm{out} + b_\mathrm{out}$$
mlp = feed_forward(D, F, up="fc_in", down="fc_out", path="mlp", label="feed-forward (GELU)")

layer = group("layer", "layer: one LayerNorm, attention and feed-forward in parallel",
              layer_norm("norm", D, "ln_1", label="LayerNorm (ln_1), read by the attention and the feed-forward alike"),
              self_attention, mlp, path="h", symbol=r"N_{\mathrm{layer}}")
attention_block = self_attention
feed_forward_block = mlp

wte = embedding("wte", "token embeddings (wte)", V, D, "wte")
ln_f = layer_norm("ln_f", D, "ln_f", label="final LayerNorm (ln_f)")


def body(name: str = "transformer", path: str | None = "transformer",
         label: str = "GPTJModel: token embeddings, layers, final LayerNorm") -> Part:
    # L layers, each with weights of its own.
    return group(name, label, wte, replace(layer, repeat=L), ln_f, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")


def lm_head(tied: bool) -> Part:
    """GPTJForCausalLM's head: D to V with a bias. Tied (tie_word_embeddings), its weight *is* wte; the bias is its
    own all the same."""
    if not tied:
        return as_kind(linear("lm_head", "language-model head (a weight and a bias of its own)", D, V, True, "lm_head"),
                       "heads")
    return group("lm_head", "language-model head (its weight tied to wte, its bias its own)",
                 tied_tensor("weight", "weight (the token embeddings, transposed)", "transformer.wte", "weight",
                             matrix=D * V),
                 leaf("bias", "bias", V, "bias"), path="lm_head", kind="heads")


def architectures(tied: bool = False) -> dict[str, Part]:
    """Every GPT-J class of transformers: the body, the causal LM, a sequence classifier (a score of the last token,
    no bias) and a span head (qa_outputs: num_labels logits, 2 by default). transformers defines no token
    classifier for GPT-J."""
    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, body(), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "GPTJModel": body("GPTJModel", None),
        "GPTJForCausalLM": model("GPTJForCausalLM", "GPT-J with its language-model head", lm_head(tied)),
        "GPTJForSequenceClassification": model("GPTJForSequenceClassification",
                                               "GPT-J with a sequence classifier (last token, no bias)", score(D, C)),
        # GPTJForQuestionAnswering: nn.Linear(hidden_size, num_labels), with a bias.
        "GPTJForQuestionAnswering": model("GPTJForQuestionAnswering", "GPT-J with a span head",
                                          span_head(D, C, "span logits (num_labels of them: 2 for start and end)")),
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.gptj.READER.layout): a head whose weight is the embeddings.
VARIANTS = reader.READER.layout.variants(architectures)

GPTJForCausalLM_tied = VARIANTS["tied"]["GPTJForCausalLM"]
CausalLM_standard = ARCHITECTURES["GPTJForCausalLM"].subs(STANDARD)
layer_standard = layer.subs(STANDARD | {d_h: D / H})

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.gptj.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# EleutherAI/gpt-j-6b's config.json on the Hugging Face hub [cite: hub-eleutherai]: read as copied, field for field,
# into third-party code found with the code search (a table of architectures' configs as "gptj_6b", and a
# profiling script's transfomer_gptj(), the same fields but for its depth of 1): vocab_size 50400 (50,257 tokens, the
# rest padding, as the card says), n_inner null, tie_word_embeddings false, rotary_dim 64.
CHECKPOINTS = ("gpt-j-6b",)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("gpt-j-card", "card", "EleutherAI", "GPT-J 6B: model card", "Hugging Face, EleutherAI/gpt-j-6b", 2021,
           "https://huggingface.co/EleutherAI/gpt-j-6b", read="2026-11-26", short="GPT-J-6B's model card"),
    Source("mesh-transformer-jax", "code", "Ben Wang", "Mesh Transformer JAX: mesh_transformer/layers.py",
           "GitHub, kingoflolz/mesh-transformer-jax", 2021, "https://github.com/kingoflolz/mesh-transformer-jax",
           revision="https://github.com/kingoflolz/mesh-transformer-jax/blob/9d15698694a2a54ff0a32ec5ae4ec05e7a388bee/"
                    "mesh_transformer/layers.py", short="mesh-transformer-jax"),
)

_CARD = Citation("gpt-j-card", "the hyperparameter table: “n<sub>parameters</sub> 6053381344”")
_CAUSAL = ARCHITECTURES["GPTJForCausalLM"]

# The card's n_parameters is the count of the checkpoint GPT-J was trained as, in mesh-transformer-jax
# [cite: mesh-transformer-jax], whose model is split over 8 shards (cores_per_replica 8) and counted shard by shard:
# every shard keeps its own copy of each LayerNorm (ReplicatedLayerNorm: scale and offset), of the feed-forward's
# output bias (dense_proj_o, a full D on each shard, summed after the all-reduce), and of the embedding's projection
# bias (EmbeddingShard's hk.Linear has one; transformers' wte has none). transformers holds one copy of each, and
# no embedding bias: 7 (2D) L + 7 (2D) + 7 D L + 8 D fewer, 2,498,560 on GPT-J-6B.
SHARDS = 8
sharded = Miscount(
    "sharded", 6_053_381_344, "GPT-J-6B’s <i>n</i><sub>parameters</sub>", _CARD, "gpt-j-6b", _CAUSAL,
    terms=(leaf("norm_copies", f"the {SHARDS - 1} further copies of each LayerNorm (ln_1 in every layer, ln_f) that "
                "the other shards keep", -(SHARDS - 1) * 2 * D * (L + 1)),
           leaf("bias_copies", f"the {SHARDS - 1} further copies of each layer's feed-forward output bias (fc_out)",
                -(SHARDS - 1) * D * L),
           leaf("embedding_bias", f"the embedding projection's bias, one on each of the {SHARDS} shards "
                "(transformers' wte has none)", -SHARDS * D)),
    model="GPT-J-6B (<code>gpt-j-6b</code>)",
    cause="the card counts the checkpoint as it was trained, split over 8 shards, each with its own copy of every "
          "LayerNorm and of each bias added after the shards' sum (and an embedding bias transformers does not have)",
)

# "6B", the name: the count to the billion.
name = Rounded("name", 6 * 10**9, "GPT-J 6B, the name", Citation("gpt-j-card", "“6B” in the model's name"),
               "gpt-j-6b", (_CAUSAL,), precision=10**9, printed="6B")
ROUNDED = (name,)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_gptj.py, statement by statement
# ---------------------------------------------------------------------------------------------

def rotate_every_two(t: tr.Timeline, name: str, heads) -> str:
    """apply_rotary_pos_emb on the rotary slice of q or k (a view): sin and cos repeated twice each (one row for the
    batch: the positions are one row), ``tensor * cos``, ``rotate_every_two(tensor)`` (``-x2``, then the stack of
    the two, which -x2 dies into), times sin, the sum; the repeated sin and cos die when it returns."""
    elements, table = b * s * heads * d_r, tr.activation(s * d_r)
    t.new(f"{name}.sin", table)
    t.new(f"{name}.cos", table)
    t.new(f"{name}.times_cos", tr.activation(elements))
    t.new(f"{name}.neg", tr.activation(elements / 2))
    t.new(f"{name}.stacked", tr.activation(elements))
    t.drop(f"{name}.neg")
    t.new(f"{name}.times_sin", tr.activation(elements))
    t.drop(f"{name}.stacked")
    t.new(name, tr.activation(elements))
    t.drop(f"{name}.times_cos", f"{name}.times_sin", f"{name}.sin", f"{name}.cos")
    return name


def attention_forward(t: tr.Timeline, generate: bool, tag: str) -> tuple[str, tuple[str, str]]:
    """GPTJAttention.forward (eager): q, k and v projected (views of the products); the sinusoid table repeated
    (``embed_positions.repeat``: P rows of d_r, in fp32), the positions repeated to d_r (64-bit) and gathered from it
    (fp32, then cast to the activations' dtype); k's rotary slice rotated, then q's, each concatenated with the rest
    (the slices stay bound, so the products and the rotated parts live to the end); with a cache (generate) k and v
    go into it. ``_attn``: q and k cast to fp32, folded by a copy for the product where batch, heads and tokens are
    all more than one (c_bt), the scores, scaled, masked and softmaxed in fp32, cast back; the values folded the
    same way; the product's heads merged by a copy (c_t); out_proj. With a cache, the keys and values ``_attn``
    reads are the cache's: ``torch.cat`` made them contiguous heads first, so only q is folded by a copy. Returns the output and the weights (the cast,
    or in fp32 the softmax itself), which the block returns."""
    rows, heads = b * s, b * H * s
    q, k, v = tr.linear(t, "q", rows, D), tr.linear(t, "k", rows, D), tr.linear(t, "v", rows, D)
    t.new("table", tr.FP32 * P * d_r)
    t.new("positions_repeated", tr.INT64 * s * d_r)
    t.new("sincos32", tr.FP32 * s * d_r)
    t.new("sincos", tr.downcast(s * d_r))
    t.split("sincos32", sincos32_cast=u, sincos32_kept=1 - u)
    t.drop("sincos32_cast")
    k_rot = rotate_every_two(t, "k_rot", H)
    q_rot = rotate_every_two(t, "q_rot", H)
    k_cat, q_cat = t.new("k_cat", tr.activation(rows * D)), t.new("q_cat", tr.activation(rows * D))
    if generate:
        t.drop(k_cat, v)  # key, value = layer_past.update(...): the cache's tensors now
    # _attn
    t.new("q32", tr.upcast(rows * D))
    t.new("k32", tr.upcast(rows * D))
    # matmul folds batch and heads into one dimension: a copy of a permuted view (q's, and k's and v's without a
    # cache), a view of the cache's contiguous keys (transposed) and values.
    fresh = 0 if generate else 1
    t.new("q_folded", tr.FP32 * c_bt * rows * D)
    t.new("k_folded", tr.FP32 * fresh * c_bt * rows * D)
    t.new("scores", tr.FP32 * heads * s)
    t.drop("q_folded", "k_folded")
    t.new("scaled", tr.FP32 * heads * s)
    t.drop("scores")
    t.new("masked", tr.FP32 * heads * s)
    t.drop("scaled")
    t.new("softmax", tr.FP32 * heads * s)
    t.drop("masked")
    t.new(f"weights{tag}", tr.downcast(heads * s))
    t.split("softmax", softmax_cast=u, **{f"weights32{tag}": 1 - u})
    t.drop("softmax_cast")
    t.new("v_folded", tr.activation(fresh * c_bt * rows * D))
    t.new("context", tr.activation(rows * D))
    t.drop("v_folded", "q32", "k32")  # _attn returns
    t.new("merged", tr.activation(c_t * rows * D))
    t.split("context", context_copied=c_t, context_kept=1 - c_t)
    t.drop("context_copied")
    out = tr.linear(t, "out_proj", rows, D)
    t.drop("merged", "context_kept")
    t.drop(q_cat, *(() if generate else (k_cat, v)), q_rot, k_rot, q, k, "table", "positions_repeated", "sincos",
           "sincos32_kept")  # the function returns
    return out, (f"weights{tag}", f"weights32{tag}")


def block_forward(t: tr.Timeline, out: str, generate: bool, tag: str) -> tuple[str, str]:
    """GPTJBlock.forward on its input (its caller's): ln_1, the attention and then the feed-forward on its output
    (fc_in, gelu_new written in Python, fc_out), ``attn_outputs + feed_forward_hidden_states + residual``. Returns the
    attention weights, which the block returns with its output (``outputs``: the model holds them until the next
    block's outputs replace them)."""
    rows = b * s
    normed = tr.layer_norm(t, "ln_1", D)
    attended, weights = attention_forward(t, generate, tag)
    tr.linear(t, "fc_in", rows, F)
    tr.gelu_tanh_python(t, "act", rows * F)
    t.drop("fc_in")
    mlp = tr.linear(t, "fc_out", rows, D)
    t.drop("act")
    t.new("partial_sum", tr.activation(rows * D))
    t.new(out, tr.activation(rows * D))
    t.drop("partial_sum", mlp, attended, normed)
    return weights


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """GPTJForCausalLM.forward (GPTJModel.forward without the head): the embeddings (held to the end), the positions,
    the causal mask, the blocks (each block's weights held until the next block's outputs are bound), ln_f; then the
    logits of every token, or of the last one."""
    stream = tr.activation(b * s * D)
    t.new("embeddings", stream)
    position_ids = tr.positions(t)
    mask = tr.causal_mask(t)
    weights = block_forward(t, "hidden", generate, "")
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        later = block_forward(t, "hidden", generate, "_next")
        t.drop("previous", *weights)
        for held, new in zip(weights, later):  # outputs bound again: the later block's weights stand for the first's
            t.join(held, new)
    tr.layer_norm(t, "final", D)
    t.drop("hidden", "embeddings", position_ids, mask, *weights)
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The path the program follows: gelu_new, the positions under their own name (n_positions, P), the rotary part of a
# head rotary_dim (d_r), even.
_ASSUMES = dict(even=("d_r",), requires=(("activation_function", "gelu_new", ("gelu_new",)),
                                         ("max_position_embeddings", None, (None,))),
                counts=(("P", "n_positions", 2048), ("d_r", "rotary_dim", 64)))
TRANSIENT = {layout: {"GPTJModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, False),
                                                 generates=False, **_ASSUMES),
                      "GPTJForCausalLM": tr.transient(causal_lm_forward, **_ASSUMES)}
             for layout in VARIANTS}


FAMILY = Family(
    name="gptj",
    reader=reader.READER,
    variants=VARIANTS,
    base="GPTJModel",
    checkpoints=CHECKPOINTS,
    first_published="2021-06",
    kind="decoder",
    maker="EleutherAI",
    headlines=(Headline("GPTJForCausalLM", "gpt-j-6b", "6B"),),
    example="gpt-j-6b",
    table_symbols=(L, D, H, d_h, F, V),
    table_columns={"GPTJForCausalLM": "GPTJForCausalLM", "layer": "one layer"},
    miscounts=(sharded,),
    rounded=ROUNDED,
    sources=SOURCES,
    transient=TRANSIENT,
)
