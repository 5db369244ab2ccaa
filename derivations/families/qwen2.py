"""Qwen2 and Qwen2.5 (Yang et al. 2024; Qwen Team 2024), laid out as transformers' ``Qwen2Model``.

LLaMA's decoder (``derivations.llama``): pre-norm layers of RMSNorm (a scale only), grouped-query
self-attention with ``K`` key/value heads, RMSNorm and a gated SwiGLU feed-forward; a final RMSNorm
and a language-model head. What Qwen2 changes in the tensors is one thing: the query, key and value
projections have a bias, the output projection has none ("attention QKV bias" in the model cards).
The small sizes tie the head to the token embeddings (``tie_word_embeddings``: 0.5B, 1.5B and
Qwen2.5-3B); the others have a head of their own. Sliding-window attention (``use_sliding_window``,
``max_window_layers``) is a mask: no parameter.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import llama
from .. import transient as tr
from ..claims import Miscount, Rounded
from ..components import AttentionLayout, Part, attention, group, leaf
from ..readers import qwen2 as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, V, d_h


# ---------------------------------------------------------------------------------------------
# Attention: LLaMA's grouped-query attention with a bias on q, k and v, none on o
# $$N_\mathrm{attn} = (D H d_h + H d_h) + 2 (D K d_h + K d_h) + H d_h D$$
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")
self_attention = attention(D, H, d_h, K, bias=True, output_bias=False, layout=_PROJECTIONS, path="self_attn",
                           label="grouped-query self-attention, biases on q, k and v", causal=True)
# What the biases add to LLaMA's attention: one per query, key and value coordinate.
qkv_biases = leaf("qkv_biases", "the biases of q, k and v", H * d_h + 2 * K * d_h)

# One decoder layer (pre-norm): RMSNorm, attention, residual; RMSNorm, gated feed-forward, residual
# $$N_\mathrm{layer} = 2D + N_\mathrm{attn} + 3 D F$$
layer = llama.decoder_layer(attention=self_attention)


def architectures(tied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """Every Qwen2 class of transformers: LLaMA's classes around Qwen2's layer. Qwen2ForQuestionAnswering
    keeps the body under ``transformer``, as LlamaForQuestionAnswering does (base_model_prefix, "for BC")."""
    return llama.architectures("Qwen2", tied=tied, no_token_bias=no_token_bias, qa_prefix="transformer", layer=layer)


ARCHITECTURES = architectures()
_BASE = "Qwen2Model"

# Every layout a config.json can ask for (readers.qwen2: llama.TIED_LAYOUT): a tied head, a token classifier
# without bias.
VARIANTS = reader.READER.layout.variants(architectures)

Qwen2ForCausalLM_tied = VARIANTS["tied"]["Qwen2ForCausalLM"]

token_embeddings, final_norm = llama.token_embeddings, llama.final_norm
# The model cards' "non-embedding" parameters: the layers and the final norm, neither the token embeddings
# nor the head (tied or not); see the reconciliation below.
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings, no head)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

assert all(non_embedding.total == group("x", "x", replace(variant[_BASE].child("layer"), repeat=L),
                                         variant[_BASE].child("final_norm")).total
           for variant in VARIANTS.values())

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.qwen2.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# The base models' config.json on the Hugging Face hub [cite: hub-qwen]: Qwen/Qwen2-0.5B, -1.5B, -7B, -72B and
# Qwen/Qwen2.5-0.5B, -1.5B, -3B, -7B, -14B, -32B, -72B. Bundled are the fields that set the count (sizes,
# vocabulary, tie_word_embeddings), with model_type, architectures and the context length; the others
# (rope_theta, sliding_window, token ids, ...) set no parameter and take Qwen2Config's defaults here. The sizes
# agree with the model cards' lines (layers; heads "for Q and for KV") and with the technical reports' tables.
TIED_CHECKPOINTS = ("qwen2-0.5b", "qwen2-1.5b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b")


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

# The Qwen2.5 model cards print "Number of Parameters" and "Number of Parameters (Non-Embedding)" to two
# significant decimals of a billion (three figures above 10B). Non-embedding leaves out the token embeddings and
# an untied head: 7.61B - 6.53B is two tables of V D, 0.49B - 0.36B one (the tied 0.5B stores one).
_CARD = "model card, “Number of Parameters”"
_CARD_NON_EMB = "model card, “Number of Parameters (Non-Embedding)”"


def _card(checkpoint: str, total: str, non_embedding_printed: str) -> tuple[Rounded, Rounded]:
    def billions(printed: str) -> tuple[int, int]:
        whole, decimals = printed.removesuffix("B").split(".")
        precision = 10 ** (9 - len(decimals))
        return int(whole + decimals) * precision, precision

    size = checkpoint.removeprefix("qwen2.5-")
    name = f"card_{size.replace('.', '_')}"
    claim, precision = billions(total)
    claim_non, precision_non = billions(non_embedding_printed)
    head = (Qwen2ForCausalLM_tied if checkpoint in TIED_CHECKPOINTS else ARCHITECTURES["Qwen2ForCausalLM"],)
    return (Rounded(name, claim, f"Qwen2.5-{size.upper()}", Citation("hub-qwen", f"Qwen2.5-{size.upper()} {_CARD}"),
                    checkpoint, head, precision=precision, printed=total),
            Rounded(f"{name}_non_embedding", claim_non, f"Qwen2.5-{size.upper()}, non-embedding",
                    Citation("hub-qwen", f"Qwen2.5-{size.upper()} {_CARD_NON_EMB}"), checkpoint, (non_embedding,),
                    precision=precision_non, printed=non_embedding_printed))


CARDS = tuple(claim for checkpoint, total, non in (
    ("qwen2.5-0.5b", "0.49B", "0.36B"), ("qwen2.5-1.5b", "1.54B", "1.31B"), ("qwen2.5-3b", "3.09B", "2.77B"),
    ("qwen2.5-7b", "7.61B", "6.53B"), ("qwen2.5-14b", "14.7B", "13.1B"), ("qwen2.5-32b", "32.5B", "31.0B"),
    ("qwen2.5-72b", "72.7B", "70.0B")) for claim in _card(checkpoint, total, non))

# The Qwen2 release post's table [cite: qwen2-blog] ("Params" and "Non-Emb Params" per size). 0.5B, 1.5B and 72B
# round from the exact counts (0.5B's 0.35B truncates 0.358); 7B is one embedding table short, twice.
_BLOG = "table of sizes, “Params” and “Non-Emb Params”"
BLOG = (
    Rounded("blog_0_5b", 490_000_000, "Qwen2-0.5B", Citation("qwen2-blog", _BLOG), "qwen2-0.5b",
            (Qwen2ForCausalLM_tied,), precision=10**7, printed="0.49B"),
    Rounded("blog_0_5b_non_embedding", 350_000_000, "Qwen2-0.5B, non-embedding", Citation("qwen2-blog", _BLOG),
            "qwen2-0.5b", (non_embedding,), precision=10**7, printed="0.35B"),
    Rounded("blog_1_5b", 1_540_000_000, "Qwen2-1.5B", Citation("qwen2-blog", _BLOG), "qwen2-1.5b",
            (Qwen2ForCausalLM_tied,), precision=10**7, printed="1.54B"),
    Rounded("blog_1_5b_non_embedding", 1_310_000_000, "Qwen2-1.5B, non-embedding", Citation("qwen2-blog", _BLOG),
            "qwen2-1.5b", (non_embedding,), precision=10**7, printed="1.31B"),
    Rounded("blog_72b", 72_710_000_000, "Qwen2-72B", Citation("qwen2-blog", _BLOG), "qwen2-72b",
            (ARCHITECTURES["Qwen2ForCausalLM"],), precision=10**7, printed="72.71B"),
    Rounded("blog_72b_non_embedding", 70_210_000_000, "Qwen2-72B, non-embedding", Citation("qwen2-blog", _BLOG),
            "qwen2-72b", (non_embedding,), precision=10**7, printed="70.21B"),
)

# Qwen2-7B in the same table: "7.07B" and "5.98B". The released model (untied, 152,064 rows) has 7.62B, and
# 6.53B without its two tables. Each printed figure is exactly one table of V D (545M) below the exact one: the
# total is the count with one table, and the non-embedding figure that count less two tables. (The post shows no
# working; that the head was taken as tied is an inference.)
_table = leaf("table", "one table of V D: the head the total leaves out", V * D)
_short_total = leaf("short_total", "the count with one table of V D (as if tied)",
                    ARCHITECTURES["Qwen2ForCausalLM"].total - V * D)
seven_b_total = Miscount(
    "seven_b_total", 7_070_619_136, "Qwen2-7B, “Params: 7.07B”", Citation("qwen2-blog", _BLOG), "qwen2-7b",
    ARCHITECTURES["Qwen2ForCausalLM"], terms=(_table,),
    reconstruction=group("claimed", "the post's total, rebuilt", _short_total),
    printed="7.07B", model="Qwen2-7B (<code>qwen2-7b</code>)",
    cause="the figure is exactly the count with one embedding matrix, but Qwen2-7B has a head of its own "
          "(tie_word_embeddings false); the post shows no working",
)
seven_b_non_embedding = Miscount(
    "seven_b_non_embedding", 5_980_624_384, "Qwen2-7B, “Non-Emb Params: 5.98B”", Citation("qwen2-blog", _BLOG),
    "qwen2-7b", non_embedding,
    terms=(replace(_table, label="one table of V D, taken twice from a total that held it once"),),
    reconstruction=group("claimed", "the post's non-embedding count, rebuilt", _short_total,
                         leaf("two_tables", "less two tables of V D", -2 * V * D)),
    printed="5.98B", model="Qwen2-7B without embeddings (<code>qwen2-7b</code>)",
    cause="the figure is exactly the count with one table less two tables, so the layers lose a table they do "
          "not hold; the post shows no working",
)


def masks(t, sliding: bool) -> tuple[str, ...]:
    """Qwen2Model.forward's masks: the causal one always, a sliding-window one beside it where a layer slides."""
    return (tr.causal_mask(t), *((tr.causal_mask(t, True, "sliding_mask"),) if sliding else ()))


