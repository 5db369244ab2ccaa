"""GPTBigCode (BigCode 2023): SantaCoder and StarCoder, laid out as transformers' ``GPTBigCodeModel``.

GPT-2's tree (learned positions, pre-LN blocks, a final LayerNorm, a tied head) with one difference that matters
for the count: multi-query attention. The fused map ``c_attn`` gives every head its own queries but one key head
and one value head shared by all (``multi_query``, true in every released model): D by D + 2 d_h instead of GPT-2's
D by 3D. With ``multi_query`` false it is GPT-2's attention again (K = H), and only then can a block have
cross-attention (GPT-2's, under the same names).
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..contract import Family, Headline
from ..components import (Part, Shard, attention_products, classifier, group, linear, row_parallel,
                          task_heads)
from . import gpt2
from ..readers import gpt_bigcode as reader
from ..sources import READ, Citation, Source, declare
from ..symbols import C, D, H, K, L, P, V, b, c_b, c_bt, c_t, d_h, f_a, l_2, s
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# Attention: queries for H heads, one fused map with K key heads and K value heads (K = 1: multi-query)
# $$N_\mathrm{attn} = D (H + 2K) d_h + (H + 2K) d_h + D^2 + D$$
# ---------------------------------------------------------------------------------------------


def grouped_fused_attention(*, qkv: str, output: str, bias: bool = True, path: str, label: str,
                            cached_heads=K) -> Part:
    """Causal self-attention whose queries (H heads), keys and values (K heads each) are one fused map, D to
    (H + 2K) d_h, then an output map; ``cached_heads``: the key/value heads the cache keeps for each token (K, unless
    an implementation widens them first)."""
    width = (H + 2 * K) * d_h
    fused = linear("qkv", f"query, key and value projections, fused ({qkv}): D to (H + 2K) d_h", D, width, bias, qkv)
    # Tensor parallelism: the fused map's query rows by query heads, its key and value rows by key/value heads.
    cuts = (Shard("heads", H, 0, D * H * d_h), Shard("kv_heads", K, 0, 2 * D * K * d_h))
    if bias:
        cuts += (Shard("heads", H, 1, H * d_h), Shard("kv_heads", K, 1, 2 * K * d_h))
    return replace(group(
        "attention", label, replace(fused, shards=cuts),
        row_parallel(linear("output", "output projection", H * d_h, D, bias, output), "heads", H),
        path=path, kind="attention", ops=attention_products(H, d_h, d_h, causal=True), cache=2 * cached_heads * d_h),
        cache_shard=Shard("kv_heads" if cached_heads == K else "heads", cached_heads))


attention = grouped_fused_attention(qkv="c_attn", output="c_proj", path="attn",
                                    label="causal self-attention, multi-query (K key/value heads)")


def block(cross: bool = False) -> Part:
    """GPTBigCodeBlock (``h.<i>``): GPT-2's block around multi-query attention."""
    return gpt2.block(cross, attention=attention)


