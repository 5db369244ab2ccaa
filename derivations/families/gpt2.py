"""GPT-2 (Radford et al. 2019), composed from the components, laid out as transformers' ``GPT2Model``.

A decoder-only stack of pre-LN blocks (LayerNorm before each sub-layer, as the paper moved it) with a
final LayerNorm after the last block, learned positions, and a language-model head that *is* the
token embedding (tied). transformers stores the weights in ``Conv1D`` modules, a linear map whose
weight is kept transposed (``nx`` by ``nf``): the same number of parameters as ``nn.Linear``.
GPT-3 uses the same layout at other sizes (``derivations.gpt3``).
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..contract import Family, Headline
from ..claims import Hypothesis, Miscount, Rounded
from ..components import (Part, as_kind, classifier, column_parallel, feed_forward, fused_attention, group, idle,
                         layer_norm, leaf, linear, row_parallel, task_heads, tied_tensor, token_and_position_embeddings)
from ..reading import SEQUENCE_SUMMARY
from ..readers import gpt2 as reader
from ..sources import Citation, cite
from ..symbols import C, D, F, H, L, P, V, b, c_b, d_h, s
from .. import transient as tr


# The paper's shape: the feed-forward is four times the width (config n_inner null).
STANDARD = {F: 4 * D}

# ---------------------------------------------------------------------------------------------
# Embeddings: tokens and learned positions, summed; no token types, no LayerNorm here
# $$N_\mathrm{emb} = (V + P) D$$
# ---------------------------------------------------------------------------------------------

embeddings = token_and_position_embeddings(V, P, D, tokens="wte", positions="wpe")

# ---------------------------------------------------------------------------------------------
# One block (pre-LN): LayerNorm, causal self-attention, residual; LayerNorm, feed-forward, residual
# $$N_\mathrm{block} = 2D + (3D^2 + 3D + D^2 + D) + 2D + (2DF + F + D) = 12D^2 + 13D$$  when F = 4D.
# ---------------------------------------------------------------------------------------------

# Cross-attention (add_cross_attention, GPT-2 as the decoder of an encoder-decoder): queries from the
# block, keys and values from the encoder's states, in a D-by-D and a fused D-by-2D map.
cross_attention = group(
    "cross_attention", "cross-attention",
    column_parallel(linear("query", "query projection", D, D, True, "q_attn"), "heads", H),
    column_parallel(linear("key_value", "key and value projections (one fused D-by-2D map)", D, 2 * D, True, "c_attn"),
                    "heads", H),
    row_parallel(linear("output", "output projection", D, D, True, "c_proj"), "heads", H),
    path="crossattention", kind="attention",
)


def block(cross: bool = False, attention: Part | None = None) -> Part:
    """GPT2Block (``h.<i>``), optionally with cross-attention, or with another attention (gpt3)."""
    attention = attention if attention is not None else fused_attention(
        D, qkv="c_attn", output="c_proj", path="attn", label="causal self-attention", causal=True)
    parts = [layer_norm("attention_norm", D, "ln_1", label="LayerNorm before attention"), attention]
    if cross:
        # transformers runs it only when given an encoder's states; on tokens alone it is built and idle.
        parts += [layer_norm("cross_attention_norm", D, "ln_cross_attn", label="LayerNorm before cross-attention"),
                  idle(cross_attention)]
    parts += [layer_norm("feed_forward_norm", D, "ln_2", label="LayerNorm before the feed-forward"),
              feed_forward(D, F, up="c_fc", down="c_proj", path="mlp")]
    return group("block", "block with cross-attention" if cross else "block", *parts, path="h",
                 symbol=r"N_{\mathrm{block}}")


final_norm = layer_norm("final_norm", D, "ln_f", label="final LayerNorm (after the last block)")


def transformer(block: Part, name: str = "transformer", label: str = "GPT2Model: embeddings, blocks, final LayerNorm",
                path: str | None = "transformer") -> Part:
    # L blocks, each with weights of its own: the block times L.
    return group(name, label, embeddings, replace(block, repeat=L), final_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


# The heads. Tied (the default), the language-model head is the token embedding transposed.
lm_head = as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                              "transformer.wte", "lm_head", matrix=D * V), "heads")
# tie_word_embeddings false: a D-by-V map of its own, without bias.
lm_head_untied = as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V,
                                False, "lm_head"), "heads")

# GPT2DoubleHeadsModel's multiple-choice head: a SequenceSummary whose projection gives one logit per
# choice (transformers sets num_labels to 1), D values with summary_proj_to_labels false, or is
# absent with summary_use_proj false.
SUMMARY = {"": 1, "summary_hidden": D, "no_summary": None}
assert set(SUMMARY) == set(SEQUENCE_SUMMARY.values), "the summary shapes are the reader's"


def multiple_choice_head(summary: str) -> tuple[Part, ...]:
    """The multiple-choice summary for a layout's summary shape (none when it has no projection)."""
    outputs = SUMMARY[summary]
    if outputs is None:
        return ()
    label = "multiple-choice summary (one logit per choice)" if outputs == 1 else "multiple-choice summary (D values)"
    # On one row of each choice: the state at its classification token (the last, unless mc_token_ids says).
    return (replace(as_kind(linear("multiple_choice", label, D, outputs, True, "multiple_choice_head.summary"), "heads"),
                    tokens=1),)


