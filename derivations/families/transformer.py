"""The Transformer of Vaswani et al. 2017, and two reference implementations of it.

The paper's model is an encoder-decoder: one embedding matrix shared by the source embeddings, the
target embeddings and the pre-softmax projection (section 3.4), sinusoidal positions (a fixed
table, nothing learned), and post-LN layers, ``LayerNorm(x + Sublayer(x))`` (section 3.1): self-
attention and feed-forward in the encoder, self-attention, cross-attention and feed-forward in the
decoder. transformers' Marian (``MarianModel``, ``MarianMTModel``) is laid out exactly so, with a
bias on every projection; ``torch.nn.Transformer`` has no embeddings and adds a final LayerNorm to
each stack.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import sympy

from .. import configs
from ..contract import Family, Headline
from ..claims import Hypothesis, Miscount, Rounded, sizes
from ..components import (AttentionLayout, Part, as_kind, attention, embedding, feed_forward, fused_attention, group,
                          idle,
                         layer_norm, leaf, tied_tensor)
from ..readers import transformer as reader
from ..sources import Citation
from ..symbols import D, F, F_d, H, L, L_d, P, V, V_d, b, c_bt, c_btd, c_t, c_td, d_h, d_k, s, s_d, valued
from .. import transient as tr


# The paper's shapes: the decoder is as deep and as wide as the encoder.
PAPER = {L_d: L, F_d: F}

# ---------------------------------------------------------------------------------------------
# Attention: four D-by-D projections with biases (H heads of D/H each; their number drops out)
# $$N_\mathrm{attn} = 4D^2 + 4D$$
# ---------------------------------------------------------------------------------------------

_MARIAN = AttentionLayout("q_proj", "k_proj", "v_proj", "out_proj")
# (name, module path, label, bias, and what it computes: causal, keys) -> Part
Attention = Callable[..., Part]


def marian_attention(name: str, path: str, label: str, bias: bool = True, **computes) -> Part:
    return attention(D, H, D / H, bias=bias, layout=_MARIAN, path=path, name=name, label=label, **computes)


def narrow_key_attention(name: str, path: str, label: str, bias: bool = True, **computes) -> Part:
    """Queries and keys of d_k per head, values of D/H (Table 3, rows B)."""
    return attention(D, H, D / H, bias=bias, layout=_MARIAN, path=path, name=name, label=label, key_size=d_k,
                     **computes)


# ---------------------------------------------------------------------------------------------
# Layers (post-LN)
# $$N_\mathrm{enc} = (4D^2 + 4D) + 2D + (2DF + F + D) + 2D$$
# $$N_\mathrm{dec} = 2 (4D^2 + 4D) + 3 \cdot 2D + (2DF_\mathrm{dec} + F_\mathrm{dec} + D)$$
# ---------------------------------------------------------------------------------------------

def encoder_layer(attend: Attention = marian_attention, bias: bool = True) -> Part:
    """MarianEncoderLayer: self-attention, Add & LayerNorm, feed-forward, Add & LayerNorm (``bias``
    false: the projections without biases, as the paper's equations write them)."""
    return group(
        "layer", "encoder layer",
        attend("self_attention", "self_attn", "self-attention", bias),
        layer_norm("self_attention_norm", D, "self_attn_layer_norm", label="LayerNorm after self-attention"),
        feed_forward(D, F, bias=bias, up="fc1", down="fc2"),
        layer_norm("feed_forward_norm", D, "final_layer_norm", label="LayerNorm after the feed-forward"),
        path="layers", symbol=r"N_{\mathrm{enc}}",
    )


def decoder_layer(attend: Attention = marian_attention, bias: bool = True, alone: bool = False) -> Part:
    """MarianDecoderLayer: masked self-attention, cross-attention over the encoder's output (its keys and
    values from the encoder's s rows; built but not run in a decoder ``alone``), feed-forward, each followed
    by Add & LayerNorm."""
    cross = attend("cross_attention", "encoder_attn", "cross-attention (keys and values from the encoder)", bias,
                   keys=s)
    return group(
        "layer", "decoder layer",
        attend("self_attention", "self_attn", "masked self-attention", bias, causal=True),
        layer_norm("self_attention_norm", D, "self_attn_layer_norm", label="LayerNorm after self-attention"),
        idle(cross) if alone else cross,
        layer_norm("cross_attention_norm", D, "encoder_attn_layer_norm", label="LayerNorm after cross-attention"),
        feed_forward(D, F_d, bias=bias, up="fc1", down="fc2"),
        layer_norm("feed_forward_norm", D, "final_layer_norm", label="LayerNorm after the feed-forward"),
        path="layers", symbol=r"N_{\mathrm{dec}}",
    )


# Sinusoidal positions: a fixed function of the position. Marian registers the table as a frozen
# parameter (requires_grad off), so parameters() counts P D more per stack than anything learns.
def positions(path: str = "embed_positions") -> Part:
    return leaf("positions", "sinusoidal positions", sympy.Integer(0), path,
                note="a fixed P-by-D table: registered as a frozen parameter, learned by nothing", kind="embeddings")


# ---------------------------------------------------------------------------------------------
# The models, in Marian's four embedding layouts
# ---------------------------------------------------------------------------------------------

def architectures(share: bool = True, tie: bool = True, attend: Attention = marian_attention,
                  bias: bool = True) -> dict[str, Part]:
    """MarianModel, MarianMTModel and MarianForCausalLM for one embedding layout.

    ``share`` (share_encoder_decoder_embeddings): one V-by-D table, ``shared``, for source and target.
    ``tie`` (tie_word_embeddings): the encoder's and decoder's tables are that shared one, and the
    output projection is the decoder's table. Untied, transformers still builds ``shared`` (which the
    forward pass no longer reads) next to tables of the encoder's and the decoder's own.
    """
    target_rows = V if share else V_d  # MarianMTModel's output vocabulary
    if share and tie:
        tables = [embedding("shared", "shared token embeddings (source, target, output)", V, D, "shared")]
        source = as_kind(tied_tensor("tokens", "source token embeddings", "shared", "embed_tokens"), "embeddings")
        target = as_kind(tied_tensor("tokens", "target token embeddings", "shared", "embed_tokens"), "embeddings")
    else:
        tables = [embedding("shared", "shared token embeddings (built, then unused: untied)", V, D, "shared")
                  ] if share else []
        source = embedding("tokens", "source token embeddings", V, D, "embed_tokens")
        target = embedding("tokens", "target token embeddings", V_d, D, "embed_tokens")
    encoder = group("encoder", "encoder", source, positions(), replace(encoder_layer(attend, bias), repeat=L),
                    path="encoder", symbol=r"N_{\mathrm{encoder}}")

    def decoder(tokens: Part, alone: bool = False) -> Part:
        # Beside an encoder, the decoder reads the target's s_dec rows; alone, its own sequence of s.
        return group("decoder", "decoder", tokens, positions(),
                     replace(decoder_layer(attend, bias, alone), repeat=L_d),
                     path="decoder", symbol=r"N_{\mathrm{decoder}}", tokens=None if alone else s_d)

    def model(path: str | None, name: str = "model", label: str = "MarianModel") -> Part:
        return group(name, label, *tables, encoder, decoder(target), path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    if tie:
        head = tied_tensor("lm_head", "output projection (the target embeddings, transposed)",
                           "model.shared" if share else "model.decoder.embed_tokens", "lm_head", matrix=D * target_rows)
    else:
        head = replace(embedding("lm_head", "output projection (untied: a weight of its own, no bias)", target_rows, D,
                                 "lm_head"), matrix=D * target_rows)
    # It projects the decoder's rows.
    head = replace(as_kind(head, "heads"), tokens=s_d)
    # MarianForCausalLM: the decoder alone (cross-attention blocks included: the layer builds them), and a
    # head of vocab_size rows, tied to the decoder's table of decoder_vocab_size rows unless untied.
    causal_tokens = embedding("tokens", "target token embeddings", V_d, D, "embed_tokens")
    causal_head = as_kind(tied_tensor("lm_head", "output projection (the target embeddings, transposed)",
                                      "model.decoder.embed_tokens", "lm_head", matrix=D * V_d) if tie else
                          replace(embedding("lm_head", "output projection (untied: a weight of its own, no bias)", V,
                                            D, "lm_head"), matrix=D * V), "heads")
    return {
        "MarianModel": model(None, "MarianModel", "MarianModel: embeddings, encoder, decoder"),
        "MarianMTModel": group("MarianMTModel", "Marian with its output projection (final_logits_bias is a buffer)",
                               model("model"), head, symbol=r"N_{\mathrm{MarianMTModel}}"),
        "MarianForCausalLM": group("MarianForCausalLM", "the decoder alone, with an output projection",
                                   group("model", "decoder wrapper", decoder(causal_tokens, alone=True), path="model"),
                                   causal_head, symbol=r"N_{\mathrm{MarianForCausalLM}}"),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.transformer.READER.layout): source and target tables apart
# (share_encoder_decoder_embeddings false), and nothing tied (tie_word_embeddings false).
VARIANTS = reader.READER.layout.variants(lambda unshared, untied: architectures(share=not unshared, tie=not untied))


layer = encoder_layer()
cross_layer = decoder_layer()

# What parameters() adds for the two frozen sinusoidal tables of MarianModel and MarianMTModel.
frozen_positions = 2 * P * D
parameters_with_frozen = ARCHITECTURES["MarianMTModel"].total + frozen_positions

# ---------------------------------------------------------------------------------------------
# The paper's model: Marian's shared layout with the decoder as deep and as wide as the encoder
# ---------------------------------------------------------------------------------------------

Transformer = replace(ARCHITECTURES["MarianMTModel"].subs(PAPER), name="Transformer",
                      label="the Transformer: shared embeddings, encoder, decoder", symbol=r"N")
# Rows B of Table 3 narrow the queries and keys to d_k and keep the values.
Transformer_narrow_keys = replace(architectures(attend=narrow_key_attention)["MarianMTModel"].subs(PAPER),
                                  name="Transformer_narrow_keys", label="the Transformer with queries and keys of d_k")
# The paper's equations write no bias on any projection; its code has had them and not had them.
Transformer_without_biases = replace(architectures(bias=False)["MarianMTModel"].subs(PAPER),
                                     name="Transformer_without_biases", label="the Transformer without linear biases")
Transformer_narrow_keys_without_biases = replace(
    architectures(attend=narrow_key_attention, bias=False)["MarianMTModel"].subs(PAPER),
    name="Transformer_narrow_keys_without_biases", label="the same, queries and keys of d_k")
embedding_matrix = Transformer.find("model.shared")
body = group("body", "encoder and decoder layers (no embeddings)",
             *(replace(stack, children=tuple(c for c in stack.children if c.name == "layer"))
               for stack in (Transformer.find("model.encoder"), Transformer.find("model.decoder"))))

# ---------------------------------------------------------------------------------------------
# torch.nn.Transformer: no embeddings, the same layers, and a final LayerNorm on each stack
# ---------------------------------------------------------------------------------------------

def torch_transformer(bias: bool = True) -> Part:
    """``nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, bias=bias)``;
    with ``bias=False`` no Linear and no LayerNorm has a bias. ``norm_first`` moves the norms, not
    their count."""

    def attend(name: str, path: str, label: str) -> Part:
        # nn.MultiheadAttention keeps Q, K and V in one in_proj_weight (and one in_proj_bias) on itself.
        return fused_attention(D, qkv="in_proj_weight", qkv_bias="in_proj_bias" if bias else None,
                               output="out_proj", bias=bias, path=path, name=name, label=label)

    def norm(name: str, path: str, label: str) -> Part:
        return layer_norm(name, D, path, bias=bias, label=label)

    encoder = group(
        "encoder", "TransformerEncoder",
        group("layer", "TransformerEncoderLayer", attend("self_attention", "self_attn", "self-attention"),
              feed_forward(D, F, bias=bias, up="linear1", down="linear2"),
              norm("self_attention_norm", "norm1", "LayerNorm of the self-attention"),
              norm("feed_forward_norm", "norm2", "LayerNorm of the feed-forward"), path="layers", repeat=L),
        norm("final_norm", "norm", "final LayerNorm of the encoder"), path="encoder")
    decoder = group(
        "decoder", "TransformerDecoder",
        group("layer", "TransformerDecoderLayer", attend("self_attention", "self_attn", "masked self-attention"),
              attend("cross_attention", "multihead_attn", "cross-attention"),
              feed_forward(D, F_d, bias=bias, up="linear1", down="linear2"),
              norm("self_attention_norm", "norm1", "LayerNorm of the self-attention"),
              norm("cross_attention_norm", "norm2", "LayerNorm of the cross-attention"),
              norm("feed_forward_norm", "norm3", "LayerNorm of the feed-forward"), path="layers", repeat=L_d),
        norm("final_norm", "norm", "final LayerNorm of the decoder"), path="decoder")
    return group("nn_Transformer" if bias else "nn_Transformer_without_bias",
                 "torch.nn.Transformer" + ("" if bias else "(bias=False)"), encoder, decoder)


TorchTransformer = torch_transformer()
TorchTransformer_without_bias = torch_transformer(bias=False)
# nn.Transformer against the paper's layers, at the paper's shapes: the two final LayerNorms exactly.
torch_minus_paper = sympy.expand(TorchTransformer.total.subs(PAPER) - body.total)

def by_vocabulary(checkpoint: str, name: str) -> sympy.Equality:
    """The paper's model at a checkpoint's sizes, the vocabulary left free: N(V) = D V + layers."""
    values = {s: v for s, v in valued(configs.sizes(configs.load(checkpoint))).items() if s != V}
    return sympy.Eq(sympy.Symbol(rf"N_{{\mathrm{{{name}}}}}"), Transformer.total.subs(values))


base_by_vocabulary = by_vocabulary("transformer-base", "base")
big_by_vocabulary = by_vocabulary("transformer-big", "big")

# ---------------------------------------------------------------------------------------------
# Table 3 reconciled: each printed count against the paper's model, and the vocabulary it needs
# ---------------------------------------------------------------------------------------------

_TABLE_3 = Citation("vaswani2017", "Table 3")


def _row(name: str, millions: int, what: str, checkpoint: str = "transformer-base",
         candidate: Part = Transformer, **overrides: int) -> Rounded:
    return Rounded(name, millions * 10**6, what, _TABLE_3, checkpoint, (candidate,), printed=f"{millions}M",
                   overrides=sizes(**overrides))


TABLE_3 = (
    _row("base", 65, "base: N 6, d_model 512, d_ff 2048, h 8, d_k = d_v 64"),
    _row("keys_16", 58, "(B) d_k 16", candidate=Transformer_narrow_keys, d_k=16),
    _row("keys_32", 60, "(B) d_k 32", candidate=Transformer_narrow_keys, d_k=32),
    _row("layers_2", 36, "(C) N 2", L=2),
    _row("layers_4", 50, "(C) N 4", L=4),
    _row("layers_8", 80, "(C) N 8", L=8),
    _row("width_256", 28, "(C) d_model 256, d_k = d_v 32", D=256),
    _row("width_1024", 168, "(C) d_model 1024, d_k = d_v 128", D=1024),
    _row("ffn_1024", 53, "(C) d_ff 1024", F=1024),
    _row("ffn_4096", 90, "(C) d_ff 4096", F=4096),
    _row("big", 213, "big: N 6, d_model 1024, d_ff 4096, h 16", "transformer-big"),
)
base_65m, width_1024, big_213m = TABLE_3[0], TABLE_3[7], TABLE_3[-1]
# Big against row (C) d_model 1024: the same model but for d_ff 4096 (and h 16, which changes nothing).
big_over_width_1024 = big_213m.exact() - width_1024.exact()
printed_big_over_width_1024 = big_213m.claim - width_1024.claim

# Section 5.1's "about 37000 tokens", taken literally, reproduces no row.
vocabulary_37000 = Hypothesis(
    "vocabulary_37000", "the shared vocabulary of section 5.1 has 37,000 tokens", TABLE_3, V, 37_000)
# Is there one vocabulary for all the rows derived from base? (There is; big needs another.)
base_rows = Hypothesis("base_rows", "one vocabulary for the base model and its nine variants", TABLE_3[:-1], V, None)
# Without any linear bias the rows agree too, on other vocabularies: the table does not decide the biases.
TABLE_3_WITHOUT_BIASES = tuple(
    replace(row, name=f"{row.name}_without_biases", candidates=(
        Transformer_narrow_keys_without_biases if row.candidates[0] is Transformer_narrow_keys
        else Transformer_without_biases,)) for row in TABLE_3)
base_rows_without_biases = Hypothesis("base_rows_without_biases", "one vocabulary for the ten rows, without biases",
                                      TABLE_3_WITHOUT_BIASES[:-1], V, None)
big_without_biases = TABLE_3_WITHOUT_BIASES[-1]

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled (the common-mistakes page)
# ---------------------------------------------------------------------------------------------

_ANSWER = Citation("stackexchange-120358", "an answer")
# "V × d_model + V × d_model + N × (2 × h × 3 × d_model × d_k + 2 × d_model × d_ff)", V = 37000.
stackexchange_60m = Miscount(
    "stackexchange_60m", 59_908_096, "the base Transformer, “a total of 60M” with V = 37000",
    _ANSWER, "transformer-base", Transformer,
    terms=(
        leaf("second_matrix", "a second vocabulary matrix: the paper shares one (section 3.4)", -V * D),
        leaf("output_projections", "W_O of the encoder's and the decoder's self-attention", 2 * L * D**2),
        leaf("cross_attention", "the decoder's cross-attention, weights and biases", L * (4 * D**2 + 4 * D)),
        leaf("second_feed_forward", "the feed-forward weights of the second stack", L * 2 * D * F),
        leaf("biases", "the biases of both self-attentions and both feed-forwards", L * (8 * D + 2 * F + 2 * D)),
        leaf("norms", "the LayerNorms: two per encoder layer, three per decoder layer", L * 10 * D),
    ),
    reconstruction=group(
        "claimed", "the answer's formula",
        leaf("input", "V d_model, the token input embeddings", V * D),
        leaf("output", "V d_model, “the final layer”", V * D),
        leaf("layers", "N (2 h 3 d_model d_k + 2 d_model d_ff)", L * (2 * H * 3 * D * d_h + 2 * D * F)),
    ),
    printed="60M",
    model="the base Transformer (<code>transformer-base</code>)",
    cause="a second vocabulary matrix is counted, and the output projections, the cross-attention, one stack's "
          "feed-forward, the biases and the norms are left out",
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_marian.py, statement by statement. The
# encoder reads the source ids alone (an all-ones mask is no mask: none is built), the decoder its ids alone (it
# makes a mask of ones itself); MarianForCausalLM is given a mask of ones, as a tokenizer gives it. Every layer of a
# stack holds the same tensors (its input is a tensor of its own, the first layer's too): one layer is each
# stack's peak.
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, queries: sympy.Expr, keys: sympy.Expr, cached: bool, folds: tuple,
                      copied: sympy.Expr, masked: bool, weights: str) -> tuple[str, str]:
    """MarianAttention.forward: q, k and v (k and v from the encoder's states in cross-attention), each with its
    bias; with a cache (``cached``) k and v are copied into it and read from there; eager attention:
    ``matmul(q, k^T) * scaling (+ mask)``, the softmax in the activation dtype, ``matmul(weights, v)``,
    ``transpose(1, 2).contiguous()`` (a copy where ``copied``); out_proj. ``folds``: where torch.matmul copies the
    head-split views of the query, and of the keys and values, to fold batch and heads (0 for the cache's, which
    are contiguous). Returns the output and the attention weights, which the layer holds (``hidden_states, _``)."""
    scores, context = b * H * queries * keys, b * H * queries * d_h
    for name, rows in (("q", queries), ("k", keys), ("v", keys)):
        tr.linear(t, name, b * rows, D)
    if cached:
        t.drop("k", "v")  # key_states, value_states = cache.update(...): the cache's copies now
    fold_query, fold_keys = folds
    t.new("query_folded", tr.activation(fold_query * context))
    t.new("keys_folded", tr.activation(fold_keys * b * H * keys * d_h))
    t.new("scores", tr.activation(scores))
    t.drop("query_folded", "keys_folded")
    t.new("scaled", tr.activation(scores))
    t.drop("scores")
    last = "scaled"
    if masked:
        t.new("masked", tr.activation(scores))
        t.drop("scaled")
        last = "masked"
    t.new(weights, tr.activation(scores))  # softmax(dim=-1) in the activation dtype
    t.drop(last)
    t.new("values_folded", tr.activation(fold_keys * b * H * keys * d_h))
    t.new("context_copied", tr.activation(copied * context))
    t.new("context", tr.activation((1 - copied) * context))
    t.drop("values_folded")
    t.new("context_contiguous", tr.activation(copied * context))
    t.drop("context_copied")
    tr.linear(t, "attention_out", b * queries, D)
    t.drop("context", "context_contiguous")
    t.drop("q", *(() if cached else ("k", "v")))  # the function returns
    return "attention_out", weights


def add_norm(t: tr.Timeline, out: str, x: str, rows: sympy.Expr) -> str:
    """``residual + x``, then its LayerNorm; the sum dies, and ``x`` with it."""
    t.new(f"{out}.sum", tr.activation(rows * D))
    t.drop(x)
    tr.layer_norm(t, out, D, rows)
    t.drop(f"{out}.sum")
    return out


def layer_forward(t: tr.Timeline, x: str, out: str, queries: sympy.Expr, width: sympy.Expr, self_attention: dict,
                  cross: dict | None) -> str:
    """MarianEncoderLayer (or MarianDecoderLayer).forward on ``x``, its caller's: self-attention, its residual and
    norm; a decoder's cross-attention over the encoder's s states (``_`` bound again: the self-attention's weights
    die), its residual and norm; fc1, the activation (one tensor), fc2, the residual and the final norm. Each
    norm's output is the next residual, held until the next one is bound."""
    rows = b * queries
    attended, weights = attention_forward(t, queries, queries, weights="self_weights", **self_attention)
    residual = add_norm(t, "self_norm", attended, rows)
    if cross is not None:
        attended, cross_weights = attention_forward(t, queries, s, weights="cross_weights", **cross)
        t.drop(weights)
        weights = cross_weights
        add_norm(t, "cross_norm", attended, rows)
        t.drop(residual)
        residual = "cross_norm"
    tr.linear(t, "fc1", rows, width)
    t.new("act", tr.activation(rows * width))
    t.drop("fc1")
    tr.linear(t, "fc2", rows, D)
    t.drop("act")
    add_norm(t, out, "fc2", rows)
    t.drop(residual, weights)
    return out


def embed(t: tr.Timeline, queries: sympy.Expr, positions: str) -> str:
    """The stacks' embeddings: ``embed_tokens(ids) * embed_scale`` (a product, 1.0 or not), the sinusoidal
    positions' rows (``positions``: the name of the 64-bit positions that die when their rows are bound), their
    sum, the first layer's input."""
    t.new("tokens", tr.activation(b * queries * D))
    t.new("inputs_embeds", tr.activation(b * queries * D))
    t.drop("tokens")
    return "inputs_embeds"


def encoder_forward(t: tr.Timeline) -> str:
    """MarianEncoder.forward on s tokens: the embeddings (the scaled tokens and the positions' rows, held until it
    returns) and their sum, no mask, its layers."""
    embed(t, s, "")
    t.new("encoder_arange", tr.INT64 * s)  # embed_positions: torch.arange(s), its rows
    t.new("embed_pos", tr.activation(s * D))
    t.drop("encoder_arange")
    t.new("hidden", tr.activation(b * s * D))
    layer_forward(t, "hidden", "encoder_out", s, F,
                  dict(cached=False, folds=(c_bt, c_bt), copied=c_t, masked=False), None)
    t.drop("hidden", "inputs_embeds", "embed_pos")
    return "encoder_out"


def decoder_forward(t: tr.Timeline, generate: bool, alone: bool) -> str:
    """MarianDecoder.forward on s_d tokens (generate: one start token, with a cache; ``alone``: MarianForCausalLM's
    decoder on s tokens, given a mask, without cross-attention): the scaled embeddings, the positions (64-bit
    integers), a mask of ones where none is given (fp32), the causal mask from it, the positions' rows and the
    sum, its layers. It holds the embeddings, the masks and the rows until it returns."""
    queries = s if alone else (1 if generate else s_d)
    embed(t, queries, "position_ids")
    t.new("position_arange", tr.INT64 * queries)
    t.new("position_ids", tr.INT64 * queries)
    t.drop("position_arange")
    if not alone:
        t.new("ones", tr.FP32 * b * queries)  # torch.ones(batch, length): fp32, the default dtype
    tr.causal_mask(tr.Retimed(t, {s: queries}))
    t.new("positions", tr.activation(queries * D))
    t.drop("position_ids")
    t.new("hidden", tr.activation(b * queries * D))
    if alone:  # queries s, keys s: the query a view of q_proj's product, the keys and values the cache's in generate
        self_attention = dict(cached=generate, folds=(c_bt, 0 if generate else c_bt), copied=c_t)
        cross = None
    elif generate:  # one query: nothing folds, nothing is transposed by a copy
        self_attention = dict(cached=True, folds=(0, 0), copied=0)
        cross = dict(cached=True, folds=(0, 0), copied=0, masked=False)
    else:
        self_attention = dict(cached=False, folds=(c_btd, c_btd), copied=c_td)
        cross = dict(cached=False, folds=(c_btd, c_bt), copied=c_td, masked=False)
    layer_forward(t, "hidden", "decoder_out", queries, F_d, self_attention | dict(masked=True), cross)
    t.drop("hidden", "inputs_embeds", "positions", "mask", *(() if alone else ("ones",)))
    return "decoder_out"


def seq2seq_forward(t: tr.Timeline, generate: bool, vocabulary: sympy.Expr | None) -> None:
    """MarianMTModel.forward (MarianModel.forward: ``vocabulary`` None): the encoder, whose output is held to the
    end; the decoder on s_d tokens, or on generate's start token with a cache; ``lm_head(...) +
    final_logits_bias``, over the ``vocabulary`` (V where the two stacks share a table, else V_d)."""
    encoder_forward(t)
    decoder_forward(t, generate, alone=False)
    if vocabulary is not None:
        logits = b * (1 if generate else s_d) * vocabulary
        t.new("product", tr.activation(logits))
        t.new("logits", tr.activation(logits))
        t.drop("product")


def causal_lm_forward(t: tr.Timeline, generate: bool, vocabulary: sympy.Expr) -> None:
    """MarianForCausalLM.forward: the decoder alone on s tokens; the logits of every token, or of the last one."""
    decoder_forward(t, generate, alone=True)
    t.new("logits", tr.activation(b * (1 if generate else s) * vocabulary))


def _transient(layout: str) -> dict[str, tr.Transient]:
    """The classes whose forward is derived in a layout (the logits over V where the stacks share a table, else
    V_d; MarianForCausalLM's over its decoder's table where tied, else its own V)."""
    shared, tied = "unshared" not in layout, "untied" not in layout
    assumes = dict(requires=(("activation_function", "gelu", tr.ONE_OP_ACTIVATIONS),
                             # An alias of the encoder's heads, which the reader reads as H.
                             ("num_attention_heads", None, (None,))),
                   matches=(("decoder_attention_heads", 16, "H"),),
                   fp16="each encoder layer tests its output for infinities, and clamps it where it finds one")
    # MarianForCausalLM's generate builds its cache with a layer for each of the encoder's layers
    # (num_hidden_layers, the config's is_encoder_decoder false): a deeper decoder fails. Where the stacks share a table of V rows, the decoder's padding index is of its own V_d rows: transformers'
    # forward fails where it is V or more (a negative pad_token_id counts back from V_d); V >= V_d keeps clear.
    seq2seq = dict(assumes, at_least=(("V", "V_d"),) if shared else ())
    alone = dict(assumes, at_least=(("L", "L_d"),))
    return {"MarianModel": tr.transient(lambda t, generate: seq2seq_forward(t, False, None), generates=False,
                                        **seq2seq),
            "MarianMTModel": tr.transient(lambda t, generate: seq2seq_forward(t, generate, V if shared else V_d),
                                          **seq2seq),
            "MarianForCausalLM": tr.transient(lambda t, generate: causal_lm_forward(t, generate, V_d if tied else V),
                                              **alone)}


TRANSIENT = {layout: _transient(layout) for layout in VARIANTS}


FAMILY = Family(
    name="transformer",
    reader=reader.READER,
    variants=VARIANTS,
    base="MarianModel",
    # transformer-base and transformer-big: the two rows of Table 3 as Marian configs, with the
    # section 5.1 vocabulary taken as 37,000 (the paper says "about 37000"); built for this site, not
    # released. opus-mt-en-de: a released Marian checkpoint of the base shape [cite: hub-helsinki-nlp].
    checkpoints=("transformer-base", "transformer-big", "opus-mt-en-de"),
    first_published="2017-06",
    kind="encoder-decoder",
    maker="Google",
    headlines=(Headline("MarianMTModel", "transformer-base", "base, Table 3"),),
    example="transformer-base",
    table_symbols=(V, D, F, L, H),
    table_columns={"MarianMTModel": "MarianMTModel", "parameters_with_frozen": "parameters()"},
    miscounts=(stackexchange_60m,),
    rounded=TABLE_3,
    hypotheses=(vocabulary_37000, base_rows, base_rows_without_biases),
    transient=TRANSIENT,
)
