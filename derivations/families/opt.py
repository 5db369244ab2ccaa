"""OPT (Zhang et al. 2022), composed from the components, laid out as transformers' ``OPTModel``.

GPT-3's decoder at GPT-3's sizes (the paper's Table 1 follows GPT-3's), trained by Meta and released from 125M to 66B
(175B on request): learned positions whose table has two rows more than the context (``OPTLearnedPositionalEmbedding``
adds an offset of 2 to every position, a habit of fairseq's padding), separate q, k, v and out maps with biases
(``enable_bias``), a ReLU feed-forward (fc1, fc2), pre-LN layers with a final LayerNorm, and a head tied to the token
embeddings. Two checkpoints differ: OPT-350m puts its LayerNorms after the sub-layers (``do_layer_norm_before``
false, so no final LayerNorm) and keeps its token embeddings 512 wide (``word_embed_proj_dim``), projected to the
layers' 1024 and back by two maps without bias (``project_in``, ``project_out``).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from ..claims import Miscount, Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, embedding, feed_forward, group, layer_norm, leaf,
                          linear, score, tied_tensor)
from ..readers import opt as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, E, F, H, L, P, V, b, c_bt, d_h, s
from .. import transient as tr

# OPTLearnedPositionalEmbedding: num_embeddings + 2 rows (positions are looked up at position + 2).
OFFSET = 2

# ---------------------------------------------------------------------------------------------
# Embeddings: tokens (E wide) and learned positions (P + 2 rows, D wide), summed; E = D but in OPT-350m
# $$N_\mathrm{emb} = V E + (P + 2) D\ [+ 2 E D]$$  the projections where E differs from D
# ---------------------------------------------------------------------------------------------


def tables(projected: bool) -> tuple[Part, Part]:
    width = E if projected else D
    return (embedding("token", "token embeddings (also the output head)", V, width, "embed_tokens"),
            embedding("position", "learned position embeddings (P + 2 rows: the offset of 2)", P + OFFSET, D,
                      "embed_positions"))


def projections() -> tuple[Part, Part]:
    """project_in (E to D) after the embeddings, project_out (D to E) after the last layer: no bias."""
    return (as_kind(linear("project_in", "project_in: token embeddings to the layers' width (E to D)", E, D, False,
                           "project_in"), "embeddings"),
            as_kind(linear("project_out", "project_out: the layers' width back to E (D to E)", D, E, False,
                           "project_out"), "embeddings"))


# ---------------------------------------------------------------------------------------------
# One decoder layer: LayerNorm, causal self-attention, residual; LayerNorm, feed-forward (ReLU), residual
# (after each sub-layer instead where do_layer_norm_before is false)
# $$N_\mathrm{layer} = (4D^2 + 4D) + 2D + (2DF + F + D) + 2D = 4D^2 + 2DF + 9D + F$$
# ---------------------------------------------------------------------------------------------

def norm(name: str, path: str, label: str, affine: bool) -> tuple[Part, ...]:
    """A LayerNorm of D, or none where its parameters are off (layer_norm_elementwise_affine false)."""
    return (layer_norm(name, D, path, label=label),) if affine else ()


def layer(bias: bool, affine: bool, post: bool) -> Part:
    """OPTDecoderLayer (``layers.<i>``)."""
    where = "after" if post else "before"
    self_attention = attention(D, H, d_h, bias=bias, layout=AttentionLayout("q_proj", "k_proj", "v_proj", "out_proj"),
                               path="self_attn", label="causal self-attention", causal=True)
    return group("layer", "decoder layer",
                 *norm("attention_norm", "self_attn_layer_norm", f"LayerNorm {where} attention", affine),
                 self_attention,
                 *norm("feed_forward_norm", "final_layer_norm", f"LayerNorm {where} the feed-forward", affine),
                 feed_forward(D, F, bias=bias, up="fc1", down="fc2", label="feed-forward (ReLU)"),
                 path="layers", repeat=L, symbol=r"N_{\mathrm{layer}}")


def decoder(projected: bool, bias: bool, affine: bool, norms: str) -> Part:
    """OPTDecoder: the tables, project_in and project_out where E differs from D, the final LayerNorm where the
    layers are pre-LN (and it is not removed), the layers."""
    token, position = tables(projected)
    final = norm("final_norm", "final_layer_norm", "final LayerNorm (after the last layer)", affine and not norms)
    return group("decoder", "OPTDecoder", token, position, *(projections() if projected else ()), *final,
                 layer(bias, affine, norms == "post_norm"), path="decoder", symbol=r"N_{\mathrm{decoder}}")


def architectures(projected: bool = False, untied: bool = False, no_bias: bool = False, no_affine: bool = False,
                  norms: str = "") -> dict[str, Part]:
    """Every OPT class of transformers, in one layout. The heads read the model's output, E wide."""
    width = E if projected else D
    body = decoder(projected, not no_bias, not no_affine, norms)

    def model(name: str, label: str, head: Part) -> Part:
        inner = group("model", "OPTModel", body, path="model", symbol=r"N_{\mathrm{model}}")
        return group(name, label, inner, head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    lm_head = (as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", width, V, False,
                              "lm_head"), "heads") if untied else
               as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                                   "model.decoder.embed_tokens", "lm_head", matrix=width * V), "heads"))
    return {
        "OPTModel": group("OPTModel", "OPTModel: the decoder", body, symbol=r"N_{\mathrm{OPTModel}}"),
        "OPTForCausalLM": model("OPTForCausalLM", "OPT with its language-model head", lm_head),
        # The score of every token (the last one's is kept), E wide, no bias.
        "OPTForSequenceClassification": model("OPTForSequenceClassification", "OPT with a sequence classifier",
                                              score(width, C)),
        "OPTForQuestionAnswering": model("OPTForQuestionAnswering", "OPT with a span (start/end) head",
                                         as_kind(linear("qa_outputs", "span logits (always two: start and end)", width,
                                                        2, True, "qa_outputs"), "heads")),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.opt.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_opt.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, generate: bool) -> tuple[str, str]:
    """OPTAttention.forward on the LayerNorm's output: q_proj times the scaling (the product, then the scaled copy),
    k_proj and v_proj, split into heads by views; with a cache (generate) the keys and values are copied into it
    (torch.cat) and read from there, the projections dying; eager attention (scores, scaled by 1.0, masked, the
    softmax in fp32, times the values, transposed by a copy); out_proj. Returns the output and the weights."""
    rows, heads = b * s, b * H * s
    tr.linear(t, "q_proj", rows, D)
    t.new("query", tr.activation(rows * D))
    t.drop("q_proj")
    tr.linear(t, "key", rows, D)
    tr.linear(t, "value", rows, D)
    if generate:  # the cache's copies are the cache's (not counted); the projections die as update returns
        t.drop("key", "value")
    # torch.matmul folds batch and heads of a head-split view by a copy (c_bt; the cache's keys are contiguous).
    tr.scaled_scores(t, c_bt * heads * d_h, (0 if generate else c_bt) * heads * d_h, heads * s)
    t.new("masked", tr.activation(heads * s))
    t.drop("scaled")
    weights = tr.softmax_fp32(t, "masked", heads * s)
    tr.merge_heads(t, heads, d_h, 0 if generate else c_bt)
    out = tr.linear(t, "out_proj", rows, D)
    t.drop("context", "context_contiguous", "query", *(() if generate else ("key", "value")))
    return out, weights


