"""Gemma 2 (Gemma Team 2024), laid out as transformers' ``Gemma2Model``.

Gemma's blocks (``derivations.gemma``: head size 256 or 128 whatever the width, GeGLU, RMSNorm scaling by
``1 + w``, a tied head) with four RMSNorms in each layer instead of two: before and after the attention,
before and after the feed-forward (the outputs of both blocks are normalized before the residual). Local
(sliding-window) and global attention alternate layer by layer, and the logits of the attention and of the
head are soft-capped (``tanh``): masks and functions, no parameter.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import gemma
from ..claims import Rounded
from ..components import Part, group
from ..readers import gemma2 as reader
from ..sources import Citation
from functools import partial

from . import llama
from .. import transient as tr
from ..symbols import D, F, H, K, L, V, b, d_h, f_a, f_b, s


def decoder_layer(attention_bias: bool = False) -> Part:
    """Gemma2DecoderLayer (``layers.<i>``): RMSNorm, attention, RMSNorm, residual; RMSNorm, GeGLU feed-forward,
    RMSNorm, residual.
    $$N_\\mathrm{layer} = 4D + D H d_h + 2 D K d_h + H d_h D + 3 D F$$"""
    return group("layer", "decoder layer",
                 gemma.norm("attention_norm", "input_layernorm", "RMSNorm before attention"),
                 gemma.self_attention(attention_bias),
                 gemma.norm("attention_output_norm", "post_attention_layernorm", "RMSNorm of the attention's output"),
                 gemma.norm("feed_forward_norm", "pre_feedforward_layernorm", "RMSNorm before the feed-forward"),
                 gemma.gated_feed_forward,
                 gemma.norm("feed_forward_output_norm", "post_feedforward_layernorm",
                            "RMSNorm of the feed-forward's output"),
                 path="layers", symbol=r"N_{\mathrm{layer}}")


layer = decoder_layer()
attention_block = layer.child("attention")


def architectures(attention_bias: bool = False, untied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    return gemma.classes("Gemma2", "Gemma2Model", "Gemma2ForCausalLM", decoder_layer(attention_bias), untied=untied,
                         no_token_bias=no_token_bias, tasks=("ForSequenceClassification", "ForTokenClassification"))


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)


embedding_parameters = gemma.embedding_parameters
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings; the head is tied)",
                      replace(layer, repeat=L), gemma.final_norm, symbol=r"N_{\text{non-emb}}")
# What the two extra norms of each layer add to a Gemma layer of the same sizes.
extra_norms = replace(group("extra_norms", "the norms of the attention's and the feed-forward's outputs",
                            layer.child("attention_output_norm"), layer.child("feed_forward_output_norm")))
feedforward_hidden_dims = gemma.feedforward_hidden_dims
padded_rows = gemma.padded_rows


# The paper's Table 2, exact: the embeddings at the paper's 256,128 rows, the rest as released.
_TABLE_2 = Citation("gemma2-2024", "Table 2, “Embedding Parameters” and “Non-embedding Parameters”")
_PAPER_ROWS = {V: gemma.PAPER_VOCABULARY}
PAPER = tuple(
    claim for checkpoint, size, embedding, rest in (
        ("gemma-2-2b", "2B", 590_118_912, 2_024_517_888), ("gemma-2-9b", "9B", 917_962_752, 8_324_201_984),
        ("gemma-2-27b", "27B", 1_180_237_824, 26_047_480_320))
    for claim in (
        Rounded(f"paper_{size.lower()}_embedding", embedding, f"Gemma 2 {size}, embedding parameters", _TABLE_2,
                checkpoint, (embedding_parameters,), precision=1, overrides=_PAPER_ROWS, printed=f"{embedding:,}"),
        Rounded(f"paper_{size.lower()}_non_embedding", rest, f"Gemma 2 {size}, non-embedding parameters", _TABLE_2,
                checkpoint, (non_embedding,), precision=1, printed=f"{rest:,}")))


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): Gemma's, with four norms a layer, softcapped scores and
# logits, and both masks (every other layer slides)
# ---------------------------------------------------------------------------------------------

def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """Gemma2DecoderLayer.forward on ``x`` (its caller's): input norm, attention, its output normed, residual add;
    pre-feedforward norm, the MLP, its output normed, residual add. The attention weights (``_``) live until the
    layer returns."""
    stream = tr.activation(b * s * D)
    normed = kin.norm(t, "input_norm", D)
    attended, weights = kin.attention(t, normed, generate)
    t.drop(normed)
    normed = kin.norm(t, "post_attention_norm", D)
    t.drop(attended)
    t.new("residual", stream)
    t.drop(normed)
    normed = kin.norm(t, "pre_feedforward_norm", D)
    mlp = kin.mlp(t, normed)
    t.drop(normed)
    normed = kin.norm(t, "post_feedforward_norm", D)
    t.drop(mlp)
    t.new(out, stream)
    t.drop(normed, "residual", *weights)
    return out


def logits(t: tr.Timeline, rows) -> str:
    """Gemma2ForCausalLM's logits, softcapped by final_logit_softcapping (where f_b is 0: the cap is set)."""
    t.new("logits", tr.activation(rows * V))
    return tr.softcap(t, "capped_logits", "logits", rows * V, 1 - f_b)


KIN = replace(gemma.KIN, layer=layer_forward, logits=logits,
              masks=lambda t, sliding: (tr.causal_mask(t), tr.causal_mask(t, True, "sliding_mask")),
              attention=partial(llama.attention_forward, capped=1 - f_a))
# Either softcap may be unset (null): f_a and f_b say so.
TRANSIENT = llama.transient("Gemma2", KIN, layouts=VARIANTS,
                            requires=(("hidden_activation", "gelu_pytorch_tanh", ("gelu_pytorch_tanh", "gelu")),),
                            flags=(("f_a", "attn_logit_softcapping", 50.0, None),
                                   ("f_b", "final_logit_softcapping", 30.0, None)))


FAMILY = Family(
    name="gemma2",
    reader=reader.READER,
    variants=VARIANTS,
    base="Gemma2Model",
    # config.json of google/gemma-2-2b, -9b and -27b on the Hugging Face hub [cite: hub-google-gemma]: the fields that
    # set the count, with model_type, architectures and the context length (tie_word_embeddings by default).
    checkpoints=("gemma-2-2b", "gemma-2-9b", "gemma-2-27b"),
    first_published="2024-07",
    kind="decoder",
    maker="Google",
    headlines=(Headline("Gemma2ForCausalLM", "gemma-2-9b", "9B"), Headline("Gemma2ForCausalLM", "gemma-2-27b", "27B")),
    example="gemma-2-9b",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"Gemma2ForCausalLM": "Gemma2ForCausalLM", "non_embedding": "non-embedding"},
    rounded=PAPER,
    transient=TRANSIENT,
    # Gemma2PreTrainedModel._supports_sdpa is False ("sdpa does not support softcapping"): transformers builds it with
    # eager attention, and refuses attn_implementation="sdpa".
    no_sdpa="transformers runs Gemma 2 with eager attention only (its sdpa cannot softcap the scores)",
)
