"""BLOOM (BigScience 2022), laid out as transformers' ``BloomModel``.

A decoder-only stack of pre-LN blocks like GPT-2's, with three differences that matter for the count:

- no position table at all: positions enter as ALiBi, a bias on each head's attention scores that grows with the
  distance between query and key, at a fixed slope per head (Press et al.), computed, not learned;
- a LayerNorm right after the token embeddings (``word_embeddings_layernorm``), which GPT-2 lacks;
- the feed-forward is always four times the width (BloomMLP builds ``4 * hidden_size``: no config field sizes it).

The query, key and value maps are one fused map with biases (``query_key_value``), and the language-model head is
the token embedding (tied, BloomConfig's default).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Miscount, Rounded
from ..contract import Family, Headline
from ..components import (Part, as_kind, classifier, embedding, feed_forward, fused_attention, group, layer_norm,
                          leaf, linear, task_heads, tied_tensor)
from ..readers import bloom as reader
from ..sources import READ, Citation, Source, declare
from ..symbols import C, D, H, L, V

# ---------------------------------------------------------------------------------------------
# Embeddings: the token table, then a LayerNorm (no position table: ALiBi learns nothing)
# $$N_\mathrm{emb} = V D + 2D$$
# ---------------------------------------------------------------------------------------------

word_embeddings = embedding("word_embeddings", "token embeddings (word_embeddings; also the output head)", V, D,
                            "word_embeddings")
embeddings_norm = layer_norm("word_embeddings_layernorm", D, "word_embeddings_layernorm",
                             label="LayerNorm after the token embeddings")
embeddings = group("embeddings", "token embeddings and their LayerNorm", word_embeddings, embeddings_norm,
                   symbol=r"N_{\mathrm{emb}}")

# ---------------------------------------------------------------------------------------------
# One block (pre-LN): LayerNorm, attention (fused Q, K, V with biases, and an output map), LayerNorm, feed-forward
# $$N_\mathrm{block} = 2D + (3D^2 + 3D + D^2 + D) + 2D + (8D^2 + 4D + D) = 12D^2 + 13D$$
# ---------------------------------------------------------------------------------------------

# BloomMLP: dense_h_to_4h is D by 4D whatever the config says.
FEED_FORWARD = 4 * D

block = group(
    "block", "block",
    layer_norm("input_layernorm", D, "input_layernorm", label="LayerNorm before attention"),
    fused_attention(D, qkv="query_key_value", output="dense", path="self_attention",
                    label="causal self-attention, ALiBi positions", causal=True),
    layer_norm("post_attention_layernorm", D, "post_attention_layernorm", label="LayerNorm before the feed-forward"),
    feed_forward(D, FEED_FORWARD, up="dense_h_to_4h", down="dense_4h_to_h", path="mlp"),
    path="h", symbol=r"N_{\mathrm{block}}",
)

ln_f = layer_norm("ln_f", D, "ln_f", label="final LayerNorm (after the last block)")


def transformer(name: str = "transformer", label: str = "BloomModel: embeddings and their LayerNorm, blocks, "
                "final LayerNorm", path: str | None = "transformer") -> Part:
    # L blocks, each with weights of its own.
    return group(name, label, *embeddings.children, replace(block, repeat=L), ln_f, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


# Tied (the default), the head is the token embedding transposed; untied, a D-by-V map of its own, no bias.
lm_head = as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                              "transformer.word_embeddings", "lm_head", matrix=D * V), "heads")
lm_head_untied = as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V,
                                False, "lm_head"), "heads")


def architectures(untied: bool = False) -> dict[str, Part]:
    """Every BLOOM class of transformers, named as transformers names it."""
    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, transformer(), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "BloomModel": transformer("BloomModel", path=None),
        "BloomForCausalLM": model("BloomForCausalLM", "BLOOM with its language-model head",
                                  lm_head_untied if untied else lm_head),
        **{name: model(name, f"BLOOM {label}", head)
           for name, (label, head) in task_heads("Bloom", classifier(D, C, "classifier")).items()},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.bloom.READER.layout): an untied head.
VARIANTS = reader.READER.layout.variants(architectures)

# ---------------------------------------------------------------------------------------------
# Non-embedding parameters: everything but the token table
# $$N_{\text{non-emb}} = N_\mathrm{BloomModel} - VD = 2D + L N_\mathrm{block} + 2D$$
# ---------------------------------------------------------------------------------------------

non_embedding = group("non_embedding", "the embeddings' LayerNorm, blocks and final LayerNorm (no token table)",
                      embeddings_norm, replace(block, repeat=L), ln_f, symbol=r"N_{\text{non-emb}}")
# The share of the total that is the token table (a fraction; shown in percent).
embedding_share = word_embeddings.total / ARCHITECTURES["BloomForCausalLM"].total


# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.bloom.read reads their config.json)
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("bloom-card", "card", "BigScience", "BLOOM model cards: “Technical Specifications”, the parameters of "
           "bloom, bloom-7b1, bloom-3b, bloom-1b7, bloom-1b1 and bloom-560m", "Hugging Face, bigscience/bloom", 2022,
           "https://huggingface.co/bigscience/bloom", read=READ, short="the BLOOM model cards"),
    Source("hub-bigscience", "config", "BigScience", "BLOOM checkpoints: config.json of bloom-560m to bloom",
           "Hugging Face, bigscience", 2022, "https://huggingface.co/bigscience", read=READ,
           short="BigScience on the hub"),
    Source("demo-gpt-java", "code", "huplay", "demo-gpt-java: README.md, the BLOOM table (“Size of params”)",
           "GitHub, huplay/demo-gpt-java", 2023, "https://github.com/huplay/demo-gpt-java",
           revision="https://github.com/huplay/demo-gpt-java/blob/b8412651400dc09622d9353c9a2e5249a2ee59df/README.md",
           short="huplay/demo-gpt-java"),
)

# The six sizes BigScience released [cite: hub-bigscience]:
# - bloom-560m: bigscience/bloom-560m's config.json as a save_pretrained copy prints it, in BloomConfig's own names
#   (a GitHub note on fine-tuning it, whose "_name_or_path" is "bigscience/bloom-560m"; that field and nothing else
#   left out; PaddleNLP's copy of the original gives the same sizes as n_embed, num_attention_heads and n_layer);
# - bloom-3b: bigscience/bloom-3b's config.json as a save_pretrained copy prints it: ShadowConYT/
#   ai_tutoring_system_with_llm, bloom/config.json at 33984c18 ("_name_or_path" "bigscience/bloom-3b", left out;
#   torch_dtype float32 and transformers_version 4.27.1 are the save's, the rest the hub file's, pretraining_tp 4);
# - bloom-1b1, bloom-1b7, bloom-7b1: bloom-560m's file with the sizes (hidden_size, n_head, n_layer) of each model
#   card's "Technical Specifications" (reconstructions: the fields that size nothing are 560m's);
# - bloom (176B): the 176B's config.json as BigScience's conversion wrote it (n_embed, num_attention_heads, n_layer 70,
#   pretraining_tp 4, transformers 4.20.0.dev0), committed by the Petals authors before the release:
#   bigscience-workshop/petals, cli/config.json at a798ea04 (2022-06-14), unchanged. An earlier revision than the
#   hub's: it names no architectures (so it counts as BloomModel, the same total); the hub's own revision was not
#   found among public copies.
# Every total equals its card's exact count (tests/test_bloom.py).
CHECKPOINTS = ("bloom-560m", "bloom-1b1", "bloom-1b7", "bloom-3b", "bloom-7b1", "bloom")

# The tokenizer's entries, as the cards give its vocabulary ("A vocabulary size of 250,680" [cite: bloom-card,
# “Tokenization”]): the table's 250,880 rows are padded past it.
TOKENIZER = 250_680

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the names are the exact counts rounded at their last printed digit
# ---------------------------------------------------------------------------------------------

_CARD = Citation("bloom-card", "“Technical Specifications”")


def _name(checkpoint: str, printed: str) -> Rounded:
    number, unit = float(printed[:-1]), printed[-1]
    scale = {"M": 10**6, "B": 10**9}[unit]
    claim = round(number * scale)
    precision = scale if "." not in printed[:-1] else scale // 10
    while precision < claim and claim % (precision * 10) == 0:
        precision *= 10
    return Rounded(f"name_{checkpoint.replace('-', '_')}", claim, f"BLOOM-{printed}", _CARD, checkpoint,
                   (ARCHITECTURES["BloomForCausalLM"], non_embedding), precision=precision, printed=printed)


NAMES = tuple(_name(c, printed) for c, printed in zip(CHECKPOINTS, ("560M", "1.1B", "1.7B", "3B", "7.1B", "176B")))


# ---------------------------------------------------------------------------------------------
# A published miscount: BLOOM counted as GPT-2, with a learned position table of the context length
# ---------------------------------------------------------------------------------------------

# huplay/demo-gpt-java's README (March 2023, b841265) printed the six BLOOM sizes in whole millions, each a learned
# position table of 2,048 rows (its "Max. length" column) too large, and truncated: 561 M, 1,068 M, 1,726 M,
# 3,007 M, 7,077 M, 176,276 M. Later versions print the cards' counts (559 M ... 176,247 M).
CONTEXT = 2048
_TABLE = Citation("demo-gpt-java", "the BLOOM table, “Size of params”")


def _positions_counted(name: str, checkpoint: str, printed: str, model: str) -> Miscount:
    claim = int(printed.replace(",", "")) * 10**6
    as_gpt2 = ARCHITECTURES["BloomForCausalLM"].total + CONTEXT * D
    table = leaf("positions", "a learned position table of the context length (BLOOM has none: ALiBi)", CONTEXT * D)
    # Unevaluated, so that the page shows the count with the table, less the whole millions printed.
    dropped = leaf("truncated", "the digits below a million, dropped (the table prints whole millions)",
                   sympy.Add(as_gpt2, -claim, evaluate=False))
    return Miscount(
        name, claim, f"{model}: “{printed} M”", _TABLE, checkpoint,
        ARCHITECTURES["BloomForCausalLM"],
        terms=(replace(table, name="no_positions", label="the position table BLOOM does not have", expr=-table.expr),
               dropped),
        reconstruction=group("claimed", "BloomForCausalLM with a GPT-2 position table, truncated to millions",
                             ARCHITECTURES["BloomForCausalLM"], table,
                             replace(dropped, name="truncation", expr=-dropped.expr)),
        printed=f"{printed} M", model=f"{model} (<code>{checkpoint}</code>)",
        cause="that counts a learned position table of the context length, which ALiBi replaces, and drops the "
              "digits below a million")


position_table_176b = _positions_counted("position_table_176b", "bloom", "176,276", "BLOOM-176B")
position_table_560m = _positions_counted("position_table_560m", "bloom-560m", "561", "BLOOM-560M")


FAMILY = Family(
    name="bloom",
    reader=reader.READER,
    variants=VARIANTS,
    base="BloomModel",
    checkpoints=CHECKPOINTS,
    first_published="2022-07",
    kind="decoder",
    maker="BigScience",
    headlines=(Headline("BloomForCausalLM", "bloom", "176B"), Headline("BloomForCausalLM", "bloom-560m", "560M")),
    example="bloom-560m",
    table_symbols=(L, D, H, V),
    table_columns={"BloomForCausalLM": "BloomForCausalLM", "non_embedding": "non-embedding",
                   "embedding_share | percent": "token table / total (%)"},
    rounded=NAMES,
    miscounts=(position_table_176b, position_table_560m),
    sources=SOURCES,
)