def architectures(cross_attention: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every GPTBigCode class of transformers, named as transformers names it (no span head)."""
    layer = block(cross_attention)
    head = gpt2.lm_head_untied if untied else gpt2.lm_head

    def model(name: str, label: str, head: Part) -> Part:
        return group(name, label, gpt2.transformer(layer, label="GPTBigCodeModel: embeddings, blocks, final LayerNorm"),
                     head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    heads = task_heads("GPTBigCode", classifier(D, C, "classifier"))
    return {
        "GPTBigCodeModel": gpt2.transformer(layer, "GPTBigCodeModel",
                                            "GPTBigCodeModel: embeddings, blocks, final LayerNorm", path=None),
        "GPTBigCodeForCausalLM": model("GPTBigCodeForCausalLM", "GPTBigCode with its language-model head", head),
        **{name: model(name, f"GPTBigCode {label}", head) for name, (label, head) in heads.items()
           if name != "GPTBigCodeForQuestionAnswering"},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.gpt_bigcode.READER.layout): cross-attention, an untied head.
VARIANTS = reader.READER.layout.variants(architectures)

layer = block()

# With one key/value head per query head (K = H, multi_query false) the block is GPT-2's, tensor for tensor.
assert (layer.total.subs(K, H).subs(d_h, D / H) - gpt2.layer.total).expand() == 0

non_embedding = group("non_embedding", "blocks and final LayerNorm (no embedding tables)",
                      replace(layer, repeat=L), gpt2.final_norm, symbol=r"N_{\text{non-emb}}")

# The share of the total that is the two tables, tokens and positions (a fraction; shown in percent).
embedding_share = gpt2.embeddings.total / ARCHITECTURES["GPTBigCodeForCausalLM"].total

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.gpt_bigcode.read reads their config.json)
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-bigcode", "config", "BigCode", "GPTBigCode checkpoints: config.json of gpt_bigcode-santacoder, "
           "starcoderbase-1b and starcoder", "Hugging Face, bigcode", 2023, "https://huggingface.co/bigcode",
           read=READ, short="BigCode on the hub"),
    Source("starcoder-card", "card", "BigCode", "StarCoder model card: “The StarCoder models are 15.5B parameter "
           "models”", "Hugging Face, bigcode/starcoder", 2023, "https://huggingface.co/bigcode/starcoder", read=READ,
           short="the StarCoder model card"),
    Source("santacoder-card", "card", "BigCode", "SantaCoder model card: “The SantaCoder models are a series of 1.1B "
           "parameter models”", "Hugging Face, bigcode/santacoder", 2023, "https://huggingface.co/bigcode/santacoder",
           read=READ, short="the SantaCoder model card"),
)

# Three of BigCode's checkpoints [cite: hub-bigcode]:
# - santacoder: bigcode/gpt_bigcode-santacoder's config.json (SantaCoder converted to GPTBigCode), field for field
#   as lablup's mlxcel quotes it in the tests of its GPTBigCode loader ("the real bigcode/gpt_bigcode-santacoder
#   config.json field set");
# - starcoder: bigcode/starcoder's config.json; its fields (the sizes, and the runner fields that size nothing:
#   inference_runner, validate_runner_input, max_batch_size ...) as Cerebras' model-zoo converter for StarCoder
#   writes them (a reconstruction: the file itself was not reachable here);
# - starcoderbase-1b: starcoder's file with bigcode/starcoderbase-1b's sizes (2,048 wide, 16 heads, 24 layers,
#   8,192 inner; a reconstruction).
CHECKPOINTS = ("santacoder", "starcoderbase-1b", "starcoder")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the cards' names are the exact totals rounded at their last printed digit
# ---------------------------------------------------------------------------------------------

NAMES = (
    Rounded("name_santacoder", 1_100_000_000, "SantaCoder: “1.1B parameter models”",
            Citation("santacoder-card", "“Model Summary”"), "santacoder",
            (ARCHITECTURES["GPTBigCodeForCausalLM"], non_embedding), precision=10**8, printed="1.1B"),
    Rounded("name_starcoderbase_1b", 1_000_000_000, "StarCoderBase-1B", Citation("hub-bigcode"), "starcoderbase-1b",
            (ARCHITECTURES["GPTBigCodeForCausalLM"], non_embedding), precision=10**9, printed="1B"),
    Rounded("name_starcoder", 15_500_000_000, "StarCoder: “15.5B parameter models”",
            Citation("starcoder-card", "“Model Summary”"), "starcoder",
            (ARCHITECTURES["GPTBigCodeForCausalLM"], non_embedding), precision=10**8, printed="15.5B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_gpt_bigcode.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, generate: bool) -> tuple[str, tuple[str, str]]:
    """GPTBigCodeAttention.forward: c_attn's one product, split into q, k and v (views of it: multi-query's one
    key/value head, f_a 1, or multi-head's, each head's q, k and v side by side); with a cache (generate) k and v are
    concatenated into it and read from there (contiguous); eager_attention_forward: repeat_kv (the one key/value head
    expanded over the H heads, a view), ``torch.matmul`` folding batch and heads of each operand by a copy where a view
    will not do (multi-query: more than one sequence and head, c_b, even from the cache, whose one head is expanded;
    multi-head: c_bt, not from the cache), the scores scaled, masked, the softmax in fp32 cast back (returned: the
    block holds it as ``_``), the values, the output transposed (c_t); c_proj. Returns the output and the weights."""
    rows, heads = b * s, b * H * s
    folded = f_a * c_b + (1 - f_a) * c_bt  # a query or a key/value head-split view of c_attn's product
    cached = f_a * c_b  # ... of the cache's (contiguous) keys and values
    qkv = tr.linear(t, "qkv", rows, D + 2 * K * d_h)
    if t.attention == "sdpa":  # sdpa reads the views of c_attn's product (its output laid out tokens by heads)
        context, _ = tr.sdpa_attention(t, "q", "k", "v", H, d_h)
        out = tr.linear(t, "c_proj", rows, D)
        t.drop(*context, qkv)  # attn_output bound again; the function returns
        return out, ()
    t.new("query_folded", tr.activation(folded * heads * d_h))
    t.new("keys_folded", tr.activation((cached if generate else folded) * heads * d_h))
    t.new("scores", tr.activation(heads * s))
    t.drop("keys_folded", "query_folded")
    t.new("scaled", tr.activation(heads * s))
    t.drop("scores")
    t.new("masked", tr.activation(heads * s))
    t.drop("scaled")
    weights = tr.softmax_fp32(t, "masked", heads * s)
    t.new("values_folded", tr.activation((cached if generate else folded) * heads * d_h))
    t.new("context_copied", tr.activation(c_t * heads * d_h))
    t.new("context", tr.activation((1 - c_t) * heads * d_h))
    t.drop("values_folded")
    t.new("context_contiguous", tr.activation(c_t * heads * d_h))
    t.drop("context_copied")
    out = tr.linear(t, "c_proj", rows, D)
    t.drop("context", "context_contiguous")  # attn_output bound again
    t.drop(qkv)  # the function returns
    return out, weights


def block_forward(t: tr.Timeline, out: str, generate: bool) -> str:
    """GPTBigCodeBlock.forward on its caller's input: GPT-2's block (ln_1, the attention, whose output and weights are
    held until the block returns, the residual sum, ln_2, the MLP, the residual sum) with GPT-BigCode's attention and
    an activation that is one tensor of torch's (gelu_pytorch_tanh, gelu ...)."""
    return gpt2.block_forward(t, "", out, generate, attention=attention_forward,
                              activation=lambda t, elements: t.new("act", tr.activation(elements)))


