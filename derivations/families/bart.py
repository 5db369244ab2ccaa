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
from ..symbols import C, D, F, F_d, L, L_d, P, V, s, s_d
from .transformer import marian_attention

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


ROUNDED = (
    _rounded("base_139m", 139_000_000, "bart-base", _PROMPTLAYER, "bart-base", "139M", 10**6),
    _rounded("large_cnn_406m", 406_000_000, "bart-large-cnn", _PROMPTLAYER, "bart-large-cnn", "406M", 10**6),
    _rounded("large_400m", 400_000_000, "BART Large, “~400M parameters”",
             Citation("vips-bart-large", "the summary"),
             "bart-large", "~400M", 10**8),
)
base_139m, large_cnn_406m, large_400m = ROUNDED


FAMILY = Family(
    name="bart",
    reader=reader.READER,
    variants=VARIANTS,
    base="BartModel",
    # facebook/bart-base, facebook/bart-large and facebook/bart-large-cnn on the Hugging Face hub [cite:
    # hub-facebook-bart], read in copies committed to GitHub: bart-large as simonaz/Bart_T5-summarization holds it
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
)
