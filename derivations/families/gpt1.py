"""GPT-1 (Radford et al. 2018), composed from the components, laid out as transformers' ``OpenAIGPTModel``.

Token and learned position embeddings, then post-LN blocks (attention, residual, LayerNorm;
feed-forward, residual, LayerNorm) with no final LayerNorm, and a language-model head tied to the
token embedding. The feed-forward is four times the width in transformers' code (``MLP(4 * n_embd)``),
not a config field, so every count here is a polynomial in D, L, V and P alone.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from ..claims import Rounded
from ..components import (Part, as_kind, feed_forward, fused_attention, group, layer_norm, linear, score, tied_tensor,
                         token_and_position_embeddings)
from .gpt2 import multiple_choice_head
from ..readers import gpt1 as reader
from ..sources import Citation
from ..symbols import C, D, H, L, P, V, b, c_b, c_t, s
from .. import transient as tr


embeddings = token_and_position_embeddings(V, P, D, tokens="tokens_embed", positions="positions_embed")

# One block (post-LN, as in the original Transformer's encoder):
# $$N_\mathrm{block} = (3D^2 + 3D + D^2 + D) + 2D + (8D^2 + 5D) + 2D = 12D^2 + 13D$$
layer = group(
    "block", "block",
    fused_attention(D, qkv="c_attn", output="c_proj", path="attn", label="causal self-attention", causal=True),
    layer_norm("attention_norm", D, "ln_1", label="LayerNorm after attention"),
    feed_forward(D, 4 * D, up="c_fc", down="c_proj", path="mlp", label="feed-forward (4D wide)"),
    layer_norm("feed_forward_norm", D, "ln_2", label="LayerNorm after the feed-forward"),
    path="h", symbol=r"N_{\mathrm{block}}",
)


def transformer(name: str = "transformer", label: str = "OpenAIGPTModel: embeddings and blocks",
                path: str | None = "transformer") -> Part:
    # L blocks with weights of their own, and no LayerNorm after the last one.
    return group(name, label, embeddings, replace(layer, repeat=L), path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")


lm_head = as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)",
                              "transformer.tokens_embed", "lm_head", matrix=D * V), "heads")
lm_head_untied = as_kind(linear("lm_head", "language-model head (untied: a weight of its own, no bias)", D, V,
                                False, "lm_head"), "heads")


def architectures(untied: bool = False, summary: str = "") -> dict[str, Part]:
    """Every GPT-1 class of transformers, named as transformers names it."""
    head = lm_head_untied if untied else lm_head

    def model(name: str, label: str, *heads: Part) -> Part:
        return group(name, label, transformer(), *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "OpenAIGPTModel": transformer("OpenAIGPTModel", "OpenAIGPTModel: embeddings and blocks", path=None),
        "OpenAIGPTLMHeadModel": model("OpenAIGPTLMHeadModel", "GPT-1 with its language-model head", head),
        "OpenAIGPTDoubleHeadsModel": model("OpenAIGPTDoubleHeadsModel",
                                           "GPT-1 with the language-model and multiple-choice heads", head,
                                           *multiple_choice_head(summary)),
        "OpenAIGPTForSequenceClassification": model(
            "OpenAIGPTForSequenceClassification", "GPT-1 with a sequence classifier (last token, no bias)",
            score(D, C)),
    }


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.gpt1.READER.layout): an untied head, and the multiple-choice
# summary's shape (as GPT-2's).
VARIANTS = reader.READER.layout.variants(architectures)


# The GPT-2 paper sizes its smallest model against GPT-1; for GPT-1 itself the figure holds.
_GPT2_PAPER = Citation("radford2019", "Table 2 and section 3")
original_117m = Rounded("original_117m", 117_000_000,
                        "117M, the smallest model, ‘equivalent to the original GPT’", _GPT2_PAPER, "openai-gpt",
                        (ARCHITECTURES["OpenAIGPTModel"],), printed="117M")


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_openai.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline) -> str:
    """Attention.forward: c_attn's one product (``x``, a local until the function returns), split into heads as
    views; ``_attn``: ``matmul(q, k)`` (torch.matmul folding batch and heads of the views by a copy, c_b), divided
    by the square root of the head size, ``w * b + -1e4 * (1 - b)`` with the causal buffer b (its T x T corner:
    ``1 - b`` and ``-1e4 * (1 - b)`` one row for the batch), plus the extended mask, softmax in the activation
    dtype, ``matmul(w, v)``; merge_heads (a copy unless contiguous, c_t); c_proj."""
    rows, heads = b * s, b * H * s  # the heads split the width: H d_h = D
    x = tr.linear(t, "c_attn", rows, 3 * D)
    t.new("query_folded", tr.activation(c_b * rows * D))
    t.new("keys_folded", tr.activation(c_b * rows * D))
    t.new("w0", tr.activation(heads * s))
    t.drop("query_folded", "keys_folded")
    t.new("w1", tr.activation(heads * s))  # w / sqrt(d)
    t.drop("w0")
    t.new("w_times_b", tr.activation(heads * s))
    t.new("one_minus_b", tr.activation(s * s))
    t.new("penalty", tr.activation(s * s))
    t.drop("one_minus_b")
    t.new("w2", tr.activation(heads * s))
    t.drop("w_times_b", "penalty", "w1")
    t.new("w3", tr.activation(heads * s))  # + attention_mask
    t.drop("w2")
    t.new("w4", tr.activation(heads * s))  # softmax
    t.drop("w3")
    t.new("values_folded", tr.activation(c_b * rows * D))
    t.new("context", tr.activation(rows * D))
    t.drop("values_folded", "w4")  # _attn returns
    t.split("context", **{"context.copied": c_t, "context.kept": 1 - c_t})
    t.new("merged", tr.activation(c_t * rows * D))  # permute(0, 2, 1, 3).contiguous()
    t.drop("context.copied")
    out = tr.linear(t, "c_proj", rows, D)
    t.drop("merged", "context.kept", x)
    return out


def block_forward(t: tr.Timeline, out: str) -> str:
    """Block.forward (post-LN): ``n = ln_1(x + a)``, ``m = mlp(n)`` (c_fc, gelu_new in Python, c_proj),
    ``h = ln_2(n + m)``; each sum a temporary."""
    rows, stream = b * s, tr.activation(b * s * D)
    attended = attention_forward(t)
    t.new("sum1", stream)
    n = tr.layer_norm(t, "n", D)
    t.drop("sum1")
    fc = tr.linear(t, "c_fc", rows, 4 * D)
    act = tr.gelu_tanh_python(t, "gelu", rows * 4 * D)
    t.drop(fc)
    m = tr.linear(t, "m", rows, D)
    t.drop(act)
    t.new("sum2", stream)
    tr.layer_norm(t, out, D)
    t.drop("sum2", n, m, attended)
    return out


def lm_forward(t: tr.Timeline, generate: bool, lm_head: bool = True) -> None:
    """OpenAIGPTLMHeadModel.forward (OpenAIGPTModel.forward without the head): the mask extended (``.to(dtype)``,
    ``(1.0 - mask) * min``, one row of T a sequence), token and position embeddings (held until the model's forward
    returns), their sum and ``+ 0`` (no token types), the blocks (each input dying when the next is bound), then
    the logits of every token, or of the last one (logits_to_keep=1; GPT-1 keeps no cache)."""
    stream = tr.activation(b * s * D)
    t.new("mask_cast", tr.activation(b * s))
    t.new("mask_inverted", tr.activation(b * s))
    t.new("mask", tr.activation(b * s))
    t.drop("mask_inverted", "mask_cast")
    t.new("inputs_embeds", stream)
    t.new("position_embeds", tr.activation(s * D))
    t.new("sum", stream)
    t.new("hidden", stream)  # + token_type_embeds, which is 0
    t.drop("sum")
    block_forward(t, "output")
    t.drop("hidden")
    t.drop("inputs_embeds", "position_embeds", "mask")  # the model's forward returns its output
    if lm_head:
        t.new("logits", tr.activation(b * (1 if generate else s) * V))


# The paths the program follows: gelu_new in Python (afn "gelu"), scaled attention.
_REQUIRES = (("afn", "gelu", ("gelu",)),)
TRANSIENT = {layout: {"OpenAIGPTModel": tr.transient(lambda t, generate: lm_forward(t, False, False), generates=False,
                                                      requires=_REQUIRES),
                      "OpenAIGPTLMHeadModel": tr.transient(lm_forward, requires=_REQUIRES)}
             for layout in VARIANTS}


FAMILY = Family(
    name="gpt1",
    reader=reader.READER,
    variants=VARIANTS,
    base="OpenAIGPTModel",
    # The one checkpoint: openai-gpt on the Hugging Face hub (openai-community/openai-gpt).
    checkpoints=("openai-gpt",),
    first_published="2018-06",
    kind="decoder",
    maker="OpenAI",
    headlines=(Headline("OpenAIGPTLMHeadModel", "openai-gpt"),),
    example="openai-gpt",
    table_symbols=(V, P, L, D, H),
    table_columns={"OpenAIGPTModel": "OpenAIGPTModel", "OpenAIGPTDoubleHeadsModel": "DoubleHeadsModel"},
    rounded=(original_117m,),
    transient=TRANSIENT,
    # OpenAIGPTPreTrainedModel does not declare sdpa: transformers builds it with its own attention, and refuses
    # attn_implementation="sdpa".
    no_sdpa="transformers runs OpenAI GPT with its own eager attention only (no sdpa)",
)