def layer_forward(t: tr.Timeline, out: str, generate: bool, post: bool) -> str:
    """OPTDecoderLayer.forward on its caller's input: (pre-LN) self_attn_layer_norm, attention, residual add;
    final_layer_norm, fc1, ReLU, fc2, residual add; post-LN (``post``): each LayerNorm after its residual add. The
    attention's weights (``_``) live until the layer returns."""
    rows = b * s
    if post:
        attended, weights = attention_forward(t, generate)
        t.new("attention_sum", tr.activation(rows * D))
        t.drop(attended)
        tr.layer_norm(t, "attention_output", D)
        t.drop("attention_sum")
    else:
        normed = tr.layer_norm(t, "self_attn_layer_norm", D)
        attended, weights = attention_forward(t, generate)
        t.drop(normed)
        t.new("attention_output", tr.activation(rows * D))
        t.drop(attended)
    if not post:
        normed = tr.layer_norm(t, "final_layer_norm", D)
    fc1 = tr.linear(t, "fc1", rows, F)
    if not post:  # hidden_states = fc1(hidden_states): the LayerNorm's output dies as fc1's is bound
        t.drop(normed)
    t.new("relu", tr.activation(rows * F))
    t.drop(fc1)
    fc2 = tr.linear(t, "fc2", rows, D)
    t.drop("relu")
    if post:
        t.new("ffn_sum", tr.activation(rows * D))
        t.drop(fc2)
        tr.layer_norm(t, out, D)
        t.drop("ffn_sum")
    else:
        t.new(out, tr.activation(rows * D))
        t.drop(fc2)
    t.drop(*weights, "attention_output")
    return out


