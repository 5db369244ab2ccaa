"""T5 (Raffel et al. 2020), composed from the components, laid out as transformers' ``T5Model``.

An encoder-decoder with one V-by-D table, ``shared``, read by both stacks (and, in T5 1.0, by the
output projection); no position table: each stack's first block holds a relative position bias, B
buckets by H heads, which every block of that stack reuses. Norms are RMS-style (T5LayerNorm: a
weight, no bias, no mean subtracted), in front of each sub-layer, plus a final one per stack. No
projection has a bias. Attention has an inner size of H d_kv, which need not be D (T5-3B and T5-11B
have d_kv 128: 4096 and 16384 against D 1024). The feed-forward is ReLU with two matrices (``wi``,
``wo``; T5 1.0) or gated GELU with three (``wi_0``, ``wi_1``, ``wo``; T5 1.1 and Flan-T5).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from ..claims import Miscount, Rounded
from ..components import (AttentionLayout, Part, as_kind, attention, classifier, embedding, feed_forward, group, leaf,
                         idle, linear, rms_norm, span_head, tied_tensor)
from ..readers import t5 as reader
from ..sources import Citation, cite
from ..symbols import B, C, D, F, H, L, L_d, V, b, c_bt, c_btd, c_t, c_td, d_h, l_2, l_2d, s, s_d, u
from .. import transient as tr


# The paper's models: the decoder as deep as the encoder (num_decoder_layers null).
SYMMETRIC = {L_d: L}

# ---------------------------------------------------------------------------------------------
# Attention: Q, K, V map D to H d_kv, O maps H d_kv back to D; no biases
# $$N_\mathrm{attn} = 4 D H d_{\mathrm{h}}$$  (4D^2 only when H d_kv = D)
# ---------------------------------------------------------------------------------------------

_T5 = AttentionLayout("q", "k", "v", "o")


def t5_attention(name: str, path: str, label: str, **computes) -> Part:
    """T5Attention: four maps without bias (the relative position bias is the stack's, below); ``computes``:
    a decoder's causal self-attention, cross-attention's keys from the encoder's s rows."""
    return attention(D, H, d_h, bias=False, layout=_T5, path=path, name=name, label=label, **computes)


# ---------------------------------------------------------------------------------------------
# Relative position bias: one learned scalar per bucket and head, added to the attention logits
# $$N_\mathrm{rel} = B H$$
# ---------------------------------------------------------------------------------------------

def relative_bias() -> Part:
    """The stack's relative position bias. transformers keeps it in the self-attention of block 0 only
    (``T5Block(config, has_relative_attention_bias=bool(i == 0))``) and hands the computed bias on to
    every later block, so it is a part of the stack, once, beside the repeated blocks, with block 0's path."""
    return leaf("relative_bias", "relative position bias (buckets by heads)", B * H,
                "block.0.layer.0.SelfAttention.relative_attention_bias",
                note="held by the self-attention of block 0, used by every block of the stack", kind="attention")


# ---------------------------------------------------------------------------------------------
# Feed-forward
# $$N_\mathrm{ff} = 2 D F$$ (ReLU: wi, wo)   or   $$3 D F$$ (gated GELU: wi_0, wi_1, wo)
# ---------------------------------------------------------------------------------------------


def t5_feed_forward(path: str, gated: bool, activation: str = "") -> Part:
    """T5DenseActDense (wi, wo) or T5DenseGatedActDense (wi_0 the gate, wi_1 the linear part, wo), and
    the activation's own parameters when it has any (``act``): the activations transformers builds as modules
    with learned parameters (transformers.activations.ACT2CLS: nn.PReLU, one weight; XIELUActivation, alpha_p
    and alpha_n), one module per feed-forward, as many as readers.t5.LEARNED counts. No released T5 uses them,
    but a config may ask for them (feed_forward_proj "prelu", or dense_act_fn)."""
    if gated:
        part = feed_forward(D, F, bias=False, gate="wi_0", up="wi_1", down="wo", path=path,
                            label="gated feed-forward (gated GELU, no biases)")
    else:
        part = feed_forward(D, F, bias=False, up="wi", down="wo", path=path, label="feed-forward (ReLU, no biases)")
    if not activation:
        return part
    act = leaf("activation", f"the activation's learned parameters ({activation})", reader.LEARNED[activation],
               "act")
    return replace(part, label=part.label.replace("GELU", activation).replace("ReLU", activation),
                   children=(*part.children, act))


# ---------------------------------------------------------------------------------------------
# Blocks (pre-norm: x + Sublayer(RMSNorm(x)))
# $$N_\mathrm{enc} = D + 4 D H d_{\mathrm{h}} + D + 2 D F$$
# $$N_\mathrm{dec} = 3 D + 2 \cdot 4 D H d_{\mathrm{h}} + 2 D F$$   (3 D F for both when gated)
# ---------------------------------------------------------------------------------------------

def block(decoder: bool, gated: bool, activation: str = "", alone: bool = False) -> Part:
    """T5Block: layer.0 self-attention, layer.1 cross-attention (decoder only; built but not run in a stack
    ``alone``, without an encoder), then the feed-forward, each sub-layer with its own RMS norm in front
    (``layer.<n>.layer_norm``)."""
    parts = [rms_norm("self_attention_norm", D, "layer.0.layer_norm", label="RMS norm before self-attention"),
             t5_attention("self_attention", "layer.0.SelfAttention",
                          "masked self-attention" if decoder else "self-attention", causal=decoder)]
    if decoder:
        cross = t5_attention("cross_attention", "layer.1.EncDecAttention",
                             "cross-attention (keys and values from the encoder)", keys=s)
        parts += [rms_norm("cross_attention_norm", D, "layer.1.layer_norm", label="RMS norm before cross-attention"),
                  idle(cross) if alone else cross]
    ff = 2 if decoder else 1
    parts += [rms_norm("feed_forward_norm", D, f"layer.{ff}.layer_norm", label="RMS norm before the feed-forward"),
              t5_feed_forward(f"layer.{ff}.DenseReluDense", gated, activation)]
    return group("block", "decoder block" if decoder else "encoder block", *parts, path="block",
                 symbol=r"N_{\mathrm{dec}}" if decoder else r"N_{\mathrm{enc}}")


def stack(name: str, label: str, decoder: bool, gated: bool, depth: sympy.Expr, activation: str = "",
          alone: bool = False) -> Part:
    """T5Stack: its token table (the shared one: counted there), ``depth`` blocks, the relative position
    bias of block 0, a final RMS norm. A decoder beside an encoder reads the target's s_dec rows; a stack
    ``alone`` (T5EncoderModel) reads its own s."""
    # $$N_\mathrm{stack} = L N_\mathrm{block} + B H + D$$
    return group(
        name, label,
        as_kind(tied_tensor("tokens", "token embeddings (the shared table)", "shared", "embed_tokens"), "embeddings"),
        replace(block(decoder, gated, activation, alone), repeat=depth),
        relative_bias(),
        rms_norm("final_norm", D, "final_layer_norm", label="final RMS norm of the stack"),
        path=name, symbol=rf"N_{{\mathrm{{{name}}}}}", tokens=s_d if decoder and not alone else None)


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------

def shared() -> Part:
    # $$N_\mathrm{emb} = V D$$  one table for the encoder's input, the decoder's input (and the 1.0 head).
    return embedding("shared", "shared token embeddings (encoder, decoder, and the tied head)", V, D, "shared")


def architectures(gated: bool = False, untied: bool = False, decoder_stack: bool = False,
                  activation: str = "") -> dict[str, Part]:
    """Every T5 class of transformers for one layout: the feed-forward ``gated`` (v1.1, Flan-T5), the
    lm_head ``untied`` (a checkpoint with a separate lm_head, as v1.1 and Flan-T5 have), and the
    config's is_decoder (``decoder_stack``), which only T5EncoderModel (and T5ForTokenClassification,
    built around it) reads: the classes with two stacks set it on copies of the config; and an
    ``activation`` with learned parameters (readers.t5.LEARNED), if any."""
    encoder = stack("encoder", "encoder", False, gated, L, activation)
    decoder = stack("decoder", "decoder", True, gated, L_d, activation)
    # T5EncoderModel builds its stack from the config itself: with is_decoder true, decoder blocks
    # (cross-attention included), num_layers of them.
    lone = stack("encoder", "encoder (decoder blocks: is_decoder true)" if decoder_stack else "encoder",
                 decoder_stack, gated, L, activation, alone=True)

    if untied:
        # v1.1: tie_word_embeddings false; a D-by-V map of its own, no bias.
        head = linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V, False, "lm_head")
    else:
        head = tied_tensor("lm_head", "language-model head (the shared table, transposed)", "shared", "lm_head",
                           matrix=D * V)
    head = replace(as_kind(head, "heads"), tokens=s_d)  # on the decoder's rows

    def model(name: str, label: str, *heads: Part, path: str | None = None) -> Part:
        return group(name, label, shared(), encoder, decoder, *heads, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    def encoder_model(name: str, label: str, path: str | None = None) -> Part:
        return group(name, label, shared(), lone, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    generation = model("T5ForConditionalGeneration", "T5 with its language-model head", head)
    return {
        "T5Model": model("T5Model", "T5Model: shared embeddings, encoder, decoder"),
        "T5ForConditionalGeneration": generation,
        # The name transformers 2.x saved the v1.0 configs under (renamed T5ForConditionalGeneration in
        # 3.0; transformers 5.x has no class of that name, and loads such configs by model_type).
        "T5WithLMHeadModel": replace(generation, name="T5WithLMHeadModel",
                                     label="T5WithLMHeadModel: the old name of T5ForConditionalGeneration",
                                     symbol=r"N_{\mathrm{T5WithLMHeadModel}}"),
        "T5EncoderModel": encoder_model("T5EncoderModel", "T5EncoderModel: shared embeddings, encoder"),
        "T5ForSequenceClassification": group(
            "T5ForSequenceClassification", "T5Model with a classification head on the decoder's last token",
            model("transformer", "T5Model", path="transformer"),
            # On one row: the decoder's state at the end-of-sequence token.
            group("classification_head", "classification head: dense (tanh), then out_proj to C labels",
                  linear("dense", "dense", D, D, True, "dense"), linear("out_proj", "out_proj", D, C, True, "out_proj"),
                  path="classification_head", kind="heads", tokens=1),
            symbol=r"N_{\mathrm{T5ForSequenceClassification}}"),
        "T5ForTokenClassification": group(
            "T5ForTokenClassification", "T5EncoderModel with a token classifier",
            encoder_model("transformer", "T5EncoderModel", path="transformer"),
            classifier(D, C, "classifier"), symbol=r"N_{\mathrm{T5ForTokenClassification}}"),
        "T5ForQuestionAnswering": model(
            "T5ForQuestionAnswering", "T5 with a span head on the decoder's output",
            # num_labels logits (2 by default: start and end), as transformers builds it.
            replace(span_head(D, C, "span logits (num_labels of them: start and end by default)"), tokens=s_d)),
    }


ARCHITECTURES = architectures()
_GENERATION = ARCHITECTURES["T5ForConditionalGeneration"]  # what the papers and the pages reason about

# Every layout a config.json can ask for (readers.t5.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)

# What transformers 5.x builds from a v1.1 config, which it forces tied (tests/test_reference_t5.py):
# gated, the lm_head the shared table. The checkpoint itself, with an lm_head of its own, is
# VARIANTS["gated+untied"], which the pages reach as T5ForConditionalGeneration @ t5-v1_1-...
T5ForConditionalGeneration_v1_1_as_built = VARIANTS["gated"]["T5ForConditionalGeneration"].renamed(
    "T5ForConditionalGeneration_v1_1_as_built", "T5ForConditionalGeneration as transformers 5.x builds it from a "
    "v1.1 config (gated, the head tied)", None)

# ---------------------------------------------------------------------------------------------
# The pieces as the page shows them: one block of each kind (the model's, one copy), and differences
# ---------------------------------------------------------------------------------------------


def one_block(model: Part, stack_name: str) -> Part:
    """One copy of a stack's repeated block."""
    return replace(model.find(f"{stack_name}.block"), repeat=sympy.Integer(1))


encoder_layer = one_block(_GENERATION, "encoder")
decoder_layer = one_block(_GENERATION, "decoder")
encoder_layer_gated = one_block(VARIANTS["gated"]["T5ForConditionalGeneration"], "encoder")
attention_part = encoder_layer.child("self_attention")
embeddings = _GENERATION.child("shared")
tied_head = leaf("head_again", "the tied head: the shared table a second time", V * D)
# The gated feed-forward against the plain one: one D-by-F matrix more per block.
gate_per_block = sympy.expand(encoder_layer_gated.total - encoder_layer.total)
# The untied head of v1.1: one V-by-D matrix more, and nothing else.
untied_over_tied = sympy.expand(VARIANTS["gated+untied"]["T5ForConditionalGeneration"].total
                                - T5ForConditionalGeneration_v1_1_as_built.total)
# T5-3B/11B: the attention against 4 D^2, the count it would have if H d_kv were D.
attention_over_square = sympy.expand(attention_part.total - 4 * D**2)

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.t5.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# The five T5 1.0 sizes Google released (google-t5/t5-small, -base, -large, -3b, -11b on the Hugging
# Face hub) and the five T5 1.1 sizes (google/t5-v1_1-small ... -xxl), as their config.json files
# describe them [cite: hub-google-t5]. The 3B and 11B files name the class
# "T5WithLMHeadModel", as copies of them print them. t5-v1_1-base as transformers printed its
# snapshot b5fc947a, without the keys transformers adds on loading; the other v1.1 files are that one
# with their sizes: small 8 blocks of 512 (d_ff 1024, 6 heads), large 24 of 1024 (2816, 16), xl 24 of
# 2048 (5120, 32), xxl 24 of 4096 (10240, 64; the t5.1.1.xxl.gin of the T5 repository), sizes that
# the exact totals of [cite: t5-tpu] (tests/test_t5.py) confirm. Every v1.1 and Flan-T5
# file says tie_word_embeddings false.
# The v1.1 ones build another layout (VARIANTS["gated+untied"]); the checkpoint table counts each
# checkpoint in the layout its config asks for.
V1_0_CHECKPOINTS = ("t5-small", "t5-base", "t5-large", "t5-3b", "t5-11b")
V1_1_CHECKPOINTS = ("t5-v1_1-small", "t5-v1_1-base", "t5-v1_1-large", "t5-v1_1-xl", "t5-v1_1-xxl")


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("raffel2020", f"section 3.7 (and the released checkpoints of {cite('t5-repository')})")
_WIKIPEDIA = Citation("wikipedia-t5", "the parameter table (columns total, encoder, decoder)")
_ISSUE = cite("text-to-text-transfer-transformer-326")

# The head counted a second time: what Wikipedia's table adds (each stack counted with a V-by-D table).
head_counted_twice = group("head_counted_twice", "with the shared table counted a second time",
                           _GENERATION, tied_head)


def _paper(name: str, millions: int, what: str, checkpoint: str, printed: str, precision: int) -> Rounded:
    return Rounded(name, millions * 10**6, what, _PAPER, checkpoint, (_GENERATION, head_counted_twice),
                   precision=precision, printed=printed)


# "60 million", "220 million", "770 million", "3 billion", "11 billion": each rounded at the unit of its
# last printed digit, 10^7 for the first three and 10^9 for the last two (not two significant figures:
# T5-3B's 2,851,598,336 is 2.9 billion to two).
PAPER = (
    _paper("paper_small", 60, "Small: 6 + 6 blocks, d_model 512", "t5-small", "60M", 10**7),
    _paper("paper_base", 220, "Base: 12 + 12 blocks, d_model 768", "t5-base", "220M", 10**7),
    _paper("paper_large", 770, "Large: 24 + 24 blocks, d_model 1024", "t5-large", "770M", 10**7),
    _paper("paper_3b", 3000, "3B: d_ff 16384, 32 heads of 128", "t5-3b", "3B", 10**9),
    _paper("paper_11b", 11000, "11B: d_ff 65536, 128 heads of 128", "t5-11b", "11B", 10**9),
)
paper_small, paper_base, paper_large, paper_3b, paper_11b = PAPER

# T5-Large's "770M": the count with the shared table counted twice rounds to it; the count of the
# checkpoint (the one Mesh TensorFlow logs as its trainable variables, [cite: text-to-text-transfer-transformer-326]) does not.
large_770m = Miscount(
    "large_770m", 770_000_000, "T5-Large as “770 million parameters”",
    Citation("raffel2020", f"section 3.7; the checkpoint's own log gives 737,668,096 trainable ({_ISSUE}, where an "
                           "author answers “could just be a typo”)"), "t5-large", _GENERATION,
    terms=(leaf("head", "the tied head (the shared table) a second time, which the figure would need", -V * D),
           leaf("rounding", "rounding that double count to 770M", head_counted_twice.total - 770_000_000)),
    printed="770M",
    model="T5-Large (<code>t5-large</code>)",
    cause="770M is reached only by counting the shared table twice, and rounding that count",
)

_TWICE = "the encoder's column and the decoder's each count the shared token table, so their sum counts it twice"
wikipedia_small = Miscount(
    "wikipedia_small", 76_956_160, "T5 Small, “total parameters”", _WIKIPEDIA, "t5-small", _GENERATION,
    terms=(leaf("head", "the shared table a second time: counted with the encoder and again with the decoder", -V * D),),
    reconstruction=group(
        "claimed", "the table's encoder and decoder columns, added",
        group("encoder_column", "encoder column: the table and the encoder (T5EncoderModel)", embeddings,
              _GENERATION.child("encoder")),
        group("decoder_column", "decoder column: a table of its own and the decoder", leaf("table", "V D", V * D),
              _GENERATION.child("decoder")),
    ),
    model="T5-Small (<code>t5-small</code>)",
    cause=_TWICE,
)
wikipedia_large = Miscount(
    "wikipedia_large", 770_567_168, "T5 Large, “total parameters”", _WIKIPEDIA, "t5-large", _GENERATION,
    terms=(leaf("head", "the shared table a second time", -V * D),),
    reconstruction=head_counted_twice,
    model="T5-Large (<code>t5-large</code>)",
    cause=_TWICE,
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_t5.py, statement by statement. The
# encoder reads the source ids alone (an all-ones mask is no mask: none is built), the decoder its ids alone
# (the causal mask without padding); in bf16 or fp32 (in fp16 transformers keeps ``wo`` in fp32 and clamps each
# block's output: another forward).
# ---------------------------------------------------------------------------------------------

def layer_norm_forward(t: tr.Timeline, name: str, rows: sympy.Expr) -> str:
    """T5LayerNorm.forward: ``variance = x.to(fp32).pow(2).mean(-1)`` (the upcast dies with the power);
    ``x * rsqrt(variance + eps)``, fp32 (an activation times an fp32 factor); below fp32 its cast back, which the
    name takes (the fp32 product dies), in fp32 the product itself, kept to the return; ``weight * x``."""
    n = rows * D
    t.new(f"{name}.x32", tr.upcast(n))
    t.new(f"{name}.pow", tr.FP32 * n)
    t.drop(f"{name}.x32")
    t.new(f"{name}.variance", tr.FP32 * rows)
    t.drop(f"{name}.pow")
    t.new(f"{name}.eps", tr.FP32 * rows)
    t.new(f"{name}.rsqrt", tr.FP32 * rows)
    t.drop(f"{name}.eps")
    t.new(f"{name}.normed", tr.FP32 * u * n)  # dies at the cast below fp32
    t.new(f"{name}.normed_kept", tr.FP32 * (1 - u) * n)  # fp32: no cast, the product lives to the return
    t.drop(f"{name}.rsqrt")
    t.new(f"{name}.cast", tr.downcast(n))
    t.drop(f"{name}.normed")
    t.new(name, tr.activation(n))
    t.drop(f"{name}.cast", f"{name}.variance", f"{name}.normed_kept")
    return name


def large_buckets_forward(t: tr.Timeline, qk: sympy.Expr) -> str:
    """_relative_position_bucket's buckets of the distances past max_exact, each step a tensor of ``qk`` (queries x
    keys): ``max_exact + (log(distance.float() / max_exact) / log(max_distance / max_exact) * (num_buckets -
    max_exact)).to(long)`` (fp32 steps, each dying once the next is made), then ``torch.min(large,
    full_like(large, num_buckets - 1))``, which the caller holds (``large.min``) with the distances."""
    previous = None
    for step in ("float", "ratio", "log", "scaled", "times"):
        t.new(f"large.{step}", tr.FP32 * qk)
        if previous is not None:
            t.drop(previous)
        previous = f"large.{step}"
    t.new("large.long", tr.INT64 * qk)
    t.drop(previous)
    t.new("large", tr.INT64 * qk)
    t.drop("large.long")
    t.new("large.full", tr.INT64 * qk)
    t.new("large.min", tr.INT64 * qk)
    t.drop("large.full", "large")
    return "large.min"


def relative_bias_forward(t: tr.Timeline, queries: sympy.Expr, keys: sympy.Expr, bidirectional: bool) -> str:
    """T5Attention.compute_bias in the first block of a stack: the positions of the queries and the keys (64-bit
    integers) and their differences, _relative_position_bucket (the encoder's both ways, the decoder's one way:
    its steps, each a tensor of queries x keys, integers, booleans or fp32), and the bias, the embedding of the
    buckets: 1 x H x queries x keys in the activation dtype, held by the stack for every block."""
    qk = queries * keys
    t.new("context_arange", tr.INT64 * queries)
    t.new("context_position", tr.INT64 * queries)  # arange(q)[:, None] + past_seen_tokens
    t.drop("context_arange")
    t.new("memory_position", tr.INT64 * keys)
    t.new("relative_position", tr.INT64 * qk)
    if bidirectional:  # relative_buckets = 0 + (relative_position > 0).to(long) * num_buckets; then abs
        t.new("positive", tr.BOOL * qk)
        t.new("positive_long", tr.INT64 * qk)
        t.drop("positive")
        t.new("positive_buckets", tr.INT64 * qk)
        t.drop("positive_long")
        t.new("buckets", tr.INT64 * qk)
        t.drop("positive_buckets")
        t.new("distance", tr.INT64 * qk)
    else:  # -torch.min(relative_position, zeros_like(relative_position))
        t.new("zeros", tr.INT64 * qk)
        t.new("nearest", tr.INT64 * qk)
        t.drop("zeros")
        t.new("distance", tr.INT64 * qk)
        t.drop("nearest")
    t.new("is_small", tr.BOOL * qk)
    large_buckets_forward(t, qk)
    t.new("chosen", tr.INT64 * qk)  # torch.where(is_small, distance, large)
    if bidirectional:
        t.drop("chosen")  # relative_buckets += ...: in place
    else:
        t.new("buckets", tr.INT64 * qk)  # relative_buckets = 0 + ...: a new tensor
        t.drop("chosen")
    t.drop("distance", "is_small", "large.min")  # _relative_position_bucket returns
    t.new("bias", tr.activation(H * qk))
    t.drop("context_position", "memory_position", "relative_position", "buckets")
    return "bias"


def attention_forward(t: tr.Timeline, queries: sympy.Expr, keys: sympy.Expr, generate: bool, first: str,
                      folds: tuple, copied: sympy.Expr, masked: bool, weights: str) -> tuple[str, str]:
    """T5Attention.forward: q, k and v (k and v from the encoder's states in cross-attention); with a cache
    (generate) k and v are copied into it and read from there; in the first block, the bias (``first``:
    "relative" or "relative_causal", the relative bias both ways or one way; "zeros", cross-attention's zero bias);
    eager attention: ``matmul(q, k^T) * 1.0 + bias (+ mask)``, the softmax in the activation dtype, ``matmul(weights,
    v)``, ``transpose(1, 2).contiguous()`` (a copy where ``copied``); o. ``folds``: where torch.matmul copies the
    head-split views of the query and of the keys (and values) to fold batch and heads (0 where they come from
    the cache, contiguous). Returns the output and the attention weights, which the caller holds."""
    inner, scores = H * d_h, b * H * queries * keys
    tr.linear(t, "q", b * queries, inner)
    tr.linear(t, "k", b * keys, inner)
    tr.linear(t, "v", b * keys, inner)
    if generate:
        t.drop("k", "v")  # key_states, value_states = cache.update(...): the cache's copies now
    if first == "zeros":
        t.new("cross_bias", tr.activation(H * queries * keys))  # torch.zeros((1, H, q, k)), held by the stack
    elif first:
        relative_bias_forward(t, queries, keys, bidirectional=first == "relative")
    fold_query, fold_keys = folds
    # * scaling (1.0): a product all the same
    tr.scaled_scores(t, fold_query * b * H * queries * d_h, fold_keys * b * H * keys * d_h, scores)
    t.new("biased", tr.activation(scores))
    t.drop("scaled")
    last = "biased"
    if masked:
        t.new("masked", tr.activation(scores))
        t.drop("biased")
        last = "masked"
    t.new(weights, tr.activation(scores))  # softmax(dim=-1) in the activation dtype
    t.drop(last)
    context = b * H * queries * d_h
    t.new("values_folded", tr.activation(fold_keys * b * H * keys * d_h))
    t.new("context_copied", tr.activation(copied * context))
    t.new("context", tr.activation((1 - copied) * context))
    t.drop("values_folded")
    t.new("context_contiguous", tr.activation(copied * context))
    t.drop("context_copied")
    tr.linear(t, "o", b * queries, D)
    t.drop("context", "context_contiguous")
    t.drop("q", *(() if generate else ("k", "v")))  # the function returns
    return "o", weights


def sublayer_forward(t: tr.Timeline, x: str, out: str, queries: sympy.Expr, keys: sympy.Expr, generate: bool,
                     first: str, folds: tuple, copied: sympy.Expr, masked: bool, weights: str) -> tuple[str, str]:
    """T5LayerSelfAttention (or T5LayerCrossAttention).forward on ``x``: its norm, the attention, ``x +`` its
    output. Returns the sum and the attention weights."""
    normed = layer_norm_forward(t, "attention_norm", b * queries)
    attended, weights = attention_forward(t, queries, keys, generate, first, folds, copied, masked, weights)
    t.new(out, tr.activation(b * queries * D))
    t.drop(attended, normed)
    return out, weights


def feed_forward_forward(t: tr.Timeline, x: str, out: str, rows: sympy.Expr, gated: bool) -> str:
    """T5LayerFF.forward on ``x``: its norm; T5DenseActDense (wi, the activation, one tensor, wo) or
    T5DenseGatedActDense (``act(wi_0(x)) * wi_1(x)``, gelu_new written in Python, then wo: the two factors live
    until it returns); ``x +`` its output."""
    normed = layer_norm_forward(t, "ff_norm", rows)
    if gated:
        tr.linear(t, "wi_0", rows, F)
        tr.gelu_tanh_python(t, "hidden_gelu", rows * F)
        t.drop("wi_0")
        tr.linear(t, "hidden_linear", rows, F)
        t.new("gated", tr.activation(rows * F))
        tr.linear(t, "wo", rows, D)
        t.drop("hidden_gelu", "hidden_linear", "gated")
    else:
        tr.linear(t, "wi", rows, F)
        t.new("act", tr.activation(rows * F))
        t.drop("wi")
        tr.linear(t, "wo", rows, D)
        t.drop("act")
    t.drop(normed)  # forwarded_states = DenseReluDense(forwarded_states)
    t.new(out, tr.activation(rows * D))
    t.drop("wo")
    return out


def block_forward(t: tr.Timeline, x: str, out: str, decoder: bool, queries: sympy.Expr, generate: bool,
                  first: bool, gated: bool) -> str:
    """T5Block.forward on ``x`` (its caller's): self-attention (the weights bound to ``_``), a decoder's
    cross-attention over the encoder's s states (``_`` bound again: the self-attention's weights die), the
    feed-forward. ``first``: the stack's first block, which makes the biases."""
    if decoder:
        fold = 0 if generate else c_btd
        self_attention = dict(folds=(fold, fold), copied=0 if generate else c_td, masked=True,
                              first="relative_causal" if first else "")
    else:
        self_attention = dict(folds=(c_bt, c_bt), copied=c_t, masked=False, first="relative" if first else "")
    hidden, weights = sublayer_forward(t, x, "self_out", queries, queries, generate, weights="self_weights",
                                       **self_attention)
    if decoder:
        cross = dict(folds=(0 if generate else c_btd, 0 if generate else c_bt), copied=0 if generate else c_td,
                     masked=False, first="zeros" if first else "")
        hidden, weights = sublayer_forward(t, hidden, "cross_out", queries, s, generate, weights="cross_weights",
                                           **cross)
        t.drop("self_out", "self_weights")
    feed_forward_forward(t, hidden, out, b * queries, gated)
    t.drop(hidden, weights)
    return out


def stack_forward(t: tr.Timeline, decoder: bool, generate: bool, gated: bool) -> str:
    """T5Stack.forward: the embeddings (held until it returns), a decoder's causal mask, the blocks (the first
    reads the embeddings and makes the biases; a later one its predecessor's output, which dies when it returns),
    the final norm. The encoder reads s tokens; the decoder s_d, or generate's one start token."""
    queries = (1 if generate else s_d) if decoder else s
    rows, second = b * queries, l_2d if decoder else l_2
    generate = generate and decoder  # the encoder runs without a cache
    t.new("inputs_embeds", tr.activation(rows * D))
    if decoder:
        tr.causal_mask_unpadded(t, queries, queries)
    block_forward(t, "inputs_embeds", "hidden", decoder, queries, generate, True, gated)
    with t.only(second):
        t.drop("hidden")
        t.new("previous", tr.activation(rows * D))
        block_forward(t, "previous", "hidden", decoder, queries, generate, False, gated)
        t.drop("previous")
    out = "decoder_out" if decoder else "encoder_out"
    layer_norm_forward(t, out, rows)
    t.drop("hidden", "inputs_embeds", "bias", *(("mask", "cross_bias") if decoder else ()))
    return out


def seq2seq_forward(t: tr.Timeline, generate: bool, gated: bool, head: str) -> None:
    """T5ForConditionalGeneration.forward (T5Model.forward: ``head`` "none"; T5EncoderModel: "encoder"): the
    encoder, whose output is held to the end; the decoder on s_d tokens, or on generate's start token with a
    cache; its output scaled by D^-1/2 where the head is tied ("scaled"); the logits of every decoder token."""
    stack_forward(t, False, generate, gated)
    if head == "encoder":
        return
    stack_forward(t, True, generate, gated)
    queries = 1 if generate else s_d
    if head == "scaled":
        t.new("scaled", tr.activation(b * queries * D))
    if head != "none":
        t.new("logits", tr.activation(b * queries * V))


def _transient(layout: str) -> dict[str, tr.Transient]:
    """The classes whose forward is derived in a layout: the feed-forward gated or not (its activation gelu_new, or
    one op: relu, gelu, silu), the head tied (the decoder's output scaled, as transformers decides from
    tie_word_embeddings) or not."""
    gated, tied = "gated" in layout, "untied" not in layout
    activation = ((("feed_forward_proj", "relu", ("gated-gelu",)), ("dense_act_fn", None, (None, "gelu_new")))
                  if gated else (("feed_forward_proj", "relu", ("relu", "gelu", "silu")),
                                 ("dense_act_fn", None, (None, "relu", "gelu", "silu"))))
    # transformers sets scale_decoder_outputs from tie_word_embeddings; a config that carries it says it itself.
    scaled = (("scale_decoder_outputs", tied, (tied,)),)
    fp16 = "transformers keeps wo in fp32 and clamps each block's output"
    # The encoder's buckets: half for each direction, half of those exact; with fewer than 4 buckets, none is
    # exact, and _relative_position_bucket divides by zero.

    def derive(head: str, generates: bool = False, requires=()) -> tr.Transient:
        return tr.transient(lambda t, generate: seq2seq_forward(t, generate, gated, head), generates=generates,
                            requires=activation + requires, fp16=fp16, at_least=(("B", 4),))

    out = {"T5Model": derive("none"),
           "T5ForConditionalGeneration": derive("scaled" if tied else "logits", True, scaled)}
    out["T5WithLMHeadModel"] = out["T5ForConditionalGeneration"]
    if "decoder_stack" not in layout:  # is_decoder true: T5EncoderModel's stack is a decoder's
        out["T5EncoderModel"] = derive("encoder")
    return out


TRANSIENT = {layout: (_transient(layout) if "prelu" not in layout and "xielu" not in layout else {})
             for layout in VARIANTS}


FAMILY = Family(
    name="t5",
    reader=reader.READER,
    variants=VARIANTS,
    base="T5Model",
    checkpoints=V1_0_CHECKPOINTS + V1_1_CHECKPOINTS,
    first_published="2019-10",
    kind="encoder-decoder",
    maker="Google",
    headlines=(
        Headline("T5ForConditionalGeneration", "t5-large", "1.0, large"),
        Headline("T5ForConditionalGeneration", "t5-v1_1-base", "1.1, base"),
    ),
    example="t5-small",
    table_symbols=(D, F, H, d_h, L),
    # T5Model has no head: on a v1.1 checkpoint its column is also what transformers 5.x builds for
    # T5ForConditionalGeneration from the config (the head tied, so counted nowhere).
    table_columns={
        "T5ForConditionalGeneration": "T5ForConditionalGeneration",
        "T5Model": "T5Model",
        "T5EncoderModel": "T5EncoderModel",
    },
    miscounts=(large_770m, wikipedia_small, wikipedia_large),
    rounded=PAPER,
    # T5WithLMHeadModel is a name in old configs (t5-3b's, t5-11b's), not a class of transformers 5.23.
    aliases={"T5WithLMHeadModel": "T5ForConditionalGeneration"},
    transient=TRANSIENT,
)
