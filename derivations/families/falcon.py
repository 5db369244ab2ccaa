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
from ..symbols import C, D, F, H, K, L, V, d_h

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
    ratios={d_h: (D, H)},  # the calculator's head size: the width over the heads
    layout_free=("layer_7b", "layer_40b", "model_40b", "non_embedding", "non_embedding_40b"),
)