def lm_forward(t: tr.Timeline, generate: bool, projected: bool, norms: str, lm_head: bool = True) -> None:
    """OPTForCausalLM.forward (OPTModel's without the head): the token embeddings (and project_in's), the positions
    from the mask's cumulative sum, the causal mask, the position embeddings (looked up at position + 2), their sum
    with the tokens', the layers (each one's input dies when the next is bound), the final LayerNorm and project_out
    where they are; then the logits of every token, or of the last one."""
    rows = b * s
    t.new("inputs_embeds", tr.activation(rows * (E if projected else D)))
    # position_ids = (cumsum(mask) * mask - 1).long(): the sum, the product, the difference
    t.new("cumsum", tr.INT64 * rows)
    t.new("product", tr.INT64 * rows)
    t.new("position_ids", tr.INT64 * rows)
    t.drop("product", "cumsum")
    mask = tr.causal_mask(t)
    t.new("offset_ids", tr.INT64 * rows)
    t.new("pos_embeds", tr.activation(rows * D))
    t.drop("offset_ids")
    if projected:
        t.new("projected_embeds", tr.activation(rows * D))
        t.drop("inputs_embeds")
    t.new("hidden", tr.activation(rows * D))
    post = norms == "post_norm"
    # The first layer's input dies when its output is bound; a later layer's the same way (the same sizes).
    layer_forward(t, "output", generate, post)
    t.drop("hidden")
    last = "output"
    if not norms:
        last = tr.layer_norm(t, "final", D)
        t.drop("output")
    if projected:
        t.new("project_out", tr.activation(rows * E))
        t.drop(last)
        last = "project_out"
    t.drop("position_ids", mask, "pos_embeds", "projected_embeds" if projected else "inputs_embeds")
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


def _transients(projected: bool, norms: str) -> dict[str, tr.Transient]:
    # The code paths the program follows: ReLU (one tensor), LayerNorms with parameters (their absence changes no
    # tensor of the forward).
    requires = (("activation_function", "relu", ("relu",)),)
    return {"OPTModel": tr.transient(lambda t, generate: lm_forward(t, False, projected, norms, lm_head=False),
                                     generates=False, requires=requires),
            "OPTForCausalLM": tr.transient(lambda t, generate: lm_forward(t, generate, projected, norms),
                                           requires=requires)}


TRANSIENT = {layout: _transients("projected" in layout, next((n for n in ("post_norm", "final_norm_removed")
                                                               if n in layout), ""))
             for layout in VARIANTS}

layer_plain = replace(layer(True, True, False), repeat=1)
OPT_350M = VARIANTS["projected+post_norm"]["OPTForCausalLM"]
# What OPT-350m's narrower token table saves against a table as wide as its layers, the two projections included.
narrow_table_saving = (D - E) * V - 2 * E * D

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the paper's Table 1 and the released checkpoints
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("zhang2022", "paper", "Zhang, Roller, Goyal et al.", "OPT: Open Pre-trained Transformer Language Models",
           "arXiv:2205.01068", 2022, "https://arxiv.org/abs/2205.01068", short="Zhang et al. 2022"),
    Source("hub-facebook-opt", "config", "Meta", "OPT checkpoints: config.json of facebook/opt-125m, -350m, -1.3b, "
           "-2.7b, -6.7b, -13b, -30b and -66b", "Hugging Face, facebook", 2022, "https://huggingface.co/facebook",
           read="2026-11-26", short="facebook on the Hugging Face hub"),
)