def architectures(cross_attention: bool = False, untied: bool = False, summary: str = "",
                  with_block: Part | None = None) -> dict[str, Part]:
    """Every GPT-2 class of transformers, named as transformers names it, around one block (the
    block GPT-2 has, unless ``with_block`` gives another)."""
    layer = with_block if with_block is not None else block(cross_attention)
    head = lm_head_untied if untied else lm_head

    def model(name: str, label: str, *heads: Part) -> Part:
        return group(name, label, transformer(layer), *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "GPT2Model": transformer(layer, "GPT2Model", "GPT2Model: embeddings, blocks, final LayerNorm", path=None),
        "GPT2LMHeadModel": model("GPT2LMHeadModel", "GPT-2 with its language-model head", head),
        "GPT2DoubleHeadsModel": model("GPT2DoubleHeadsModel",
                                           "GPT-2 with the language-model and multiple-choice heads", head,
                                      *multiple_choice_head(summary)),
        **{name: model(name, f"GPT-2 {label}", head)
           for name, (label, head) in task_heads("GPT2", classifier(D, C, "classifier")).items()},
    }


ARCHITECTURES = architectures()


# Every layout a config.json can ask for (readers.gpt2.READER.layout): cross-attention (add_cross_attention), an
# untied head (tie_word_embeddings false), and the multiple-choice summary's shape.
VARIANTS = reader.READER.layout.variants(architectures)


layer = block()
cross_attention_layer = block(cross=True)

