"""BART (Lewis et al. 2019), laid out as transformers' ``BartModel``; mBART (derivations/families/mbart.py) is the same
tree with its norms moved before the sublayers and one more norm at the end of each stack.

An encoder-decoder in the original Transformer's layout (derivations/families/transformer.py: Marian's layers, post-LN,
a bias on every projection, GELU), with three differences: positions are a learned table of each stack's, of P + 2
rows (``BartLearnedPositionalEmbedding``: fairseq's offset of 2, the rows below the padding index, kept), where Marian's
are sinusoidal; each stack normalizes its embeddings (``layernorm_embedding``, 2D); and ``embed_scale`` (the square
root of D where ``scale_embedding`` is set, else 1) is a float of the module, not a parameter. One V-by-D table,
``shared``, is read by both stacks and by the output projection; ``final_logits_bias`` (1 by V, added to the logits) is
a buffer: ``parameters()`` does not yield it, and no optimizer trains it.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from ..claims import Rounded
from ..components import (Part, as_kind, embedding, feed_forward, group, idle, layer_norm, leaf, linear, span_head,
                          tied_tensor)
from ..readers import bart as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, F_d, L, L_d, P, V, b, c_bt, c_btd, c_t, c_td, s, s_d
from . import transformer as marian
from .transformer import marian_attention
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# Embeddings: the token table (shared), learned positions of P + 2 rows, and their LayerNorm
# $$N_\mathrm{emb,stack} = (P + 2) D + 2D$$  beside the shared V D
# ---------------------------------------------------------------------------------------------

POSITION_OFFSET = 2  # BartLearnedPositionalEmbedding: self.offset = 2, num_embeddings + self.offset rows


def positions() -> Part:
    """BartLearnedPositionalEmbedding(max_position_embeddings, d_model): P + 2 rows; position i reads row i + 2."""
    return embedding("positions", "learned positions (P + 2 rows: fairseq's offset of 2)", P + POSITION_OFFSET, D,
                     "embed_positions", note="rows 0 and 1 are never read: position i reads row i + 2")


def embedding_norm() -> Part:
    # The sum of token and position embeddings is normalized before the first layer.
    return layer_norm("embedding_norm", D, "layernorm_embedding", label="LayerNorm of the embeddings")


# ---------------------------------------------------------------------------------------------
# Layers: Marian's (post-LN), or mBART's pre-LN; the same tensors either way
# $$N_\mathrm{enc} = (4D^2 + 4D) + 2D + (2DF + F + D) + 2D$$
# $$N_\mathrm{dec} = 2 (4D^2 + 4D) + 3 \cdot 2D + (2DF_\mathrm{dec} + F_\mathrm{dec} + D)$$
# ---------------------------------------------------------------------------------------------

def _norm(name: str, path: str, sublayer: str, pre: bool) -> Part:
    return layer_norm(name, D, path, label=f"LayerNorm {'before' if pre else 'after'} {sublayer}")


def encoder_layer(pre: bool = False) -> Part:
    """BartEncoderLayer (MBartEncoderLayer with ``pre``: each norm before its sublayer, the residual around both)."""
    return group(
        "layer", "encoder layer",
        marian_attention("self_attention", "self_attn", "self-attention"),
        _norm("self_attention_norm", "self_attn_layer_norm", "self-attention", pre),
        feed_forward(D, F, up="fc1", down="fc2"),
        _norm("feed_forward_norm", "final_layer_norm", "the feed-forward", pre),
        path="layers", symbol=r"N_{\mathrm{enc}}")


def decoder_layer(pre: bool = False, alone: bool = False) -> Part:
    """BartDecoderLayer: masked self-attention, cross-attention over the encoder's s rows (built, not run, in a decoder
    ``alone``), feed-forward, each with its LayerNorm."""
    cross = marian_attention("cross_attention", "encoder_attn", "cross-attention (keys and values from the encoder)",
                             keys=s)
    return group(
        "layer", "decoder layer",
        marian_attention("self_attention", "self_attn", "masked self-attention", causal=True),
        _norm("self_attention_norm", "self_attn_layer_norm", "self-attention", pre),
        idle(cross) if alone else cross,
        _norm("cross_attention_norm", "encoder_attn_layer_norm", "cross-attention", pre),
        feed_forward(D, F_d, up="fc1", down="fc2"),
        _norm("feed_forward_norm", "final_layer_norm", "the feed-forward", pre),
        path="layers", symbol=r"N_{\mathrm{dec}}")


def final_norm() -> Part:
    # mBART: "an additional layer-normalization layer on top of both the encoder and decoder" (its paper, section 2.2).
    return layer_norm("final_norm", D, "layer_norm", label="final LayerNorm of the stack")


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------

def architectures(untied: bool = False, prefix: str = "Bart", pre: bool = False) -> dict[str, Part]:
    """Every class transformers defines for the model_type (``prefix``: Bart or MBart; ``pre``: mBART's pre-LN layers
    and final norms) in one layout.

    Tied (the default), ``shared`` is the one token table: both stacks' ``embed_tokens`` and the output projection are
    it. ``untied`` (tie_word_embeddings false): transformers still builds ``shared`` (which the forward no longer
    reads) beside tables of the encoder's and the decoder's own, and the head has a weight of its own.
    """
    shared = embedding("shared", "shared token embeddings (encoder, decoder, output)" if not untied else
                       "shared token embeddings (built, then unused: untied)", V, D, "shared")
    if untied:
        source = embedding("tokens", "source token embeddings", V, D, "embed_tokens")
        target = embedding("tokens", "target token embeddings", V, D, "embed_tokens")
    else:
        source = as_kind(tied_tensor("tokens", "source token embeddings", "shared", "embed_tokens"), "embeddings")
        target = as_kind(tied_tensor("tokens", "target token embeddings", "shared", "embed_tokens"), "embeddings")
    ends = (final_norm(),) if pre else ()
    encoder = group("encoder", "encoder", source, positions(), embedding_norm(),
                    replace(encoder_layer(pre), repeat=L), *ends, path="encoder", symbol=r"N_{\mathrm{encoder}}")

    def decoder(tokens: Part, alone: bool = False) -> Part:
        # Beside an encoder, the decoder reads the target's s_dec rows; alone, its own sequence of s.
        return group("decoder", "decoder", tokens, positions(), embedding_norm(),
                     replace(decoder_layer(pre, alone), repeat=L_d), *ends,
                     path="decoder", symbol=r"N_{\mathrm{decoder}}", tokens=None if alone else s_d)

    def model(path: str | None, name: str = "model", label: str = f"{prefix}Model") -> Part:
        return group(name, label, shared, encoder, decoder(target), path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    if untied:
        head = replace(embedding("lm_head", "output projection (untied: a weight of its own, no bias)", V, D,
                                 "lm_head"), matrix=D * V)
    else:
        head = tied_tensor("lm_head", "output projection (the shared table, transposed)", "model.shared", "lm_head",
                           matrix=D * V)
    head = replace(as_kind(head, "heads"), tokens=s_d)  # it projects the decoder's rows
    # ForCausalLM: the decoder alone (its cross-attention blocks built, not run) and a head of V rows, tied to the
    # decoder's table unless untied.
    causal_tokens = embedding("tokens", "target token embeddings", V, D, "embed_tokens")
    causal_head = as_kind(replace(embedding("lm_head", "output projection (untied: a weight of its own, no bias)", V, D,
                                            "lm_head"), matrix=D * V) if untied else
                          tied_tensor("lm_head", "output projection (the target embeddings, transposed)",
                                      "model.decoder.embed_tokens", "lm_head", matrix=D * V), "heads")
    # BartClassificationHead on one row a sequence: the decoder's state at the last end-of-sequence token.
    classification = group("classification_head", "classification head: dense (tanh), then out_proj to C labels",
                           linear("dense", "dense", D, D, True, "dense"),
                           linear("out_proj", "out_proj", D, C, True, "out_proj"),
                           path="classification_head", kind="heads", tokens=1)
    return {
        f"{prefix}Model": model(None, f"{prefix}Model", f"{prefix}Model: shared embeddings, encoder, decoder"),
        f"{prefix}ForConditionalGeneration": group(
            f"{prefix}ForConditionalGeneration", "with its output projection (final_logits_bias is a buffer)",
            model("model"), head, symbol=rf"N_{{\mathrm{{{prefix}ForConditionalGeneration}}}}"),
        f"{prefix}ForSequenceClassification": group(
            f"{prefix}ForSequenceClassification", "with a classification head on the last end-of-sequence token",
            model("model"), classification, symbol=rf"N_{{\mathrm{{{prefix}ForSequenceClassification}}}}"),
        f"{prefix}ForQuestionAnswering": group(
            f"{prefix}ForQuestionAnswering", "with a span head on the decoder's output",
            # config.num_labels = 2, set by the class itself: a start and an end logit whatever the config says.
            model("model"), replace(span_head(D, 2), tokens=s_d),
            symbol=rf"N_{{\mathrm{{{prefix}ForQuestionAnswering}}}}"),
        f"{prefix}ForCausalLM": group(
            f"{prefix}ForCausalLM", "the decoder alone, with an output projection",
            group("model", "decoder wrapper", decoder(causal_tokens, alone=True), path="model"),
            causal_head, symbol=rf"N_{{\mathrm{{{prefix}ForCausalLM}}}}"),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.bart.READER.layout): nothing tied (tie_word_embeddings false).
VARIANTS = reader.READER.layout.variants(architectures)
_GENERATION = ARCHITECTURES["BartForConditionalGeneration"]

# The pieces as the page shows them: one layer of each stack, the embeddings of one stack, and what BART adds to the
# original Transformer's layout (Marian's): per stack, the learned positions and the embedding norm.
layer = encoder_layer()
cross_layer = decoder_layer()
stack_embeddings = group("stack_embeddings", "one stack's positions and embedding norm", positions(), embedding_norm())
over_marian = sympy.expand(2 * stack_embeddings.total)
# What parameters() leaves out and the state dict keeps: final_logits_bias, one float a token of the vocabulary.
final_logits_bias = V

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("lewis2019", "paper", "Lewis et al.", "BART: Denoising Sequence-to-Sequence Pre-training for Natural "
           "Language Generation, Translation, and Comprehension", "ACL 2020; arXiv:1910.13461", 2019,
           "https://arxiv.org/abs/1910.13461", short="Lewis et al. 2019"),
    Source("hub-facebook-bart", "config", "Meta (Facebook AI)", "BART checkpoints: config.json of facebook/bart-base, "
           "facebook/bart-large and facebook/bart-large-cnn", "Hugging Face, facebook", 2020,
           "https://huggingface.co/facebook/bart-large", read="2026-11-26",
           short="facebook/bart-* on the Hugging Face hub"),
    Source("promptlayer-bart", "card", "PromptLayer", "Model pages of facebook/bart-base (“Parameter Count 139M "
           "parameters”) and facebook/bart-large-cnn (“Parameter Count 406M”)", "promptlayer.com", 2025,
           "https://promptlayer.com/models/bart-base-8ea8", read="2026-11-26", short="PromptLayer's model pages"),
    Source("transformers-11574", "thread", "mnskim", "Number of BART layers is confusing in the Pretrained models "
           "page (quoting it: facebook/bart-large “24-layer, 1024-hidden, 16-heads, 406M parameters”, "
           "facebook/bart-base “12-layer, 768-hidden, 16-heads, 139M parameters”)",
           "GitHub, huggingface/transformers#11574", 2021,
           "https://github.com/huggingface/transformers/issues/11574", read="2026-11-26",
           short="transformers#11574"),
    Source("vips-bart-large", "card", "VIPS engineering",
           "BART Large (“The 'large' checkpoint (~400M parameters)”)",
           "learn.engineering.vips.edu", 2026, "https://learn.engineering.vips.edu/ai-models/meta-bart-large",
           read="2026-11-26", short="a BART Large summary page"),
)

_PROMPTLAYER = Citation("promptlayer-bart", "the “Parameter Count” row")


def _rounded(name: str, claim: int, what: str, source: Citation, checkpoint: str, printed: str,
             precision: int) -> Rounded:
    # The count of BartForConditionalGeneration, and with final_logits_bias (a buffer the checkpoint stores).
    with_buffer = group("with_final_logits_bias", "with final_logits_bias (a buffer, V floats)", _GENERATION,
                        leaf("final_logits_bias", "final_logits_bias", V))
    return Rounded(name, claim, what, source, checkpoint, (_GENERATION, with_buffer), precision=precision,
                   printed=printed)


# transformers' own "Pretrained models" page, as the issue quotes it: its layers are both stacks' (6 + 6, 12 + 12), and
# bart-base's "16-heads" is 12 (the count does not depend on the heads).
_PRETRAINED = Citation("transformers-11574", "the page it quotes")

ROUNDED = (
    _rounded("base_139m", 139_000_000, "bart-base", _PRETRAINED, "bart-base", "139M", 10**6),
    _rounded("large_406m", 406_000_000, "bart-large", _PRETRAINED, "bart-large", "406M", 10**6),
    _rounded("large_cnn_406m", 406_000_000, "bart-large-cnn", _PROMPTLAYER, "bart-large-cnn", "406M", 10**6),
    _rounded("large_400m", 400_000_000, "BART Large, “~400M parameters”",
             Citation("vips-bart-large", "the summary"),
             "bart-large", "~400M", 10**8),
)
base_139m, large_406m, large_cnn_406m, large_400m = ROUNDED



# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_bart.py (and modeling_mbart.py, ``pre``),
# statement by statement. BART's layers are Marian's (transformer.layer_forward, post-LN); mBART's normalize first
# (pre_layer_forward). The encoder reads the source ids alone (no mask is built), the decoder its ids alone (it makes a
# mask of ones itself); ForCausalLM is given a mask of ones, as a tokenizer gives it.
# ---------------------------------------------------------------------------------------------

def pre_layer_forward(t: tr.Timeline, x: str, out: str, queries: sympy.Expr, width: sympy.Expr, self_attention: dict,
                      cross: dict | None) -> str:
    """MBartEncoderLayer (or MBartDecoderLayer).forward on ``x``, its caller's (held throughout): each sublayer's
    LayerNorm (its output dies when the name is bound to the sublayer's), the sublayer, ``residual + hidden``; the
    attention weights held to the end (``hidden_states, _``), a decoder's cross-attention's in the place of the
    self-attention's."""
    rows = b * queries
    tr.layer_norm(t, "self_normed", D, rows)
    attended, weights = marian.attention_forward(t, queries, queries, weights="self_weights", **self_attention)
    t.drop("self_normed")
    t.new("self_sum", tr.activation(rows * D))
    t.drop(attended)
    residual = "self_sum"
    if cross is not None:
        tr.layer_norm(t, "cross_normed", D, rows)
        attended, cross_weights = marian.attention_forward(t, queries, s, weights="cross_weights", **cross)
        t.drop("cross_normed", weights)
        weights = cross_weights
        t.new("cross_sum", tr.activation(rows * D))
        t.drop(attended, residual)  # residual = hidden_states, below: the self-attention's sum dies
        residual = "cross_sum"
    tr.layer_norm(t, "ff_normed", D, rows)
    tr.linear(t, "fc1", rows, width)
    t.new("act", tr.activation(rows * width))
    t.drop("fc1", "ff_normed")
    tr.linear(t, "fc2", rows, D)
    t.drop("act")
    t.new(out, tr.activation(rows * D))
    t.drop("fc2", residual, weights)
    return out


def _layers(t: tr.Timeline, pre: bool, out: str, queries: sympy.Expr, width: sympy.Expr, self_attention: dict,
            cross: dict | None) -> str:
    """One layer of the stack (every layer holds the same tensors), then mBART's final LayerNorm (the layer's output
    dies when the name is bound to it). Returns the stack's output."""
    forward = pre_layer_forward if pre else marian.layer_forward
    forward(t, "hidden", out, queries, width, self_attention, cross)
    t.drop("hidden")
    if not pre:
        return out
    tr.layer_norm(t, f"{out}_normed", D, b * queries)
    t.drop(out)
    return f"{out}_normed"


def encoder_forward(t: tr.Timeline, pre: bool) -> str:
    """The encoder's forward on s tokens: ``embed_tokens(ids) * embed_scale``; the positions (``torch.arange`` expanded
    over the batch, plus the offset of 2: b s 64-bit integers, which die as the table's rows are returned), held until
    it returns; their sum, its LayerNorm (the sum dies), the layers."""
    marian.embed(t, s, "")
    t.new("encoder_arange", tr.INT64 * s)
    t.new("encoder_offset", tr.INT64 * b * s)
    t.new("embed_pos", tr.activation(b * s * D))
    t.drop("encoder_arange", "encoder_offset")
    t.new("embedded", tr.activation(b * s * D))
    tr.layer_norm(t, "hidden", D, b * s)
    t.drop("embedded")
    out = _layers(t, pre, "encoder_out", s, F, dict(cached=False, folds=(c_bt, c_bt), copied=c_t, masked=False), None)
    t.drop("inputs_embeds", "embed_pos")
    return out


def decoder_forward(t: tr.Timeline, generate: bool, alone: bool, pre: bool) -> str:
    """The decoder's forward on s_d tokens (generate: one start token, with a cache; ``alone``: ForCausalLM's decoder
    on s tokens, given a mask): the scaled embeddings, ``arange + past`` (64-bit integers), a mask of ones where none
    is given (fp32), the causal mask, the positions' rows (through the ids plus 2, which die), their sum and its
    LayerNorm, the layers. BART binds the causal mask to ``attention_mask`` (the ones die) and keeps the position ids
    to the end; mBART binds it to a name of its own (the ones live on) and binds the rows to ``position_ids`` (the ids
    die)."""
    queries = s if alone else (1 if generate else s_d)
    marian.embed(t, queries, "")
    t.new("position_arange", tr.INT64 * queries)
    t.new("position_ids", tr.INT64 * queries)
    t.drop("position_arange")
    if not alone:
        t.new("ones", tr.FP32 * b * queries)  # torch.ones(batch, length): fp32, the default dtype
    tr.causal_mask(tr.Retimed(t, {s: queries}))
    if not alone and not pre:
        t.drop("ones")
    t.new("offset_ids", tr.INT64 * queries)
    t.new("positions", tr.activation(queries * D))
    t.drop("offset_ids", *(("position_ids",) if pre else ()))
    t.new("embedded", tr.activation(b * queries * D))
    tr.layer_norm(t, "hidden", D, b * queries)
    t.drop("embedded")
    if alone:
        self_attention = dict(cached=generate, folds=(c_bt, 0 if generate else c_bt), copied=c_t)
        cross = None
    elif generate:
        self_attention = dict(cached=True, folds=(0, 0), copied=0)
        cross = dict(cached=True, folds=(0, 0), copied=0, masked=False)
    else:
        self_attention = dict(cached=False, folds=(c_btd, c_btd), copied=c_td)
        cross = dict(cached=False, folds=(c_btd, c_bt), copied=c_td, masked=False)
    out = _layers(t, pre, "decoder_out", queries, F_d, self_attention | dict(masked=True), cross)
    t.drop("inputs_embeds", "positions", "mask", *(() if pre else ("position_ids",)),
           *(("ones",) if pre and not alone else ()))
    return out


def seq2seq_forward(t: tr.Timeline, generate: bool, logits: bool, pre: bool) -> None:
    """ForConditionalGeneration.forward (the Model's without ``logits``): the encoder, whose output is held to the
    end; the decoder; ``lm_head(...) + final_logits_bias``."""
    encoder_forward(t, pre)
    decoder_forward(t, generate, alone=False, pre=pre)
    if logits:
        rows = b * (1 if generate else s_d) * V
        t.new("product", tr.activation(rows))
        t.new("logits", tr.activation(rows))
        t.drop("product")


def causal_lm_forward(t: tr.Timeline, generate: bool, pre: bool) -> None:
    """ForCausalLM.forward: the decoder alone on s tokens; the logits of every token, or of the last one."""
    decoder_forward(t, generate, alone=True, pre=pre)
    t.new("logits", tr.activation(b * (1 if generate else s) * V))


def transient(prefix: str = "Bart", pre: bool = False) -> dict[str, tr.Transient]:
    """The classes whose forward is derived: the Model, ForConditionalGeneration and ForCausalLM."""
    clamps = ("each encoder layer clamps its output" if pre else
              "each encoder layer tests its output for infinities, and clamps it where it finds one")
    assumes = dict(requires=(("activation_function", "gelu", tr.ONE_OP_ACTIVATIONS),
                             ("num_attention_heads", None, (None,))),  # an alias of the encoder's heads, read as H
                   matches=(("decoder_attention_heads", 16, "H"),), fp16=clamps)
    # ForCausalLM's generate builds its cache with a layer for each of the encoder's layers (num_hidden_layers): a
    # deeper decoder fails.
    alone = dict(assumes, at_least=(("L", "L_d"),))
    return {f"{prefix}Model": tr.transient(lambda t, generate: seq2seq_forward(t, False, False, pre), generates=False,
                                           **assumes),
            f"{prefix}ForConditionalGeneration": tr.transient(
                lambda t, generate: seq2seq_forward(t, generate, True, pre), **assumes),
            f"{prefix}ForCausalLM": tr.transient(lambda t, generate: causal_lm_forward(t, generate, pre), **alone)}


TRANSIENT = {layout: transient() for layout in VARIANTS}

FAMILY = Family(
    name="bart",
    reader=reader.READER,
    variants=VARIANTS,
    base="BartModel",
    # facebook/bart-base, facebook/bart-large and facebook/bart-large-cnn on the Hugging Face hub
    # [cite: hub-facebook-bart], read in copies committed to GitHub: bart-large as simonaz/Bart_T5-summarization holds it
    # (bart-large/config.json, commit ef319133; the hub's first version, three classes listed); bart-large-cnn as
    # CapstoneGroup1StClair/Capstone-2 saved it with transformers 4.6.1 (bart-large-cnn/config.json, commit 038dd3ab);
    # bart-base as ibmm-unibe-ch/SMILES_or_SELFIES holds the file transformers 4.12.0.dev0 wrote (bart-base/config.json,
    # commit d20ba500), whose vocabulary that project resized to 51,201: vocab_size is the hub's 50,265 here, as the
    # copy of facebook/bart-base's config in olegmelnikov's spellchecker keeps it (its depths cut to 3 there).
    checkpoints=("bart-base", "bart-large", "bart-large-cnn"),
    first_published="2019-10",
    kind="encoder-decoder",
    maker="Meta",
    headlines=(Headline("BartForConditionalGeneration", "bart-large", "large"),
               Headline("BartForConditionalGeneration", "bart-base", "base")),
    example="bart-base",
    table_symbols=(V, D, F, L, L_d),
    table_columns={"BartForConditionalGeneration": "BartForConditionalGeneration", "layer": "encoder layer",
                   "cross_layer": "decoder layer"},
    rounded=ROUNDED,
    sources=SOURCES,
    transient=TRANSIENT,
)