_TABLE = Citation("zhang2022", "Table 1")
# (checkpoint, as Table 1 prints it, the unit it is rounded to)
_ROWS = (("opt-125m", "125M", 10**6), ("opt-1.3b", "1.3B", 10**8), ("opt-2.7b", "2.7B", 10**8),
         ("opt-6.7b", "6.7B", 10**8), ("opt-13b", "13B", 10**9), ("opt-30b", "30B", 10**9), ("opt-66b", "66B", 10**9),
         ("opt-175b", "175B", 10**9))


def _value(printed: str) -> int:
    number, unit = printed[:-1], printed[-1]
    return int(sympy.Rational(number) * {"M": 10**6, "B": 10**9}[unit])


TABLE_1 = tuple(Rounded(f"table_{name.removeprefix('opt-').replace('.', '_')}", _value(printed),
                        f"OPT-{printed}: Table 1's row", _TABLE, name, (ARCHITECTURES["OPTForCausalLM"],),
                        precision=precision, printed=printed)
                for name, printed, precision in _ROWS)

# Table 1's 350M row: OPT-350m as released holds 331M. The paper took GPT-3's size classes (its Table 1's rows are
# GPT-3's 350M "Medium": 24 layers, 1024 wide, 16 heads); OPT-350m's token table is 512 wide, projected.
full_width_table = group("claimed", "OPT-350m's layers with a token table as wide as they are (no projections)",
                            leaf("token", "token embeddings, D wide", V * D),
                            leaf("position", "position embeddings (P + 2 rows)", (P + OFFSET) * D),
                            replace(layer(True, True, True), path=None))
table_350m = Miscount(
    "table_350m", 350_000_000, "OPT-350M: Table 1's row, and the released checkpoint's name (facebook/opt-350m)",
    _TABLE, "opt-350m", OPT_350M,
    terms=(leaf("narrow_table", "the token table is E = 512 wide, not D = 1024, with the two projections (E D each)",
                -narrow_table_saving),
           # Unevaluated, so that the full-width table and the 350M stay two terms.
           leaf("rounding", "the layout with a D-wide table, rounded to GPT-3's “350M” size class",
                sympy.Add(full_width_table.total, -350_000_000, evaluate=False))),
    printed="350M",
    model="OPT-350M (<code>facebook/opt-350m</code>)",
    cause="the name is GPT-3's size class (24 layers, 1024 wide); the released model's token table is 512 wide "
          "(word_embed_proj_dim), projected to 1024 and back",
)


FAMILY = Family(
    name="opt",
    reader=reader.READER,
    variants=VARIANTS,
    base="OPTModel",
    # config.json of facebook/opt-125m, -350m, -1.3b, -2.7b, -6.7b, -13b, -30b and -66b on the Hugging Face hub
    # [cite: hub-facebook-opt], as published (transformers 4.19 to 4.21's fields). Read in copies others committed:
    # opt-125m's in a notes file quoting config.json, opt-350m's, -1.3b's, -6.7b's, -13b's and -66b's in EasyDeL's
    # configs.py (erfanzar/EasyDeL, 0.0.8), opt-2.7b's as blip2-opt-2.7b's text_config repeats it; -30b's sizes are
    # Table 1's (48 layers, 56 heads, 7168 wide) in the same file's form. opt-175b is no published config: Table 1's
    # row (96 layers, 96 heads, 12288 wide, the feed-forward four times that) in the released configs' form (the
    # weights are given on request only).
    checkpoints=("opt-125m", "opt-350m", "opt-1.3b", "opt-2.7b", "opt-6.7b", "opt-13b", "opt-30b", "opt-66b",
                 "opt-175b"),
    first_published="2022-05",
    kind="decoder",
    maker="Meta",
    headlines=(Headline("OPTForCausalLM", "opt-125m", "125M"), Headline("OPTForCausalLM", "opt-350m", "350M"),
               Headline("OPTForCausalLM", "opt-175b", "175B")),
    example="opt-125m",
    table_symbols=(L, D, H, F, E),
    table_columns={"OPTForCausalLM": "OPTForCausalLM", "layer_plain": "one layer"},
    miscounts=(table_350m,),
    rounded=TABLE_1,
    sources=SOURCES,
    layout_free=("layer_plain", "OPT_350M", "full_width_table", "narrow_table_saving"),
    transient=TRANSIENT,
)
