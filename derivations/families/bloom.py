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
from ..symbols import C, D, H, H_a, L, V, a_r, b, c_bt, c_t, d_h, l_2, s, u
from .. import transient as tr

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
    return Rounded.of_name(f"name_{checkpoint.replace('-', '_')}", printed, f"BLOOM-{printed}", _CARD, checkpoint,
                           (ARCHITECTURES["BloomForCausalLM"], non_embedding))


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


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_bloom.py, statement by statement
# ---------------------------------------------------------------------------------------------

def alibi_slopes(t: tr.Timeline) -> str:
    """_get_alibi_slopes: ``torch.full`` of the base (an fp32 scalar), ``torch.arange`` of the H_a powers (int32),
    ``torch.pow``: the slopes of the first H_a heads (fp32); where H is not a power of two (a_r), the same for the
    H - H_a others (odd powers of another base) and ``torch.cat`` of both, the first slopes and the others' powers
    dying as the name is bound again; the scalars and the aranges die as it returns."""
    t.new("alibi.base", tr.FP32)
    t.new("alibi.powers", 4 * H_a)  # int32
    t.new("alibi.first", tr.FP32 * H_a)
    t.split("alibi.first", **{"alibi.first.replaced": a_r, "alibi.first.kept": 1 - a_r})
    t.new("alibi.extra_base", tr.FP32 * a_r)
    t.new("alibi.extra_powers", 4 * (H - H_a))  # int32, none where H is a power of two
    t.new("alibi.extra", tr.FP32 * (H - H_a))
    t.new("alibi.joined", tr.FP32 * a_r * H)
    t.drop("alibi.extra", "alibi.first.replaced")
    t.drop("alibi.base", "alibi.powers", "alibi.extra_base", "alibi.extra_powers")  # the function returns
    return t.join("alibi.slopes", "alibi.joined", "alibi.first.kept")


def alibi_tensor(t: tr.Timeline) -> str:
    """build_alibi_tensor on a mask of ones: the slopes (:func:`alibi_slopes`), ``((mask.cumsum(-1) - 1) * mask)``
    (64-bit, the mask's), ``slopes[..., None] * arange`` (fp32, b H s), ``.to(dtype)`` (a copy below fp32, the
    product itself in fp32), the rest dying as it returns: b H s values, held by the model for every block."""
    slopes = alibi_slopes(t)
    t.new("alibi.cumsum", tr.INT64 * b * s)
    t.new("alibi.minus_one", tr.INT64 * b * s)
    t.drop("alibi.cumsum")
    t.new("alibi.positions", tr.INT64 * b * s)
    t.drop("alibi.minus_one")
    t.new("alibi.product", tr.FP32 * u * b * H * s)
    t.new("alibi.kept", tr.FP32 * (1 - u) * b * H * s)
    t.new("alibi.cast", tr.downcast(b * H * s))
    t.drop(slopes, "alibi.positions", "alibi.product")  # the function returns
    return t.join("alibi", "alibi.cast", "alibi.kept")


def attention_forward(t: tr.Timeline, generate: bool) -> tuple[str, tuple[str, str]]:
    """BloomAttention.forward: query_key_value's one product, viewed per head (q, k and v views of it); with a cache
    (generate) k and v are concatenated into it and read from there (contiguous); ``reshape(b H, s, d_h)`` copies
    each view that is not one already (c_bt: more than one sequence, head and token); ``alibi.baddbmm`` (the scaled
    scores plus ALiBi), ``+ attention_mask`` (both held to the return), the softmax in fp32 cast back (returned: the
    block's caller holds it), ``bmm`` with the values, the heads merged (a copy unless one token or one head: c_t),
    dense, and ``dropout_add``, the residual added."""
    rows, heads = b * s, b * H * s
    qkv = tr.linear(t, "qkv", rows, 3 * D)
    t.new("query", tr.activation(c_bt * heads * d_h))
    t.new("key", tr.activation((0 if generate else c_bt) * heads * d_h))
    t.new("value", tr.activation((0 if generate else c_bt) * heads * d_h))
    t.new("scores", tr.activation(heads * s))
    t.new("masked", tr.activation(heads * s))
    # F.softmax(..., dtype=torch.float32).to(query_layer.dtype): the scores above are held, not dropped.
    t.new("softmax.input", tr.upcast(heads * s))
    t.new("softmax.fp32", tr.FP32 * u * heads * s)
    t.new("probabilities_fp32", tr.FP32 * (1 - u) * heads * s)
    t.drop("softmax.input")
    t.new("probabilities", tr.downcast(heads * s))
    t.drop("softmax.fp32")
    t.new("context", tr.activation(heads * d_h))
    t.split("context", **{"context.merged": c_t, "context.kept": 1 - c_t})
    t.new("context_contiguous", tr.activation(c_t * heads * d_h))
    t.drop("context.merged")  # context_layer bound again
    out = tr.linear(t, "dense", rows, D)
    t.new("attention_output", tr.activation(rows * D))  # residual + dense's output
    t.drop(out)
    t.drop(qkv, "query", "key", "value", "scores", "masked", "context.kept", "context_contiguous")  # it returns
    return "attention_output", ("probabilities", "probabilities_fp32")