# The forward at inference (derivations.transient): LLaMA's (biases on q, k and v change no tensor it makes), with
# Qwen2's masks.
TRANSIENT = llama.transient("Qwen2", llama.Kin(masks=masks), layouts=VARIANTS, windowed=True)
# ... under sdpa attention (transformers' default): the causal mask skipped, the sliding one where the tokens reach it.
TRANSIENT_SDPA = llama.transient("Qwen2", llama.Kin(masks=masks), layouts=VARIANTS, windowed=True, attention="sdpa")


FAMILY = Family(
    name="qwen2",
    reader=reader.READER,
    variants=VARIANTS,
    base=_BASE,
    checkpoints=(
        "qwen2-0.5b",
        "qwen2-1.5b",
        "qwen2-7b",
        "qwen2-72b",
        "qwen2.5-0.5b",
        "qwen2.5-1.5b",
        "qwen2.5-3b",
        "qwen2.5-7b",
        "qwen2.5-14b",
        "qwen2.5-32b",
        "qwen2.5-72b",
    ),
    first_published="2024-07",
    kind="decoder",
    maker="Alibaba",
    headlines=(
        Headline("Qwen2ForCausalLM", "qwen2.5-7b", "Qwen2.5, 7B"),
        Headline("Qwen2ForCausalLM", "qwen2.5-72b", "Qwen2.5, 72B"),
    ),
    example="qwen2.5-7b",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"Qwen2ForCausalLM": "Qwen2ForCausalLM", "Qwen2ForCausalLM.Qwen2Model.layer": "all layers"},
    miscounts=(seven_b_total, seven_b_non_embedding),
    rounded=CARDS + BLOG,
    # The same tensors in every layout (tied or not): a page may evaluate it on any checkpoint.
    layout_free=("non_embedding",),
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
