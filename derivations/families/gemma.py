"""Gemma (Gemma Team 2024), laid out as transformers' ``GemmaModel``.

A decoder-only stack in LLaMA's arrangement (``derivations.llama``): pre-norm layers of RMSNorm,
self-attention with ``K`` key/value heads (one in Gemma 2B: multi-query attention), RMSNorm and a gated
feed-forward; a final RMSNorm and a head tied to the token embeddings. What differs from LLaMA:

- the head size ``d_h`` is 256 whatever the width (``head_dim``): Gemma 7B has 16 heads of 256 in a
  width of 3,072, so its attention maps to 4,096 coordinates and back;
- the gate of the feed-forward is GELU (GeGLU), not SiLU: the same three matrices;
- RMSNorm scales by ``1 + w`` with ``w`` stored (initialized at zero): still ``D`` parameters;
- the token embeddings are multiplied by the square root of ``D`` (a constant buffer, not a parameter).

Gemma 2 (``derivations.gemma2``) and Gemma 3 (``derivations.gemma3_text``) build on these blocks.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from . import llama
from ..claims import Rounded
from ..components import Part, as_kind, feed_forward, group, leaf, rms_norm, score, task_heads, tied_tensor, linear
from ..readers import gemma as reader
from ..sources import Citation
from ..symbols import C, D, F, H, K, L, V, b, d_h, s
from .. import transient as tr


# ---------------------------------------------------------------------------------------------
# The blocks (Gemma 2 and Gemma 3 reuse them)
# ---------------------------------------------------------------------------------------------


def norm(name: str, path: str, label: str) -> Part:
    """GemmaRMSNorm: x / rms(x) * (1 + w), with w stored: D parameters, as any RMSNorm."""
    return replace(rms_norm(name, D, path, label=label), note="scales by 1 + w: w is what is stored")


# $$\mathrm{FFN}(x) = (\mathrm{GELU}(x W_\mathrm{gate}) \odot x W_\mathrm{up}) W_\mathrm{down}$$  3 D F
gated_feed_forward = feed_forward(D, F, bias=False, gate="gate_proj", up="up_proj", down="down_proj", path="mlp",
                                  label="gated (GeGLU) feed-forward")


def self_attention(bias: bool = False) -> Part:
    """GemmaAttention (``self_attn``): LLaMA's four projections, d_h = head_dim (256) whatever the width;
    with ``attention_bias`` all four have a bias."""
    return llama.self_attention(bias)


token_embeddings = replace(llama.token_embeddings, note="multiplied by the square root of D: a constant, not a parameter")
final_norm = norm("final_norm", "norm", "final RMSNorm (after the last layer)")


def decoder_layer(attention_bias: bool = False) -> Part:
    """GemmaDecoderLayer (``layers.<i>``): RMSNorm, attention, residual; RMSNorm, GeGLU feed-forward, residual."""
    return group("layer", "decoder layer",
                 norm("attention_norm", "input_layernorm", "RMSNorm before attention"),
                 self_attention(attention_bias),
                 norm("feed_forward_norm", "post_attention_layernorm", "RMSNorm before the feed-forward"),
                 gated_feed_forward,
                 path="layers", symbol=r"N_{\mathrm{layer}}")


def lm_head(untied: bool) -> Part:
    """The language-model head: the token embedding table (tied, as every Gemma is), or a D-by-V map."""
    if untied:
        return as_kind(linear("lm_head", "language-model head (a weight of its own, no bias)", D, V, False, "lm_head"),
                       "heads")
    return as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                               "model.embed_tokens", "lm_head", matrix=D * V), "heads")


def classes(prefix: str, body: str, causal: str, layer: Part, *, untied: bool, no_token_bias: bool,
            tasks: tuple[str, ...], sequence: str = "") -> dict[str, Part]:
    """A Gemma family's classes: the body ``body`` (embeddings, L layers, final norm), the causal LM
    ``causal`` with its head, and the task classes of ``tasks`` that transformers defines for it
    (``ForSequenceClassification``, ``ForTokenClassification``; ``sequence`` renames the first)."""
    layers = group(body, f"{body}: embeddings, layers, final RMSNorm", token_embeddings, replace(layer, repeat=L),
                   final_norm, symbol=rf"N_{{\mathrm{{{body}}}}}")
    out = {body: layers}

    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, replace(layers, path="model"), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    out[causal] = model(causal, "with the language-model head", lm_head(untied))
    heads = task_heads(prefix, score(D, C, not no_token_bias))
    for task in tasks:
        label, head = heads[f"{prefix}{task}"]
        name = sequence if task == "ForSequenceClassification" and sequence else f"{prefix}{task}"
        out[name] = model(name, label, head)
    return out


# ---------------------------------------------------------------------------------------------
# Gemma's classes
# $$N_\mathrm{layer} = 2D + D H d_h + 2 D K d_h + H d_h D + 3 D F$$
# ---------------------------------------------------------------------------------------------

layer = decoder_layer()
attention_block = layer.child("attention")


def architectures(attention_bias: bool = False, untied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    return classes("Gemma", "GemmaModel", "GemmaForCausalLM", decoder_layer(attention_bias), untied=untied,
                   no_token_bias=no_token_bias, tasks=("ForSequenceClassification", "ForTokenClassification"))


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)


# The papers' split: the token embedding table, and everything else (layers and final norm; the head is tied).
embedding_parameters = replace(token_embeddings, name="embedding_parameters", symbol=r"N_{\text{emb}}")
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings; the head is tied)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

# The papers' "Feedforward hidden dims" count the gate and the up projection together: twice F.
feedforward_hidden_dims = leaf("feedforward_hidden_dims", "the papers' feed-forward hidden dimension", 2 * F)

# The papers count a vocabulary of 256,128 rows; the released configs have 256,000. The difference, in
# embedding parameters:
PAPER_VOCABULARY = 256_128
paper_vocabulary = sympy.Integer(PAPER_VOCABULARY)
padded_rows = leaf("padded_rows", "the 128 rows the papers count beyond the released 256,000",
                   (PAPER_VOCABULARY - V) * D)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the paper's Table 2 (exact), at the paper's vocabulary for the embeddings
# ---------------------------------------------------------------------------------------------

_TABLE_2 = Citation("gemma2024", "Table 2, “Embedding Parameters” and “Non-embedding Parameters”")
_PAPER_ROWS = {V: PAPER_VOCABULARY}
PAPER = (
    Rounded("paper_2b_embedding", 524_550_144, "Gemma 2B, embedding parameters", _TABLE_2, "gemma-2b",
            (embedding_parameters,), precision=1, overrides=_PAPER_ROWS, printed="524,550,144"),
    Rounded("paper_2b_non_embedding", 1_981_884_416, "Gemma 2B, non-embedding parameters", _TABLE_2, "gemma-2b",
            (non_embedding,), precision=1, printed="1,981,884,416"),
    Rounded("paper_7b_embedding", 786_825_216, "Gemma 7B, embedding parameters", _TABLE_2, "gemma-7b",
            (embedding_parameters,), precision=1, overrides=_PAPER_ROWS, printed="786,825,216"),
    Rounded("paper_7b_non_embedding", 7_751_248_896, "Gemma 7B, non-embedding parameters", _TABLE_2, "gemma-7b",
            (non_embedding,), precision=1, printed="7,751,248,896"),
)
# The names, from the abstract ("two sizes of models (2 billion and 7 billion parameters)"): the 2B rounds its
# non-embedding count (1.98 billion), not its total (2.51 billion); "7B" rounds neither (8.54 billion, 7.75 billion
# without the embeddings: the name truncates the second).
NAMES = (
    Rounded("name_2b", 2 * 10**9, "Gemma 2B, the name", Citation("gemma2024", "abstract: “2 billion and 7 billion parameters”"), "gemma-2b",
            (ARCHITECTURES["GemmaForCausalLM"], non_embedding), precision=10**9, printed="2B"),
    Rounded("name_7b", 7 * 10**9, "Gemma 7B, the name", Citation("gemma2024", "abstract: “2 billion and 7 billion parameters”"), "gemma-7b",
            (ARCHITECTURES["GemmaForCausalLM"], non_embedding), precision=10**9, printed="7B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): LLaMA's, with Gemma's scaled embeddings and its norm
# ---------------------------------------------------------------------------------------------

def embed(t: tr.Timeline) -> str:
    """GemmaTextScaledWordEmbedding.forward: the rows looked up, times ``embed_scale.to(weight.dtype)`` (a scalar
    buffer made in the model's dtype: no copy); the product is what the model holds."""
    stream = tr.activation(b * s * D)
    t.new("looked_up", stream)
    t.new("embeddings", stream)
    t.drop("looked_up")
    return "embeddings"


KIN = llama.Kin(norm=tr.gemma_rms_norm, embed=embed)
# One tensor an activation (torch's GELU, tanh-approximated: GemmaConfig turns a legacy "gelu" into it): the path
# the program follows.
ACTIVATION = (("hidden_act", "gelu_pytorch_tanh", ("gelu_pytorch_tanh", "gelu")),)
TRANSIENT = llama.transient("Gemma", KIN, layouts=VARIANTS, requires=ACTIVATION)
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = llama.transient("Gemma", KIN, layouts=VARIANTS, requires=ACTIVATION, attention="sdpa")


FAMILY = Family(
    name="gemma",
    reader=reader.READER,
    variants=VARIANTS,
    base="GemmaModel",
    # config.json of google/gemma-2b and google/gemma-7b on the Hugging Face hub [cite: hub-google-gemma]: the fields
    # that set the count (sizes, head_dim, vocabulary), with model_type, architectures and the context length.
    # Neither says tie_word_embeddings: GemmaConfig's default, true, ties the head.
    checkpoints=("gemma-2b", "gemma-7b"),
    first_published="2024-03",
    kind="decoder",
    maker="Google",
    headlines=(Headline("GemmaForCausalLM", "gemma-2b", "2B"), Headline("GemmaForCausalLM", "gemma-7b", "7B")),
    example="gemma-7b",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"GemmaForCausalLM": "GemmaForCausalLM", "non_embedding": "non-embedding"},
    rounded=PAPER + NAMES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