# Everything but the token and position tables: what Kaplan et al. call the model size N (they also
# drop biases and LayerNorms, see gpt3), and what the Pythia model cards call non-embedding.
non_embedding = group("non_embedding", "blocks and final LayerNorm (no embedding tables)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
GPT2Model_standard = ARCHITECTURES["GPT2Model"].subs(STANDARD)
non_embedding_standard = non_embedding.subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled (the common-mistakes page)
# ---------------------------------------------------------------------------------------------

_PAPER = Citation("radford2019", "Table 2")
_RETRACTION = cite("gpt2-readme", "“our original parameter counts were wrong due to an error”")
# GPT-1's vocabulary (its config.json, vocab_size; 40,000 BPE merges in Radford et al. 2018).
GPT1_VOCABULARY = 40_478

# The four figures of the paper's Table 2, against the four released checkpoints.
paper_small = Rounded("paper_small", 117_000_000, "small: 12 layers, d_model 768", _PAPER, "gpt2",
                      (ARCHITECTURES["GPT2LMHeadModel"],), printed="117M")
paper_medium = Rounded("paper_medium", 345_000_000, "medium: 24 layers, d_model 1024", _PAPER, "gpt2-medium",
                       (ARCHITECTURES["GPT2LMHeadModel"],), printed="345M")
paper_large = Rounded("paper_large", 762_000_000, "large: 36 layers, d_model 1280", _PAPER, "gpt2-large",
                      (ARCHITECTURES["GPT2LMHeadModel"],), printed="762M")
paper_xl = Rounded("paper_xl", 1_542_000_000, "xl: 48 layers, d_model 1600", _PAPER, "gpt2-xl",
                   (ARCHITECTURES["GPT2LMHeadModel"],), printed="1542M")

# A hypothesis, not a published explanation: OpenAI said only that the counts were wrong. Counting
# GPT-2's layout with GPT-1's vocabulary reproduces all four printed figures.
paper_counts = Hypothesis(
    "paper_counts",
    "the paper counted each size with GPT-1's vocabulary instead of GPT-2's",
    (paper_small, paper_medium, paper_large, paper_xl), V, GPT1_VOCABULARY,
)

# Other things the paper could have counted; none reproduces the four figures.
without_positions = group("without_positions", "without the position table",
                          embeddings.child("token"), replace(layer, repeat=L), final_norm)
head_counted_twice = group("head_counted_twice", "with the tied head counted a second time",
                           ARCHITECTURES["GPT2LMHeadModel"],
                           leaf("head_again", "the head: the token embeddings again", V * D))
# GPT-1's vocabulary and its context as well, as a count carried over whole from GPT-1 would have them.
gpt1_vocabulary_and_context = replace(ARCHITECTURES["GPT2LMHeadModel"].subs({V: GPT1_VOCABULARY, P: 512}),
                                      name="gpt1_vocabulary_and_context",
                                      label="with GPT-1's vocabulary and its 512 positions")
CONVENTIONS = (ARCHITECTURES["GPT2LMHeadModel"], without_positions, non_embedding, head_counted_twice,
               gpt1_vocabulary_and_context)
paper_conventions = tuple(replace(claim, name=f"{claim.name}_conventions", candidates=CONVENTIONS)
                          for claim in paper_counts.claims)

# The corrected sizes: the download directories of openai/gpt-2 (DEVELOPERS.md) and its model card.
_RELEASE = Citation("gpt2-developers", "the download names (124M, 355M, 774M, 1558M)")
RELEASED = tuple(Rounded(f"released_{name.replace('-', '_')}", millions * 10**6, f"{name} as released", _RELEASE,
                         name, (ARCHITECTURES["GPT2LMHeadModel"],), printed=f"{millions}M")
                 for name, millions in (("gpt2", 124), ("gpt2-medium", 355), ("gpt2-large", 774), ("gpt2-xl", 1558)))

small_117m = Miscount(
    "small_117m", 117_000_000, "GPT-2 small as “117M”",
    Citation("radford2019", f"Table 2, and the name the first release carried (retracted in {_RETRACTION})"), "gpt2",
    ARCHITECTURES["GPT2LMHeadModel"],
    terms=(leaf("vocabulary", "the vocabulary, GPT-2's against GPT-1's, if the hypothesis on the paper's counts holds",
                (V - GPT1_VOCABULARY) * D),
           # Unevaluated, so that GPT-1's 40,478 rows and the final LayerNorm's 2D stay two terms.
           leaf("rounding", "rounding that hypothetical count (GPT-2's layout, GPT-1's vocabulary) to 117M",
                sympy.Add(*(ARCHITECTURES["GPT2LMHeadModel"].find(f"transformer.{part}").total.subs(V, GPT1_VOCABULARY)
                            for part in ("embeddings.token", "embeddings.position", "block", "final_norm")),
                          -117_000_000, evaluate=False))),
    printed="117M",
    model="GPT-2 small (<code>gpt2</code>)",
    cause="that is the paper's retracted figure, which GPT-2's layout with GPT-1's vocabulary reproduces (a hypothesis)",
)

# rasbt/LLMs-from-scratch, chapter 4: a GPT-2-sized model with qkv_bias False and an untied out_head.
_BOOK = Citation("raschka2024", "chapter 4, for <code>GPT_CONFIG_124M</code>")
_book_block = group(
    "block", "the book's transformer block",
    leaf("qkv", "W_query, W_key, W_value, no biases (qkv_bias False)", 3 * D**2),
    linear("out_proj", "out_proj, with bias", D, D),
    linear("ff_in", "feed-forward, first Linear", D, F), linear("ff_out", "feed-forward, second Linear", F, D),
    leaf("norms", "norm1 and norm2: scale and shift", 4 * D),
    repeat=L,
)
_book_body = (leaf("tok_emb", "token embedding", V * D), leaf("pos_emb", "position embedding", P * D), _book_block,
              leaf("final_norm", "final_norm: scale and shift", 2 * D))
book_model = group("claimed", "the book's GPTModel, out_head included", *_book_body,
                   leaf("out_head", "out_head (bias=False), untied", V * D))
book_model_tied = group("claimed", "the book's GPTModel, out_head subtracted", *_book_body)
_qkv_biases = leaf("qkv_biases", "query, key and value biases (c_attn.bias), in every block", L * 3 * D)

tied_head_counted_twice = Miscount(
    "tied_head_counted_twice", 163_009_536, "“Total number of parameters” of a GPT-2 (124M) re-implementation",
    _BOOK, "gpt2", ARCHITECTURES["GPT2LMHeadModel"],
    terms=(leaf("head", "out_head: the token embeddings a second time (GPT-2 ties them)", -V * D), _qkv_biases),
    reconstruction=book_model,
    model="GPT-2 small (<code>gpt2</code>)",
    cause="that counts a re-implementation with an untied output head and no query, key and value biases (right "
          "for it; a trap, not known to have been quoted as GPT-2's)",
)

attention_biases_left_out = Miscount(
    "attention_biases_left_out", 124_412_160,
    "“Number of trainable parameters considering weight tying” of the same re-implementation", _BOOK, "gpt2",
    ARCHITECTURES["GPT2LMHeadModel"], terms=(_qkv_biases,), reconstruction=book_model_tied,
    model="GPT-2 small (<code>gpt2</code>)",
    cause="the book's model has no query, key and value biases; GPT-2 has them in every block",
)

# TransformerLens's n_params counts the attention and MLP weight matrices only
# (HookedTransformerConfig: n_layers * (d_model * d_head * n_heads * 4) + n_layers * d_model * d_mlp * 2).
non_embedding_as_total = Miscount(
    "non_embedding_as_total", 84_934_656, "gpt2-small, <code>cfg.n_params</code>, listed as “85M”",
    Citation("transformerlens-903"),
    "gpt2", ARCHITECTURES["GPT2LMHeadModel"],
    terms=(leaf("token", "token embeddings", V * D), leaf("position", "position embeddings", P * D),
           leaf("biases", "every bias: Q, K, V, O, and both feed-forward maps, in every block", L * (3 * D + D + F + D)),
           leaf("norms", "every LayerNorm: two per block and the final one", L * 4 * D + 2 * D)),
    reconstruction=group("claimed", "TransformerLens's n_params",
                         leaf("attention", "W_Q, W_K, W_V, W_O", L * 4 * D * H * d_h),
                         leaf("mlp", "W_in, W_out", L * 2 * D * F)),
    printed="85M",
    model="GPT-2 small (<code>gpt2</code>)",
    cause="TransformerLens's <code>n_params</code> counts only the weight matrices of attention and MLP",
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_gpt2.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, generate: bool) -> tuple[str, str]:
    """GPT2Attention.forward: c_attn's one product, split into q, k and v (views of it, which keep it whole while
    any of them lives); with a cache (generate) k and v are copied into it and read from there; eager attention
    (the softmax in the activation dtype); the heads merged by ``reshape(...).contiguous()``; c_proj. Returns the
    output and the attention weights (the block holds both until it returns)."""
    rows, heads = b * s, b * H * s
    tr.linear(t, "qkv", rows, 3 * D)
    if t.attention == "sdpa":  # sdpa reads the views of c_attn's product (its output laid out tokens by heads)
        context, _ = tr.sdpa_attention(t, "q", "k", "v", H, d_h)
        out = tr.linear(t, "c_proj", rows, D)
        t.drop(*context, "qkv")  # attn_output bound again; the function returns
        return out, None
    # torch.matmul folds batch and heads of a view into c_attn's rows by a copy (c_b), read by bmm and dropped: the
    # query and the transposed keys (the cache's keys are contiguous), then the values (the cache's too).
    tr.scaled_scores(t, c_b * heads * d_h, (0 if generate else c_b) * heads * d_h, heads * s)
    t.new("masked", tr.activation(heads * s))
    t.drop("scaled")
    t.new("weights", tr.activation(heads * s))  # softmax(dim=-1) in the activation dtype; .type() is a no-op
    t.drop("masked")
    tr.merge_heads(t, heads, d_h, 0 if generate else c_b)  # reshape copies unless a view will do
    out = tr.linear(t, "c_proj", rows, D)
    t.drop("context", "context_contiguous")
    t.drop("qkv")  # the function returns
    return out, "weights"


def block_forward(t: tr.Timeline, x: str, out: str, generate: bool, attention=None, activation=None) -> str:
    """GPT2Block.forward on ``x`` (its caller's): ln_1, attention, residual add, ln_2, the MLP (c_fc, gelu_new,
    c_proj), residual add; the attention's output and weights (``attn_output, _``) live until the block returns.
    GPT-BigCode's block is the same statements with its own ``attention(t, generate)`` (its output and the names of
    its weights) and ``activation(t, elements)`` (the activation's tensor, whose name it returns)."""
    rows = b * s
    normed = tr.layer_norm(t, "ln_1", D)
    attended, weights = (attention or attention_forward)(t, generate)
    t.new("residual", tr.activation(rows * D))  # attn_output + residual
    t.drop(normed)
    normed = tr.layer_norm(t, "ln_2", D)
    fc = tr.linear(t, "c_fc", rows, F)
    act = activation(t, rows * F) if activation else tr.gelu_tanh_python(t, "gelu", rows * F)
    t.drop(fc)
    mlp = tr.linear(t, "mlp_out", rows, D)
    t.drop(act)
    t.new(out, tr.activation(rows * D))  # residual + feed_forward_hidden_states
    held = weights if isinstance(weights, tuple) else (weights,) if weights else ()
    t.drop(normed, "residual", attended, *held, mlp)
    return out


def lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """GPT2LMHeadModel.forward (GPT2Model.forward without the head): token and position embeddings (held by the
    model's forward until it returns) and their sum, the positions, the causal mask, the blocks (each one's input
    dies when the next is bound), ln_f; then the logits of every token, or of the last one."""
    stream = tr.activation(b * s * D)
    t.new("inputs_embeds", stream)
    position_ids = tr.positions(t)
    t.new("position_embeds", tr.activation(s * D))
    t.new("hidden", stream)
    mask = tr.causal_mask(t)
    block_forward(t, "hidden", "output", generate)
    t.drop("hidden")
    tr.layer_norm(t, "ln_f", D)
    t.drop("output", position_ids, "inputs_embeds", "position_embeds", mask)
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The code paths the program follows: gelu_new in Python, and attention without its fp32 reordering.
_REQUIRES = (("activation_function", "gelu_new", ("gelu_new",)), ("reorder_and_upcast_attn", False, (False,)))
TRANSIENT = {layout: {"GPT2Model": tr.transient(lambda t, generate: lm_forward(t, False, lm_head=False),
                                                 generates=False, requires=_REQUIRES),
                      "GPT2LMHeadModel": tr.transient(lm_forward, requires=_REQUIRES)}
             for layout in VARIANTS}
# ... under sdpa attention (transformers' default): reorder_and_upcast_attn is eager's alone (GPT2Attention reads it
# only under eager).
_SDPA_REQUIRES = _REQUIRES[:1]
TRANSIENT_SDPA = {layout: {"GPT2Model": tr.transient(lambda t, generate: lm_forward(t, False, lm_head=False),
                                                      generates=False, requires=_SDPA_REQUIRES, attention="sdpa"),
                           "GPT2LMHeadModel": tr.transient(lm_forward, requires=_SDPA_REQUIRES, attention="sdpa")}
                  for layout in VARIANTS}


FAMILY = Family(
    name="gpt2",
    reader=reader.READER,
    variants=VARIANTS,
    base="GPT2Model",
    # The four sizes OpenAI released, as their config.json files on the Hugging Face hub describe them
    # (openai-community/gpt2, -medium, -large, -xl) [cite: hub-openai-community].
    checkpoints=("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"),
    first_published="2019-02",
    kind="decoder",
    maker="OpenAI",
    headlines=(
        Headline("GPT2LMHeadModel", "gpt2", "small"),
        Headline("GPT2LMHeadModel", "gpt2-xl", "XL"),
    ),
    example="gpt2",
    table_symbols=(L, D, H),
    table_columns={"GPT2LMHeadModel": "GPT2LMHeadModel", "non_embedding": "non-embedding"},
    miscounts=(small_117m, tied_head_counted_twice, attention_biases_left_out, non_embedding_as_total),
    rounded=(paper_small, paper_medium, paper_large, paper_xl) + RELEASED,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
    hypotheses=(paper_counts,),
)
