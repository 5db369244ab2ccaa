"""Falcon (TII 2023), laid out as transformers' ``FalconModel``: Falcon-7B, 40B and 180B, and the RefinedWeb models.

A decoder-only stack with rotary positions (or ALiBi: ``alibi``), no biases (``bias`` false), a tied head, and one
fused query-key-value map whose width tells the three layouts apart (FalconDecoderLayer, FalconAttention):

- Falcon-7B (``multi_query``): every head has its queries, and one key head and one value head serve them all,
  D to D + 2 d_h; attention and feed-forward side by side (``parallel_attn``) on the output of one LayerNorm;
- Falcon-40B and 180B (``new_decoder_architecture``): K key/value heads (``num_kv_heads``), D to (H + 2K) d_h, and
  two LayerNorms side by side, one before the attention (``ln_attn``) and one before the feed-forward (``ln_mlp``);
- without either, D to 3D, as GPT-2's; without ``parallel_attn``, GPT-2's two norms in sequence.

All three are one formula, (H + 2K) d_h, with K the key/value heads each layout has: 1, ``num_kv_heads``, or H.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..contract import Family, Headline
from ..components import (Part, as_kind, classifier, embedding, feed_forward, group, layer_norm, linear, task_heads,
                          tied_tensor)
from .gpt_bigcode import grouped_fused_attention
from ..readers import falcon as reader
from ..sources import READ, Citation, Source, declare
from ..symbols import C, D, F, H, K, L, V, b, c_b, c_bt, c_t, d_h, f_a, g_kv, l_2, s
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# One layer: its LayerNorms, attention (fused Q, K, V: D to (H + 2K) d_h, and an output map), feed-forward
# $$N_\mathrm{layer} = N_\mathrm{norms} + D (H + 2K) d_h + H d_h D + 2 D F\ (+ \text{biases})$$
# ---------------------------------------------------------------------------------------------

NORMS = {
    "": (("input_layernorm", "LayerNorm before attention and feed-forward (side by side)"),),
    "two_norms": (("ln_attn", "LayerNorm before attention"), ("ln_mlp", "LayerNorm before the feed-forward")),
    "sequential": (("input_layernorm", "LayerNorm before attention"),
                   ("post_attention_layernorm", "LayerNorm before the feed-forward")),
}


def layer(bias: bool = False, new_decoder: bool = False, norms: str = "") -> Part:
    """FalconDecoderLayer (``h.<i>``)."""
    assert norms in NORMS
    attention = grouped_fused_attention(
        qkv="query_key_value", output="dense", bias=bias, path="self_attention",
        label="causal self-attention, K key/value heads for H query heads",
        # FalconAttention._split_heads widens the new architecture's K key/value heads to H (broadcast_to, flatten)
        # before the cache keeps them: its cache holds H heads a token, not K.
        cached_heads=H if new_decoder else K)
    return group(
        "layer", "layer",
        *(layer_norm(name, D, name, label=label) for name, label in NORMS[norms]),
        attention,
        feed_forward(D, F, bias=bias, up="dense_h_to_4h", down="dense_4h_to_h", path="mlp"),
        path="h", symbol=r"N_{\mathrm{layer}}",
    )


word_embeddings = embedding("word_embeddings", "token embeddings (word_embeddings; also the output head)", V, D,
                            "word_embeddings")
ln_f = layer_norm("ln_f", D, "ln_f", label="final LayerNorm (after the last layer)")


def transformer(block: Part, name: str = "transformer",
                label: str = "FalconModel: token embeddings, layers, final LayerNorm",
                path: str | None = "transformer") -> Part:
    # No position table: rotary positions and ALiBi learn nothing. L layers, each with weights of its own.
    return group(name, label, word_embeddings, replace(block, repeat=L), ln_f, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


lm_head = as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                              "transformer.word_embeddings", "lm_head", matrix=D * V), "heads")
lm_head_untied = as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V,
                                False, "lm_head"), "heads")


def architectures(bias: bool = False, new_decoder: bool = False, untied: bool = False, norms: str = "") -> dict:
    """Every Falcon class of transformers, named as transformers names it."""
    block = layer(bias, new_decoder, norms)

    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, transformer(block), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "FalconModel": transformer(block, "FalconModel", path=None),
        "FalconForCausalLM": model("FalconForCausalLM", "Falcon with its language-model head",
                                   lm_head_untied if untied else lm_head),
        **{name: model(name, f"Falcon {label}", head)
           for name, (label, head) in task_heads("Falcon", classifier(D, C, "classifier")).items()},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.falcon.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)

# Falcon-7B's layer (multi-query, one LayerNorm) and Falcon-40B's and 180B's (the new decoder architecture), and
# their model: each built from its layout by name, so that a page may evaluate it on a checkpoint of another layout.
layer_7b = layer()
layer_40b = layer(new_decoder=True, norms="two_norms")
model_40b = VARIANTS["new_decoder+two_norms"]["FalconForCausalLM"]

non_embedding = group("non_embedding", "layers and final LayerNorm (no token table)", replace(layer_7b, repeat=L), ln_f,
                      symbol=r"N_{\text{non-emb}}")
non_embedding_40b = group("non_embedding", "layers and final LayerNorm (no token table)",
                          replace(layer_40b, repeat=L), ln_f, symbol=r"N_{\text{non-emb}}")

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.falcon.read reads their config.json)
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-tiiuae", "config", "TII", "Falcon checkpoints: config.json of falcon-7b, falcon-40b and falcon-180B",
           "Hugging Face, tiiuae", 2023, "https://huggingface.co/tiiuae", read=READ, short="TII on the hub"),
    Source("falcon-cards", "card", "TII", "Falcon model cards: “Falcon-7B is a 7B parameters causal decoder-only "
           "model”, and the same line for 40B and 180B, with each card's table of layers, d_model and head_dim",
           "Hugging Face, tiiuae/falcon-7b, -40b and -180B", 2023, "https://huggingface.co/tiiuae/falcon-7b",
           read=READ, short="the Falcon model cards"),
)

# The three sizes TII released [cite: hub-tiiuae], in the files' current form (model_type falcon, which
# transformers 5.23 reads; the first files said RefinedWebModel and RefinedWeb, with n_head, n_layer and n_head_kv,
# names transformers no longer maps). Reconstructions from the sizes as published, not copies:
# - falcon-7b: the card's table (32 layers, d_model 4544, head_dim 64, vocabulary 65024) and FalconConfig's
#   defaults, which are Falcon-7B's (multi_query, parallel_attn, no bias; Cerebras' model-zoo converter for
#   Falcon-7B writes the same fields);
# - falcon-40b: the sizes of the original RefinedWeb file (hidden_size 8192, n_head 128, n_head_kv 8, n_layer 60,
#   vocab_size 65024, parallel_attn, no bias), as Decentralised-AI/falcon-40b mirrors it at e7950c4, under today's
#   names (num_attention_heads, num_kv_heads, num_hidden_layers, new_decoder_architecture true);
# - falcon-180b: tiiuae/falcon-180B's sizes as NVIDIA's TensorRT-LLM performance guide writes its checkpoint
#   (80 layers, 232 heads, 8 key/value heads, 14848 wide, 65024 tokens, no bias, parallel attention, the new
#   decoder architecture).
# Every config leaves ffn_hidden_size out: 4 d_model, the feed-forward of all three.
CHECKPOINTS = ("falcon-7b", "falcon-40b", "falcon-180b")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the cards' names against the exact totals
# ---------------------------------------------------------------------------------------------

_CARDS = Citation("falcon-cards", "the first line of each card")
NAMES = (
    Rounded("name_7b", 7 * 10**9, "Falcon-7B: “a 7B parameters causal decoder-only model”", _CARDS, "falcon-7b",
            (ARCHITECTURES["FalconForCausalLM"], non_embedding), precision=10**9, printed="7B"),
    Rounded("name_40b", 40 * 10**9, "Falcon-40B: “a 40B parameters causal decoder-only model”", _CARDS, "falcon-40b",
            (model_40b, non_embedding_40b), precision=10**10, printed="40B"),
    Rounded("name_180b", 180 * 10**9, "Falcon-180B: “a 180B parameters causal decoder-only model”", _CARDS,
            "falcon-180b", (model_40b, non_embedding_40b),
            precision=10**10, printed="180B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_falcon.py, statement by statement
# (rotary positions, eager attention)
# ---------------------------------------------------------------------------------------------

def falcon_linear(t: tr.Timeline, name: str, rows, n_out, bias: bool) -> str:
    """FalconLinear.forward: ``input @ weight.T``, then ``+ bias`` where there is one (a second tensor, the product
    dying as the function returns)."""
    if not bias:
        return tr.linear(t, name, rows, n_out)
    tr.linear(t, f"{name}.product", rows, n_out)
    t.new(name, tr.activation(rows * n_out))
    t.drop(f"{name}.product")
    return name


def attention_forward(t: tr.Timeline, generate: bool, bias: bool, new: bool) -> tuple[str, str]:
    """FalconAttention.forward: query_key_value (D to (H + 2K) d_h); _split_heads: the key and value picked by a list
    of one index (``qkv[..., [-2], :]``: copies, b s K d_h each, of multi-query's one head, f_a 1, or the new
    architecture's K; multi-head's are views), the new architecture's broadcast to the H heads and flattened (copies
    where 1 < K < H: g_kv, the picked key and value then dying); q and k rotated (their own layout, tokens by heads:
    the key of K heads, the new architecture's of H); with a cache (generate) k and v go into it; ``q @ k^T``, folding
    batch and heads by a copy where a view will not do (the rotated query over more than one sequence, head and token,
    c_bt; multi-query's one key head expanded over more than one sequence and head, c_b); the scores scaled in place,
    masked, the softmax in the activation dtype (returned: the layer's caller holds it), the values (folded as the
    keys), the heads merged (c_t), dense."""
    rows, heads = b * s, b * H * s
    qkv = falcon_linear(t, "qkv", rows, (H + 2 * K) * d_h, bias)
    picked = tr.activation(rows * K * d_h) * (1 if new else f_a)
    t.new("key.picked", picked)
    t.new("value.picked", picked)
    key_heads = H if new else K  # the key's heads as rotated
    if new:  # torch.broadcast_to and flatten(2, 3): copies where 1 < K < H
        t.new("query.flat", tr.activation(g_kv * heads * d_h))
        for part in ("key", "value"):
            t.new(f"{part}.flat", tr.activation(g_kv * heads * d_h))
        for part in ("key", "value"):
            t.split(f"{part}.picked", **{f"{part}.picked.copied": g_kv, f"{part}.picked.kept": 1 - g_kv})
            t.drop(f"{part}.picked.copied")
            t.join(part, f"{part}.flat", f"{part}.picked.kept")
    else:
        t.join("key", "key.picked")
        t.join("value", "value.picked")
    q = tr.rotate(t, "q_embed", "query", heads * d_h)
    k = tr.rotate(t, "k_embed", "key", rows * key_heads * d_h)
    if new:
        t.drop("query.flat")
    t.drop("key")  # query_layer, key_layer bound again
    if generate:
        t.drop(k, "value")  # key_layer, value_layer = layer_past.update(...)
    # torch.matmul's folds of batch and heads: the query (rotated in its own layout), the keys and the values.
    one_head = 0 if new else f_a  # multi-query's one key/value head, expanded over the H heads
    folded = one_head * c_b + (1 - one_head) * (0 if generate else c_bt)
    t.new("query_folded", tr.activation(c_bt * heads * d_h))
    t.new("keys_folded", tr.activation(folded * heads * d_h))
    t.new("scores", tr.activation(heads * s))
    t.drop("keys_folded", "query_folded")
    t.new("masked", tr.activation(heads * s))  # attention_scores /= sqrt(d_h) in place; + attention_mask
    t.new("probabilities", tr.activation(heads * s))  # softmax(..., dtype=hidden_states.dtype)
    t.drop("masked", "scores")
    t.new("values_folded", tr.activation(folded * heads * d_h))
    t.new("context", tr.activation(heads * d_h))
    t.drop("values_folded")
    t.split("context", **{"context.merged": c_t, "context.kept": 1 - c_t})
    t.new("context_contiguous", tr.activation(c_t * heads * d_h))
    t.drop("context.merged")  # attn_output bound again
    out = falcon_linear(t, "dense", rows, D, bias)
    t.drop("context.kept", "context_contiguous")  # attn_output bound again
    t.drop(qkv, q, *(() if generate else (k, "value")))  # the function returns
    return out, "probabilities"


def layer_forward(t: tr.Timeline, out: str, generate: bool, bias: bool, new: bool, norms: str) -> tuple[str, str]:
    """FalconDecoderLayer.forward on its caller's input: the LayerNorms (ln_attn and ln_mlp, or input_layernorm, read
    by both sublayers where attention is parallel), the attention; without parallel_attn the residual added and
    post_attention_layernorm; the MLP (dense_h_to_4h, one activation, dense_4h_to_h), ``mlp_output +=
    attention_output`` in place (parallel), ``dropout_add`` of the residual; returns the output and the attention's
    probabilities."""
    rows = b * s
    normed = [tr.layer_norm(t, "ln_attn" if norms == "two_norms" else "input_layernorm", D)]
    if norms == "two_norms":
        normed.append(tr.layer_norm(t, "ln_mlp", D))
    attended, probabilities = attention_forward(t, generate, bias, new)
    if norms == "sequential":
        normed.append(t.new("residual", tr.activation(rows * D)))  # dropout_add(attention_output, residual)
        normed.append(tr.layer_norm(t, "post_attention_layernorm", D))
    up = falcon_linear(t, "h_to_4h", rows, F, bias)
    act = tr.linear(t, "act", rows, F)  # gelu (FalconConfig's default), relu ...: one tensor of torch's
    t.drop(up)
    down = falcon_linear(t, "4h_to_h", rows, D, bias)
    t.drop(act)
    t.new(out, tr.activation(rows * D))  # dropout_add(mlp_output, residual)
    t.drop(*normed, attended, down)  # the function returns
    return out, probabilities


def causal_lm_forward(t: tr.Timeline, generate: bool, bias: bool, new: bool, norms: str,
                      lm_head: bool = True) -> None:
    """FalconForCausalLM.forward (FalconModel.forward without the head): the token embeddings (the first layer's
    input, held to the end), the positions, the causal mask, the rotary cosine and sine, the layers (``outputs =
    block(...)`` holding a layer's output and probabilities until the next one returns), ln_f; then the logits of
    every token, or of the last one."""
    stream = tr.activation(b * s * D)
    t.new("embeddings", stream)
    position_ids = tr.positions(t)
    mask = tr.causal_mask(t)
    rotary = tr.rotary(t, d_h)
    output, probabilities = layer_forward(t, "output", generate, bias, new, norms)
    with t.only(l_2):  # a second layer, while the first one's outputs are held
        t.drop(output, probabilities)
        t.new("previous", stream)
        t.new("previous.probabilities", tr.activation(b * H * s * s))
        layer_forward(t, "output", generate, bias, new, norms)
        t.drop("previous.probabilities", "previous")
    tr.layer_norm(t, "ln_f", D)
    t.drop(position_ids, "embeddings", mask, *rotary, probabilities, output)  # the function returns
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


def _transient(layout: str) -> dict:
    """The forwards of a layout's classes: f_a is multi-query's one key/value head (the old architecture's), which
    the new architecture ignores; its K key/value heads are at least 2 (K = 1 folds its values otherwise)."""
    bias, new = "bias" in layout.split("+"), "new_decoder" in layout.split("+")
    norms = next((n for n in ("two_norms", "sequential") if n in layout.split("+")), "")
    # The code paths the program follows: rotary positions (not ALiBi), plain rotary angles, one activation of
    # torch's. (The new architecture without parallel attention, which cannot run, the reader refuses.)
    requires = (("alibi", False, (False,)), ("rope_scaling", None, (None,)),
                ("activation", "gelu", ("gelu_pytorch_tanh", *tr.ONE_OP_ACTIVATIONS)))
    assumes = dict(even=("d_h",), requires=requires, flags=(("f_a", "multi_query", True, True),),
                   at_least=(("K", 2),) if new else ())
    return {"FalconModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, bias, new, norms, False),
                                        generates=False, **assumes),
            "FalconForCausalLM": tr.transient(lambda t, generate: causal_lm_forward(t, generate, bias, new, norms),
                                              **assumes)}


TRANSIENT = {layout: _transient(layout) for layout in VARIANTS}


FAMILY = Family(
    name="falcon",
    reader=reader.READER,
    variants=VARIANTS,
    base="FalconModel",
    checkpoints=CHECKPOINTS,
    first_published="2023-05",
    kind="decoder",
    maker="TII",
    headlines=(Headline("FalconForCausalLM", "falcon-7b", "7B"), Headline("FalconForCausalLM", "falcon-180b", "180B")),
    example="falcon-7b",
    table_symbols=(L, D, H, K, V),
    table_columns={"FalconForCausalLM": "FalconForCausalLM"},
    rounded=NAMES,
    sources=SOURCES,
    transient=TRANSIENT,
    ratios={d_h: (D, H)},  # the calculator's head size: the width over the heads
    layout_free=("layer_7b", "layer_40b", "model_40b", "non_embedding", "non_embedding_40b"),
)