def causal_lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """GPTBigCodeForCausalLM.forward (GPTBigCodeModel.forward without the head): the token embeddings, the positions,
    the causal mask, the position embeddings (one row) and the sum (the first four held to the end), the blocks (each
    one's input dying when the name is bound to its output), ln_f; then the logits of every token, or of the last."""
    stream = tr.activation(b * s * D)
    t.new("inputs_embeds", stream)
    position_ids = tr.positions(t)
    mask = tr.causal_mask(t)
    t.new("position_embeds", tr.activation(s * D))
    t.new("hidden", stream)
    block_forward(t, "output", generate)
    t.drop("hidden")
    with t.only(l_2):  # a second block: the first one's output, its input (bound again as the block returns)
        t.drop("output")
        t.new("previous", stream)
        block_forward(t, "output", generate)
        t.drop("previous")
    tr.layer_norm(t, "ln_f", D)
    t.drop("output", position_ids, "inputs_embeds", mask, "position_embeds")
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The code paths the program follows: an activation that is one operation of torch's (gelu_pytorch_tanh, the
# default, is torch's gelu with approximate="tanh"); f_a: multi-query attention (multi_query, true by default).
_ASSUMES = dict(requires=(("activation_function", "gelu_pytorch_tanh",
                           ("gelu_pytorch_tanh", *tr.ONE_OP_ACTIVATIONS)),),
                flags=(("f_a", "multi_query", True, True),))
TRANSIENT = {layout: {"GPTBigCodeModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, False),
                                                       generates=False, **_ASSUMES),
                      "GPTBigCodeForCausalLM": tr.transient(causal_lm_forward, **_ASSUMES)}
             for layout in VARIANTS}
# ... under sdpa attention (transformers' default for GPTBigCode).
TRANSIENT_SDPA = {layout: {"GPTBigCodeModel": tr.transient(lambda t, generate: causal_lm_forward(t, False, False),
                                                            generates=False, attention="sdpa", **_ASSUMES),
                           "GPTBigCodeForCausalLM": tr.transient(causal_lm_forward, attention="sdpa", **_ASSUMES)}
                  for layout in VARIANTS}


FAMILY = Family(
    name="gpt_bigcode",
    reader=reader.READER,
    variants=VARIANTS,
    base="GPTBigCodeModel",
    checkpoints=CHECKPOINTS,
    first_published="2023-01",
    kind="decoder",
    maker="BigCode",
    headlines=(Headline("GPTBigCodeForCausalLM", "starcoder", "StarCoder"),),
    example="santacoder",
    table_symbols=(L, D, H, V, P),
    table_columns={"GPTBigCodeForCausalLM": "GPTBigCodeForCausalLM", "non_embedding": "non-embedding",
                   "embedding_share | percent": "tables / total (%)"},
    rounded=NAMES,
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
    ratios={d_h: (D, H)},  # the calculator's head size: the width over the heads
)