def mlp_forward(t: tr.Timeline, out: str) -> str:
    """BloomMLP.forward: dense_h_to_4h; bloom_gelu_forward, ``x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 +
    0.044715 * x * x)))`` in Python (each operation a tensor, dying once read); dense_4h_to_h; ``dropout_add``, the
    residual added."""
    rows = b * s
    n = tr.activation(rows * 4 * D)
    up = tr.linear(t, "h_to_4h", rows, 4 * D)
    t.new("gelu.half", n)  # x * 0.5, the left operand, held to the last product
    t.new("gelu.scaled", n)  # 0.79788456 * x, held while the parenthesis is computed
    t.new("gelu.cubic0", n)  # 0.044715 * x
    t.new("gelu.cubic", n)  # ... * x
    t.drop("gelu.cubic0")
    t.new("gelu.plus_one", n)
    t.drop("gelu.cubic")
    t.new("gelu.inner", n)
    t.drop("gelu.scaled", "gelu.plus_one")
    t.new("gelu.tanh", n)
    t.drop("gelu.inner")
    t.new("gelu.outer", n)
    t.drop("gelu.tanh")
    t.new("gelu", n)
    t.drop("gelu.half", "gelu.outer")
    t.drop(up)  # hidden_states bound again
    down = tr.linear(t, "4h_to_h", rows, D)
    t.new(out, tr.activation(rows * D))  # residual + the output
    t.drop("gelu", down)  # the function returns
    return out


def block_forward(t: tr.Timeline, out: str, generate: bool) -> tuple[str, tuple[str, str]]:
    """BloomBlock.forward: input_layernorm, the attention (the residual its input, or the normed input with
    apply_residual_connection_post_layernorm: the same tensors live), post_attention_layernorm (the first normed
    input dying once the names are bound again), the MLP; returns the output and the attention's probabilities."""
    normed = tr.layer_norm(t, "input_layernorm", D)
    attended, probabilities = attention_forward(t, generate)
    tr.layer_norm(t, "post_attention_layernorm", D)
    t.drop(normed)
    mlp_forward(t, out)
    t.drop("post_attention_layernorm", attended)  # the function returns
    return out, probabilities


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """BloomForCausalLM.forward (BloomModel.forward without the head): the token embeddings (held to the end) and
    their LayerNorm, ALiBi (:func:`alibi_tensor`), the causal mask, the blocks: ``outputs = block(...)`` holds a
    block's output and probabilities until the next block returns, ``hidden_states = outputs[0]`` its input until
    then; ln_f; then the logits of every token, or of the last one."""
    stream = tr.activation(b * s * D)
    t.new("embeddings", stream)
    tr.layer_norm(t, "hidden", D)
    alibi = alibi_tensor(t)
    mask = tr.causal_mask(t)
    output, probabilities = block_forward(t, "output", generate)
    t.drop("hidden")  # hidden_states = outputs[0]
    with t.only(l_2):  # a second block, while the first one's outputs are held
        t.drop(output)
        t.new("previous", stream)
        t.drop(*probabilities)
        t.new("previous.probabilities", tr.downcast(b * H * s * s))
        t.new("previous.probabilities_fp32", tr.FP32 * (1 - u) * b * H * s * s)
        block_forward(t, "output", generate)
        t.drop("previous.probabilities", "previous.probabilities_fp32", "previous")
    tr.layer_norm(t, "ln_f", D)
    t.drop("embeddings", alibi, mask, *probabilities, output)  # the function returns
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The code paths the program follows: each block's products whole (slow_but_exact splits them by pretraining_tp).
_REQUIRES = (("slow_but_exact", False, (False,)),)
TRANSIENT = {layout: {"BloomModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, lm_head=False),
                                                  generates=False, requires=_REQUIRES),
                      "BloomForCausalLM": tr.transient(causal_lm_forward, requires=_REQUIRES)}
             for layout in VARIANTS}


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
    transient=TRANSIENT,
)
