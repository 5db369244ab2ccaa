"""Whisper (Radford et al. 2022), laid out as transformers' ``WhisperModel``.

An encoder-decoder in mBART's layout (derivations/families/mbart.py: pre-LN layers, a final LayerNorm on each stack,
a bias on every projection, GELU) that reads speech. Its encoder's input is a log-mel spectrogram of N_m bins and
2 N_f frames (30 seconds, 10 ms a frame): two convolutions of kernel 3, the second of stride 2, turn it into N_f
D-wide rows (conv1: N_m -> D; conv2: D -> D), and a sinusoidal table of N_f rows is added to them. That table is
registered as a parameter with requires_grad off (``embed_positions.requires_grad_(False)``): ``parameters()`` holds
its N_f D elements, nothing learns them, and the counts here leave them out, as Marian's (transformer.py). The
decoder reads text: a token table of V rows and a learned position table of P (max_target_positions) rows, no
embedding LayerNorm, and an output projection (``proj_out``) that is the token table. Each attention's key projection
has no bias (``k_proj = nn.Linear(D, D, bias=False)``); queries, values and the output keep theirs.

The encoder runs on N_f rows whatever the text: transformers refuses input features of another length than 2 N_f.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import (Part, as_kind, column_parallel, embedding, feed_forward, group, idle, layer_norm, leaf,
                          linear, tied_tensor)
from ..contract import Family, Headline
from ..readers import whisper as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, D_c, F, F_d, H, L, L_d, N_f, N_m, P, V
from .transformer import marian_attention

# ---------------------------------------------------------------------------------------------
# The encoder's input: two convolutions over the spectrogram, and frozen sinusoidal positions
# $$N_\mathrm{conv} = (3 N_\mathrm{mel} D + D) + (3 D^2 + D)$$
# ---------------------------------------------------------------------------------------------

# Conv1d(N_m, D, kernel_size=3, padding=1): each of the 2 N_f output frames reads 3 frames of N_m bins, a matrix of
# 3 N_m by D; with a bias. conv2, Conv1d(D, D, kernel_size=3, stride=2, padding=1): N_f frames out, each 3 D by D.
conv1 = replace(leaf("conv1", "first convolution (N_mel bins to D, kernel 3)", 3 * N_m * D + D, "conv1",
                     kind="embeddings", matrix=3 * N_m * D, tensors=(3 * N_m * D, D)), tokens=2 * N_f)
conv2 = replace(leaf("conv2", "second convolution (D to D, kernel 3, stride 2: halves the frames)", 3 * D**2 + D,
                     "conv2", kind="embeddings", matrix=3 * D**2, tensors=(3 * D**2, D)), tokens=N_f)
# nn.Embedding(N_f, D) filled with sinusoids and frozen: counted 0, as a table nothing learns.
source_positions = leaf("positions", "sinusoidal positions (frozen)", sympy.Integer(0), "embed_positions",
                        note="a fixed N_f-by-D table: a parameter with requires_grad off, learned by nothing",
                        kind="embeddings")
# What parameters() holds beyond the learned count, in every class that builds the encoder.
frozen_positions = N_f * D

# ---------------------------------------------------------------------------------------------
# Layers: mBART's pre-LN layers, the key projections without a bias
# $$N_\mathrm{enc} = (4D^2 + 3D) + 2D + (2DF + F + D) + 2D$$
# $$N_\mathrm{dec} = 2 (4D^2 + 3D) + 3 \cdot 2D + (2DF_\mathrm{dec} + F_\mathrm{dec} + D)$$
# ---------------------------------------------------------------------------------------------


def whisper_attention(name: str, path: str, label: str, **computes) -> Part:
    """WhisperAttention: Marian's four D-by-D maps, the key's without a bias."""
    part = marian_attention(name, path, label, **computes)
    query, key, value, output = part.children
    unbiased = column_parallel(replace(linear("key", "key projection (no bias)", D, D, False, "k_proj"),
                                       tokens=key.tokens), "kv_heads", H)
    return replace(part, children=(query, unbiased, value, output))


def _norm(name: str, path: str, sublayer: str) -> Part:
    return layer_norm(name, D, path, label=f"LayerNorm before {sublayer}")


def encoder_layer() -> Part:
    """WhisperEncoderLayer: LayerNorm, self-attention, add; LayerNorm, feed-forward, add."""
    return group(
        "layer", "encoder layer",
        _norm("self_attention_norm", "self_attn_layer_norm", "self-attention"),
        whisper_attention("self_attention", "self_attn", "self-attention"),
        _norm("feed_forward_norm", "final_layer_norm", "the feed-forward"),
        feed_forward(D, F, up="fc1", down="fc2"),
        path="layers", symbol=r"N_{\mathrm{enc}}")


def decoder_layer(alone: bool = False) -> Part:
    """WhisperDecoderLayer: masked self-attention, cross-attention over the encoder's N_f rows (built, not run, in the
    decoder ``alone``), feed-forward, each after its LayerNorm."""
    cross = whisper_attention("cross_attention", "encoder_attn",
                              "cross-attention (keys and values from the encoder's frames)", keys=N_f)
    return group(
        "layer", "decoder layer",
        _norm("self_attention_norm", "self_attn_layer_norm", "self-attention"),
        whisper_attention("self_attention", "self_attn", "masked self-attention", causal=True),
        _norm("cross_attention_norm", "encoder_attn_layer_norm", "cross-attention"),
        idle(cross) if alone else cross,
        _norm("feed_forward_norm", "final_layer_norm", "the feed-forward"),
        feed_forward(D, F_d, up="fc1", down="fc2"),
        path="layers", symbol=r"N_{\mathrm{dec}}")


def final_norm() -> Part:
    return layer_norm("final_norm", D, "layer_norm", label="final LayerNorm of the stack")


def encoder(path: str = "encoder") -> Part:
    """WhisperEncoder: the convolutions, the frozen positions, L layers, the final LayerNorm. It runs on the N_f
    frames of one 30-second window, whatever the text: its FLOPs hold no s."""
    return group("encoder", "encoder (audio)", conv1, conv2, source_positions, replace(encoder_layer(), repeat=L),
                 final_norm(), path=path, symbol=r"N_{\mathrm{encoder}}", tokens=N_f)


def decoder(alone: bool = False) -> Part:
    """WhisperDecoder: the token table (proj_out's), learned positions of P rows, L_d layers, the final LayerNorm;
    it reads the s tokens given (at most P)."""
    return group("decoder", "decoder (text)", embedding("tokens", "token embeddings", V, D, "embed_tokens"),
                 embedding("positions", "learned positions (P rows)", P, D, "embed_positions"),
                 replace(decoder_layer(alone), repeat=L_d), final_norm(), path="decoder",
                 symbol=r"N_{\mathrm{decoder}}")


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------

def architectures(untied: bool = False, weighted: bool = False) -> dict[str, Part]:
    """Every Whisper class transformers builds from a whisper config, in one layout: ``untied``
    (tie_word_embeddings false: proj_out a weight of its own), ``weighted`` (use_weighted_layer_sum: the audio
    classifier's L + 1 weights over the encoder's hidden states)."""

    def head(to: str) -> Part:
        if untied:
            return as_kind(replace(embedding("proj_out", "output projection (untied: a weight of its own, no bias)",
                                             V, D, "proj_out"), matrix=D * V), "heads")
        return as_kind(tied_tensor("proj_out", "output projection (the decoder's token table, transposed)", to,
                                   "proj_out", matrix=D * V), "heads")

    def model(name: str, label: str, path: str | None) -> Part:
        return group(name, label, encoder(), decoder(), path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    # WhisperForAudioClassification: the encoder; a projection of each frame's state to D_c, averaged over the frames;
    # a classifier of C labels on the average (one row).
    weights = (leaf("layer_weights", "weights over the encoder's L + 1 hidden states (use_weighted_layer_sum)",
                    L + 1, "layer_weights", kind="heads"),) if weighted else ()
    classification = (*weights,
                      replace(as_kind(linear("projector", "projector (D to D_c, each frame)", D, D_c, True,
                                             "projector"), "heads"), tokens=N_f),
                      replace(as_kind(linear("classifier", "classifier (on the frames' mean)", D_c, C, True,
                                             "classifier"), "heads"), tokens=sympy.Integer(1)))
    return {
        "WhisperModel": model("WhisperModel", "WhisperModel: audio encoder, text decoder", None),
        "WhisperForConditionalGeneration": group(
            "WhisperForConditionalGeneration", "with its output projection",
            model("model", "WhisperModel", "model"), head("model.decoder.embed_tokens"),
            symbol=r"N_{\mathrm{WhisperForConditionalGeneration}}"),
        # WhisperForCausalLM: WhisperDecoderWrapper (model) around the decoder, whose cross-attention is built and
        # not run (config.is_encoder_decoder is set false), and proj_out.
        "WhisperForCausalLM": group(
            "WhisperForCausalLM", "the decoder alone, with an output projection",
            group("model", "decoder wrapper", decoder(alone=True), path="model"),
            head("model.decoder.embed_tokens"), symbol=r"N_{\mathrm{WhisperForCausalLM}}"),
        "WhisperForAudioClassification": group(
            "WhisperForAudioClassification", "the encoder, a projector and a classifier",
            encoder(), *classification, symbol=r"N_{\mathrm{WhisperForAudioClassification}}"),
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
_GENERATION = ARCHITECTURES["WhisperForConditionalGeneration"]

# The pieces as the page shows them.
layer = encoder_layer()
cross_layer = decoder_layer()
convolutions = group("convolutions", "the two convolutions", conv1, conv2)
# What parameters() yields: the learned count and the frozen sinusoidal table of the encoder.
with_frozen = group("with_frozen", "with the encoder's frozen positions (parameters())", _GENERATION,
                    leaf("frozen_positions", "the encoder's sinusoidal table (requires_grad off)", frozen_positions))
parameters_with_frozen = with_frozen.total
# Against mBART's layout at the same sizes: the convolutions in place of a source token table, no embedding norms,
# no biases on the 2 L + 2 L_d key projections, the decoder's P rows in place of P + 2.

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_READ = "2026-11-26"
SOURCES = declare(
    Source("radford2022", "paper", "Radford et al.", "Robust Speech Recognition via Large-Scale Weak Supervision",
           "ICML 2023; arXiv:2212.04356", 2022, "https://arxiv.org/abs/2212.04356", short="Radford et al. 2022"),
    Source("hub-openai-whisper", "config", "OpenAI", "Whisper checkpoints: config.json of openai/whisper-tiny, "
           "whisper-base, whisper-small, whisper-medium and whisper-large-v3", "Hugging Face, openai", 2022,
           "https://huggingface.co/openai/whisper-large-v3", read=_READ, short="openai/whisper-* on the Hugging Face hub"),
)

_TABLE1 = Citation("radford2022", "Table 1")
# What a count of Whisper may have meant: the learned parameters, and parameters() with the encoder's frozen table
# (what model.num_parameters() and openai-whisper's own tally, its encoder table a buffer there, differ by).
_CONVENTIONS = (_GENERATION, with_frozen)


def _row(name: str, claim: int, what: str, checkpoint: str, printed: str) -> Rounded:
    return Rounded(name, claim, what, _TABLE1, checkpoint, _CONVENTIONS, precision=10**6, printed=printed)


ROUNDED = (
    _row("tiny_39m", 39_000_000, "Whisper tiny: 4 layers, width 384, 6 heads, 39M", "whisper-tiny", "39M"),
    _row("base_74m", 74_000_000, "Whisper base: 6 layers, width 512, 8 heads, 74M", "whisper-base", "74M"),
    _row("small_244m", 244_000_000, "Whisper small: 12 layers, width 768, 12 heads, 244M", "whisper-small", "244M"),
    _row("medium_769m", 769_000_000, "Whisper medium: 24 layers, width 1024, 16 heads, 769M", "whisper-medium",
         "769M"),
    _row("large_1550m", 1_550_000_000, "Whisper large: 32 layers, width 1280, 20 heads, 1550M", "whisper-large-v3",
         "1550M"),
)
tiny_39m, base_74m, small_244m, medium_769m, large_1550m = ROUNDED

FAMILY = Family(
    name="whisper",
    reader=reader.READER,
    variants=VARIANTS,
    base="WhisperModel",
    # openai/whisper-tiny, -base, -small, -medium and -large-v3 on the Hugging Face hub [cite: hub-openai-whisper],
    # read in public copies: whisper-small whole, as a write-up of transformers' pipeline prints the hub's file from its
    # cache (snapshot 973afd24, transformers 4.27.0.dev0); whisper-large-v3 whole, as a distil-whisper training
    # script's comments print its WhisperConfig (snapshot 06f233fe: 128 mel bins, vocab_size 51,866, pad 50,256);
    # whisper-base's sizes as a script that rewrites a fine-tune's config from openai/whisper-base gives them. The
    # sizes of all five are OpenAI's ModelDimensions as k2-fsa/sherpa-onnx lists them (scripts/whisper/model-info.md)
    # and the paper's Table 1; the fields no copy showed for tiny, base and medium (token ids, versions) are small's.
    checkpoints=("whisper-tiny", "whisper-base", "whisper-small", "whisper-medium", "whisper-large-v3"),
    first_published="2022-12",
    kind="encoder-decoder",
    maker="OpenAI",
    headlines=(Headline("WhisperForConditionalGeneration", "whisper-large-v3", "large-v3"),
               Headline("WhisperForConditionalGeneration", "whisper-small", "small")),
    example="whisper-small",
    table_symbols=(V, N_m, D, L, L_d),
    table_columns={"WhisperForConditionalGeneration": "WhisperForConditionalGeneration",
                   "parameters_with_frozen": "parameters()", "layer": "encoder layer",
                   "cross_layer": "decoder layer"},
    rounded=ROUNDED,
    sources=SOURCES,
    # The encoder's frames: one 30-second window is N_f rows, whatever --seq; a class that reads audio alone (the
    # audio classifier) takes no length.
    image_tokens=N_f,
)
