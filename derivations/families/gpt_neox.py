"""GPT-NeoX and Pythia (Black et al. 2022; Biderman et al. 2023), laid out as transformers' ``GPTNeoXModel``.

A decoder-only stack like GPT-2's, with three differences that matter or seem to matter for the count:

- positions are rotary (RoPE, on the first ``rotary_pct`` of each head): a rotation computed from the
  position, with no table and no parameter, so there is no position embedding to count;
- the output head is a matrix of its own (``tie_word_embeddings`` false, the default of GPTNeoXConfig),
  not the token embedding: two V-by-D tables instead of GPT-2's one;
- the block is "parallel" (``use_parallel_residual``): attention and feed-forward both read the block's
  input, each through its own LayerNorm, and their outputs are added to it at once. The block holds the
  same tensors either way, so the flag changes the function and not the count.

EleutherAI's checkpoints name the head ``embed_out``; transformers 5.x loads it as ``lm_head``, the path
used here.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from . import gpt2
from ..claims import Miscount, Rounded
from ..components import (Part, as_kind, classifier, embedding, feed_forward, fused_attention, group, layer_norm, leaf,
                         linear, task_heads, tied_tensor)
from ..readers import gpt_neox as reader
from ..sources import Citation, cite
from ..symbols import C, D, F, H, L, P, V, b, c_bt, d_h, d_r, f_a, l_2, s
from .. import transient as tr


# Every released size has the feed-forward four times the width (intermediate_size = 4 hidden_size).
STANDARD = {F: 4 * D}

# ---------------------------------------------------------------------------------------------
# Embeddings: the token table only (rotary positions learn nothing)
# $$N_\mathrm{emb} = V D$$
# ---------------------------------------------------------------------------------------------

embed_in = embedding("embed_in", "token embeddings (embed_in)", V, D, "embed_in")


# ---------------------------------------------------------------------------------------------
# One layer: two LayerNorms, attention (fused Q, K, V and an output map), feed-forward
# $$N_\mathrm{layer} = 2D + 2D + (3D^2 + 3D + D^2 + D) + (2DF + F + D) = 12D^2 + 13D$$  when F = 4D,
# the same tensors as a GPT-2 block; without attention biases (attention_bias false), 4D fewer.
# ---------------------------------------------------------------------------------------------

def layer(attention_bias: bool = True) -> Part:
    """GPTNeoXLayer (``layers.<i>``). Parallel or sequential residual: the same parameters."""
    assert attention_bias in (True, False)
    return group(
        "layer", "layer" if attention_bias else "layer, attention without biases",
        layer_norm("input_layernorm", D, "input_layernorm", label="LayerNorm before attention"),
        layer_norm("post_attention_layernorm", D, "post_attention_layernorm",
                   label="LayerNorm before the feed-forward (it reads the layer's input when the residual is parallel)"),
        fused_attention(D, qkv="query_key_value", output="dense", bias=attention_bias, path="attention",
                        label="causal self-attention, rotary positions", causal=True),
        feed_forward(D, F, up="dense_h_to_4h", down="dense_4h_to_h", path="mlp"),
        path="layers", symbol=r"N_{\mathrm{layer}}",
    )


# The tensors of GPT-2's block (ln_1, c_attn, c_proj, ln_2, c_fc, c_proj), under other names.
assert layer().total == gpt2.layer.total

final_layer_norm = layer_norm("final_layer_norm", D, "final_layer_norm", label="final LayerNorm (after the last layer)")


def body(block: Part, name: str = "gpt_neox", path: str | None = "gpt_neox",
         label: str = "GPTNeoXModel: token embeddings, layers, final LayerNorm") -> Part:
    # L layers, each with weights of its own.
    return group(name, label, embed_in, replace(block, repeat=L), final_layer_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name.replace('_', '')}}}}}")


# The language-model head: its own D-by-V matrix without bias (embed_out in EleutherAI's files), or,
# with tie_word_embeddings, the token embedding itself (counted there).
embed_out = as_kind(linear("lm_head", "language-model head (embed_out: a matrix of its own, no bias)", D, V, False,
                           "lm_head"), "heads")
embed_out_tied = as_kind(tied_tensor("lm_head", "language-model head (tied: the token embeddings, transposed)",
                                     "gpt_neox.embed_in", "lm_head", matrix=D * V), "heads")


def architectures(tied: bool = False, no_attention_bias: bool = False) -> dict[str, Part]:
    """Every GPT-NeoX class of transformers, named as transformers names it."""
    block = layer(not no_attention_bias)

    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, body(block), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "GPTNeoXModel": body(block, "GPTNeoXModel", None),
        "GPTNeoXForCausalLM": model("GPTNeoXForCausalLM", "GPT-NeoX with its language-model head",
                                    embed_out_tied if tied else embed_out),
        **{name: model(name, f"GPT-NeoX {label}", head)
           for name, (label, head) in task_heads("GPTNeoX", classifier(D, C, "classifier")).items()},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.gpt_neox.READER.layout): a tied head, attention without biases.
VARIANTS = reader.READER.layout.variants(architectures)

GPTNeoXForCausalLM_tied = VARIANTS["tied"]["GPTNeoXForCausalLM"]

block = layer()
block_standard = block.subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# Non-embedding parameters: everything but embed_in and embed_out
# $$N_{\text{non-emb}} = N_\mathrm{GPTNeoXForCausalLM} - 2VD = L N_\mathrm{layer} + 2D$$
# ---------------------------------------------------------------------------------------------

# NOTE: the convention of the Pythia model cards' "non-embedding" column: the total minus *both* V-by-D
# tables (tests/test_gpt_neox.py checks that subtracting only embed_in misses every card figure).
non_embedding = group("non_embedding", "layers and final LayerNorm (neither embed_in nor embed_out)",
                      replace(block, repeat=L), final_layer_norm, symbol=r"N_{\text{non-emb}}")
non_embedding_standard = non_embedding.subs(STANDARD)
embeddings = group("embeddings", "embed_in and embed_out", embed_in, embed_out, symbol=r"N_{\mathrm{emb}}")
# The share of the total that is not embedding tables (a fraction; shown in percent).
non_embedding_share = non_embedding.total / ARCHITECTURES["GPTNeoXForCausalLM"].total
CausalLM_standard = ARCHITECTURES["GPTNeoXForCausalLM"].subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.gpt_neox.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# The eight Pythia sizes and GPT-NeoX-20B [cite: hub-eleutherai]. Two files are copies of EleutherAI's own, field for field:
# - pythia-160m: EleutherAI/pythia-160m, main ("Upload config.json", 610be53);
# - gpt-neox-20b: EleutherAI/gpt-neox-20b at 3523781 ("Fix eos_token_id (#3)"; it has no
#   use_parallel_residual: transformers' default, true).
# The other seven Pythia files are reconstructions, not copies: EleutherAI's own config.json for them was
# not available here. Each is pythia-160m's file with the sizing fields (vocab_size, hidden_size,
# intermediate_size, num_attention_heads, num_hidden_layers, tie_word_embeddings, use_parallel_residual)
# taken from a fine-tuned copy whose _name_or_path names the EleutherAI checkpoint: edbeeching/pythia-70M,
# SummerSigh/Pythia410m-V0-Instruct, lomahony/pythia-1b-helpful-sft, ContextualAI/archangel_kto_pythia1-4b,
# ContextualAI/archangel_dpo_pythia2-8b, ContextualAI/archangel_sft_pythia6-9b and
# ContextualAI/archangel_slic_pythia12-0b. Fine-tuning keeps the shapes, and each vocabulary agrees with the
# hub configs as listed in [cite: pythia-68] (50,304 up to 2.8b, 50,432 for 6.9b, 50,688 for 12b), and
# each total with the model cards' (tests/test_gpt_neox.py); fields that size nothing (torch_dtype,
# transformers_version, token ids) are pythia-160m's and may differ from the originals.
CHECKPOINTS = ("pythia-70m", "pythia-160m", "pythia-410m", "pythia-1b", "pythia-1.4b", "pythia-2.8b", "pythia-6.9b",
               "pythia-12b", "gpt-neox-20b")
PYTHIA = CHECKPOINTS[:8]


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

_CARD = Citation("pythia-card", "“Naming convention and parameter count”")
_VOCAB_ISSUE = Citation("pythia-68")

# The tokenizer that every Pythia model shares: 50,277 entries in tokenizer.get_vocab(), against an
# embedding padded "to the nearest multiple of MODEL_PARALLEL_DEGREE * 128" ([cite: pythia-68],
# answer by haileyschoelkopf; the same 50,277 as len(get_vocab()) in dottxt-ai/outlines PR #236).
TOKENIZER = 50_277

_LISA = Citation("lisa-ftm", "its <code>real_training.py</code> calls <code>model.resize_token_embeddings(len(tokenizer))</code> before counting")


def _padding(table: str, path: str) -> Part:
    return leaf(f"{table}_padding", f"{path}: the rows past the tokenizer's entries (padding)", (V - TOKENIZER) * D)


def _tokenizer_sized(checkpoint: str, claim: int, name: str, model: str) -> Miscount:
    return Miscount(
        name, claim, f"“{checkpoint} (EleutherAI/{checkpoint}) — {claim:,} params”", _LISA, checkpoint,
        ARCHITECTURES["GPTNeoXForCausalLM"],
        terms=(_padding("embed_in", "embed_in"), _padding("embed_out", "embed_out (lm_head)")),
        # One term per table, the final LayerNorm's 2D apart: not folded into the vocabulary's rows.
        reconstruction=group("claimed", "GPTNeoXForCausalLM with both tables cut to the tokenizer's entries",
                             *ARCHITECTURES["GPTNeoXForCausalLM"].child("gpt_neox").subs({V: TOKENIZER}).children,
                             ARCHITECTURES["GPTNeoXForCausalLM"].child("lm_head").subs({V: TOKENIZER})),
        model=model,
        cause="that counts both vocabulary tables cut to the tokenizer's entries, without their padding rows",
    )


tokenizer_vocabulary_70m = _tokenizer_sized("pythia-70m", 70_398_976, "tokenizer_vocabulary_70m",
                                            "Pythia-70M (<code>pythia-70m</code>)")
tokenizer_vocabulary_160m = _tokenizer_sized("pythia-160m", 162_281_472, "tokenizer_vocabulary_160m",
                                             "Pythia-160M (<code>pythia-160m</code>)")

_SCALING = Citation("kaplan2020", f"N excludes “all vocabulary and positional embeddings”; against {cite('hoffmann2022')} (N counts every parameter), a mismatch analysed by {cite('pearce2024')}; the figure is the non-embedding count of {cite('pythia-card')}")

# Pythia-70M's exact non-embedding count (the card's; Kaplan's approximation 12 L D^2 gives 18,874,368),
# read as N in Chinchilla's convention: the two tables are missing.
kaplan_n_as_chinchilla_n = Miscount(
    "kaplan_n_as_chinchilla_n", 18_915_328,
    "Pythia-70M's exact non-embedding count (biases and norms included), the size Kaplan et al.'s N approximates",
    _SCALING, "pythia-70m", ARCHITECTURES["GPTNeoXForCausalLM"],
    terms=(leaf("embed_in", "embed_in, which Kaplan's N leaves out", V * D),
           leaf("embed_out", "embed_out, which Kaplan's N leaves out too", D * V)),
    reconstruction=replace(non_embedding, name="claimed"),
    model="Pythia-70M (<code>pythia-70m</code>)",
    cause="that is its non-embedding count, Kaplan et al.'s N, without the two vocabulary tables that Chinchilla's N "
          "counts",
)

# The names: Pythia's sizes since January 2023, and the names they carried before (the cards' table).
# What each could have counted: the total, the card's non-embedding count, or the count of a GPT-3-style
# model of the same depth and width (tied head, 2,048 learned positions, GPT-2's 50,257 tokens), the
# model whose name the early Pythia names share.
gpt3_layout = replace(gpt2.ARCHITECTURES["GPT2LMHeadModel"].subs({V: 50_257, P: 2048}), name="gpt3_layout",
                      label="GPT-3's layout at the same depth and width")


def _name(name: str, printed: str, checkpoint: str, what: str, candidates: tuple[Part, ...]) -> Rounded:
    return Rounded.of_name(name, printed, what, _CARD, checkpoint, candidates)


NAMES = tuple(_name(f"name_{c.split('-')[1].replace('.', '_')}", c.split("-")[1].upper(), c, f"Pythia-{c.split('-')[1].upper()}",
                    (ARCHITECTURES["GPTNeoXForCausalLM"], non_embedding)) for c in PYTHIA)
OLD_NAMES = tuple(_name(f"old_name_{c.split('-')[1].replace('.', '_')}", old, c,
                        f"Pythia-{c.split('-')[1].upper()}, formerly “{old}”",
                        (ARCHITECTURES["GPTNeoXForCausalLM"], non_embedding, gpt3_layout))
                  for c, old in zip(PYTHIA, ("19M", "125M", "350M", "800M", "1.3B", "2.7B", "6.7B", "13B")))


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_gpt_neox.py, statement by statement
# (parallel residual, as Pythia and GPT-NeoX-20B run it)
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, generate: bool) -> tuple[str, tuple[str, str]]:
    """GPTNeoXAttention.forward: query_key_value's one product, viewed per head and chunked into q, k and v (views
    that keep it whole, ``qkv`` a local until the function returns); the rotary part d_r of q and k rotated and
    put back with the rest; with a cache (generate) k and v go into it; eager attention (the softmax in fp32);
    dense."""
    rows, heads = b * s, b * H * s
    qkv = tr.linear(t, "qkv", rows, 3 * D)
    q = tr.rotate_part(t, "q", rows * H, d_h, d_r)
    k = tr.rotate_part(t, "k", rows * H, d_h, d_r)
    if generate:
        t.drop(k)  # key_states, value_states = layer_past.update(...)
    scores_input = tr.activation(heads * s)
    t.new("scores", scores_input)
    t.new("scaled", scores_input)
    t.drop("scores")
    t.new("masked", scores_input)
    t.drop("scaled")
    weights = tr.softmax_fp32(t, "masked", heads * s)
    # torch.matmul folds batch and heads of v, a view of the product, by a copy (c_bt); the cache's v is whole.
    tr.merge_heads(t, heads, d_h, 0 if generate else c_bt)
    out = tr.linear(t, "dense", rows, D)
    t.drop("context", "context_contiguous")
    t.drop(q, *(() if generate else (k,)), qkv)  # the function returns
    return out, weights


def layer_forward(t: tr.Timeline, out: str, generate: bool) -> str:
    """GPTNeoXLayer.forward with use_parallel_residual: the attention on ``input_layernorm(x)`` (an argument, dying
    when it returns), the MLP on ``post_attention_layernorm(x)`` (dense_h_to_4h, GELU, dense_4h_to_h), then
    ``mlp + attn + x`` (GELU: torch's, or gelu_fast in Python where f_a is 1); the attention's output and weights (``attn_output, _``) live until the layer returns."""
    rows = b * s
    normed = tr.layer_norm(t, "input_layernorm", D)
    attended, weights = attention_forward(t, generate)
    t.drop(normed)
    normed = tr.layer_norm(t, "post_attention_layernorm", D)
    tr.linear(t, "h_to_4h", rows, F)
    tr.gelu_fast_python(t, "act", rows * F, f_a)
    t.drop("h_to_4h")
    mlp = tr.linear(t, "4h_to_h", rows, D)
    t.drop("act", normed)
    t.new("partial_sum", tr.activation(rows * D))
    t.new(out, tr.activation(rows * D))
    t.drop("partial_sum", mlp, attended, *weights)
    return out


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """GPTNeoXForCausalLM.forward (GPTNeoXModel.forward without the head): LLaMA's order (embeddings held to the
    end, positions, causal mask, the rotary cosine and sine of the rotary part, the layers, the final LayerNorm),
    then the logits of every token, or of the last one."""
    stream = tr.activation(b * s * D)
    t.new("embeddings", stream)
    position_ids = tr.positions(t)
    mask = tr.causal_mask(t)
    rotary = tr.rotary(t, d_r)
    layer_forward(t, "hidden", generate)
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        layer_forward(t, "hidden", generate)
        t.drop("previous")
    tr.layer_norm(t, "final", D)
    t.drop("hidden", "embeddings", position_ids, mask, *rotary)
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The paths the program follows (parallel residual, torch's GELU or gelu_fast, plain rotary angles); the rotary part of a head, d_r =
# int(d_h rotary_pct), even (its halves are rotated).
_ASSUMES = dict(even=("d_r",), derived=(("d_r", "rotary_pct", 0.25, "d_h"),),
                requires=(("use_parallel_residual", True, (True,)), ("hidden_act", "gelu", ("gelu", "gelu_fast")),
                          ("rope_scaling", None, (None,))),
                flags=(("f_a", "hidden_act", "gelu", "gelu_fast"),))
TRANSIENT = {layout: {"GPTNeoXModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, False),
                                                    generates=False, **_ASSUMES),
                      "GPTNeoXForCausalLM": tr.transient(causal_lm_forward, **_ASSUMES)}
             for layout in VARIANTS}


FAMILY = Family(
    name="gpt_neox",
    reader=reader.READER,
    variants=VARIANTS,
    base="GPTNeoXModel",
    checkpoints=CHECKPOINTS,
    first_published="2022-04",
    kind="decoder",
    maker="EleutherAI",
    headlines=(Headline("GPTNeoXForCausalLM", "pythia-12b"),),
    example="pythia-70m",
    table_symbols=(L, D, H, V),
    table_columns={
        "GPTNeoXForCausalLM": "GPTNeoXForCausalLM",
        "non_embedding": "non-embedding",
        "non_embedding_share | percent": "non-embedding / total (%)",
    },
    miscounts=(tokenizer_vocabulary_70m, tokenizer_vocabulary_160m, kaplan_n_as_chinchilla_n),
    rounded=NAMES + OLD_NAMES,
    transient=TRANSIENT,
)
