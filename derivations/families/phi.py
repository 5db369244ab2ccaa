"""Phi-1, Phi-1.5 and Phi-2 (Gunasekar et al. 2023; Li et al. 2023; Microsoft 2023), laid out as transformers'
``PhiModel``.

GPT-J's parallel layer (``derivations.gptj``: one LayerNorm, whose output both the attention and the feed-forward
read, both added to the layer's input) with LLaMA's attention maps (``derivations.llama``: q_proj, k_proj, v_proj,
here all with biases, and an output map ``dense`` with a bias too), a plain feed-forward of two biased matrices (fc1,
fc2) and a head with a bias. Rotary embeddings turn the first ``partial_rotary_factor`` of each head (Phi-2: 32 of
80 coordinates): no parameter. ``qk_layernorm`` adds a LayerNorm of each query and key head (no released Phi sets it).
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..contract import Family, Headline
from ..components import (AttentionLayout, Part, as_kind, attention, feed_forward, group, layer_norm, leaf, linear,
                          score, task_heads, tied_tensor)
from . import llama
from ..readers import phi as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, K, L, V, b, d_h, d_r, g_kv, s
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# One layer (parallel): LayerNorm, then attention and feed-forward side by side, both added to the input
# $$N_\mathrm{layer} = 2D + (D H d_h + H d_h) + 2 (D K d_h + K d_h) + (H d_h D + D) + (2 D F + F + D)$$
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="dense")


def self_attention(qk_layernorm: bool = False) -> Part:
    """PhiAttention (``self_attn``): q, k and v with biases, ``dense`` back to D with a bias; with qk_layernorm a
    LayerNorm (weight and bias) of each query head and of each key head, of d_h coordinates, shared by the heads."""
    maps = attention(D, H, d_h, K, bias=True, layout=_PROJECTIONS, path="self_attn", causal=True,
                     label="grouped-query self-attention with biases" + (", q and k normed" if qk_layernorm else ""))
    if not qk_layernorm:
        return maps
    return replace(maps, children=(*maps.children,
                                   layer_norm("query_norm", d_h, "q_layernorm", label="LayerNorm of each query head"),
                                   layer_norm("key_norm", d_h, "k_layernorm", label="LayerNorm of each key head")))


# $$\mathrm{FFN}(x) = \mathrm{GELU}(x W_1 + b_1) W_2 + b_2$$
mlp = feed_forward(D, F, up="fc1", down="fc2", path="mlp", label="feed-forward (GELU)")


def decoder_layer(qk_layernorm: bool = False) -> Part:
    """PhiDecoderLayer (``layers.<i>``): one LayerNorm, attention and feed-forward in parallel."""
    return group("layer", "decoder layer: one LayerNorm, attention and feed-forward in parallel",
                 layer_norm("norm", D, "input_layernorm",
                            label="LayerNorm, read by the attention and the feed-forward alike"),
                 self_attention(qk_layernorm), mlp, path="layers", symbol=r"N_{\mathrm{layer}}")


final_norm = layer_norm("final_norm", D, "final_layernorm", label="final LayerNorm (final_layernorm)")


def body(layer: Part, name: str, label: str, path: str | None) -> Part:
    return group(name, label, llama.token_embeddings, replace(layer, repeat=L), final_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


def lm_head(tied: bool) -> Part:
    """PhiForCausalLM's head: D to V with a bias; tied, its weight is the embeddings and the bias its own."""
    if not tied:
        return as_kind(linear("lm_head", "language-model head (a weight and a bias of its own)", D, V, True, "lm_head"),
                       "heads")
    return group("lm_head", "language-model head (its weight tied to embed_tokens, its bias its own)",
                 tied_tensor("weight", "weight (the token embeddings, transposed)", "model.embed_tokens", "weight",
                             matrix=D * V),
                 leaf("bias", "bias", V, "bias"), path="lm_head", kind="heads")


def architectures(qk_layernorm: bool = False, tied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """PhiModel, PhiForCausalLM, PhiForSequenceClassification and PhiForTokenClassification (no span head)."""
    layer = decoder_layer(qk_layernorm)
    label = "PhiModel: embeddings, layers, final LayerNorm"

    def model(name: str, what: str, head: Part) -> Part:
        return group(name, what, body(layer, "PhiModel", label, "model"), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    heads = task_heads("Phi", score(D, C, not no_token_bias))
    return {"PhiModel": body(layer, "PhiModel", label, None),
            "PhiForCausalLM": model("PhiForCausalLM", "with the language-model head", lm_head(tied)),
            **{name: model(name, what, head) for name, (what, head) in heads.items()
               if not name.endswith("QuestionAnswering")}}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

layer = decoder_layer()
layer_qk_norm = decoder_layer(True)
attention_block = layer.child("attention")
feed_forward_block = mlp

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.phi.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# microsoft/phi-1, phi-1_5 and phi-2 on the Hugging Face hub [cite: hub-microsoft-phi-2], each the file as transformers'
# PhiForCausalLM reads it (model_type phi, not the first releases' custom code), read as copied into third-party
# files found with the code search: phi-1's under "Model config" in a write-up that prints the model (with its
# auto_map, num_key_value_heads null); phi-1_5's as PhiConfig printed it on loading (transformers 4.38.0: its
# num_key_value_heads null printed as the heads, 32); phi-2's in sdpython's onnx-diagnostic, which links
# huggingface.co/microsoft/phi-2/blob/main/config.json (and two other copies agree field for field).
CHECKPOINTS = ("phi-1", "phi-1_5", "phi-2")

SOURCES = declare(
    Source("hub-microsoft-phi-2", "card", "Microsoft", "Phi-1, Phi-1.5 and Phi-2: config.json and model cards of "
           "microsoft/phi-1, microsoft/phi-1_5 and microsoft/phi-2", "Hugging Face, microsoft", 2023,
           "https://huggingface.co/microsoft/phi-2", read="2026-11-26", short="microsoft/phi-2 on the hub"),
    Source("gunasekar2023", "paper", "Gunasekar et al.", "Textbooks Are All You Need", "arXiv:2306.11644", 2023,
           "https://arxiv.org/abs/2306.11644"),
    Source("li2023phi15", "paper", "Li et al.", "Textbooks Are All You Need II: phi-1.5 technical report",
           "arXiv:2309.05463", 2023, "https://arxiv.org/abs/2309.05463"),
)

_CAUSAL = ARCHITECTURES["PhiForCausalLM"]

# What "1.3B" counts: not the total (1.42 billion, which rounds to 1.4B), but the model without one of its two
# V-by-D tables (1.31 billion: the layers, the final norm and the head, the input embeddings left out; leaving the
# head's weight out instead gives the same but for its bias).
without_input_embeddings = group("without_input_embeddings", "layers, final LayerNorm and head (no input embeddings)",
                                 replace(layer, repeat=L), final_norm, lm_head(False), symbol=r"N_{\text{no-emb}}")

ROUNDED = (
    Rounded("phi_1", 1_300_000_000, "phi-1", Citation("gunasekar2023", "abstract: “phi-1 ... with 1.3B parameters”"),
            "phi-1", (_CAUSAL, without_input_embeddings), precision=10**8, printed="1.3B"),
    Rounded("phi_1_5", 1_300_000_000, "phi-1.5",
            Citation("li2023phi15", "abstract: “phi-1.5, a new 1.3 billion parameter model”"), "phi-1_5",
            (_CAUSAL, without_input_embeddings), precision=10**8, printed="1.3B"),
    Rounded("phi_2", 2_700_000_000, "Phi-2",
            Citation("hub-microsoft-phi-2", "Phi-2's model card: “Phi-2 is a Transformer with 2.7 billion parameters”"),
            "phi-2", (_CAUSAL, without_input_embeddings), precision=10**8, printed="2.7B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_phi.py, statement by statement
# ---------------------------------------------------------------------------------------------

def attention_forward(t: tr.Timeline, x: str, generate: bool) -> tuple[str, tuple[str, str]]:
    """PhiAttention.forward (without qk_layernorm): q, k and v projected (views of the products); the rotary part
    d_r of each q and k head sliced off and rotated (q's, then k's), then ``torch.cat`` with the rest. The slices
    stay bound (``query_rot``, ``query_pass``...) until the function returns, so the products and the rotated parts
    live to the end; with a cache (generate) the concatenated k and v go into it; eager attention; dense."""
    rows = b * s
    q, k, v = tr.linear(t, "q", rows, H * d_h), tr.linear(t, "k", rows, K * d_h), tr.linear(t, "v", rows, K * d_h)
    q_part = tr.rotate(t, "q_part", q, rows * H * d_r)
    k_part = tr.rotate(t, "k_part", k, rows * K * d_r)
    q_cat, k_cat = t.new("q_cat", tr.activation(rows * H * d_h)), t.new("k_cat", tr.activation(rows * K * d_h))
    if generate:
        t.drop(k_cat, v)  # key_states, value_states = past_key_values.update(...): the cache's tensors now
    # The rotated query is a torch.cat, laid out heads by tokens (as Phi-3's).
    context, weights = tr.attend(t, q_cat, k_cat, v, "mask", H, d_h, g_kv, heads_first=1)
    out = tr.linear(t, "dense", rows, D)
    t.drop(*context)
    t.drop(q_cat, *(() if generate else (k_cat, v)), q_part, k_part, q, k)  # the function returns
    return out, weights


def mlp_forward(t: tr.Timeline, x: str) -> str:
    """PhiMLP.forward: ``fc2(activation_fn(fc1(x)))``, the activation gelu_new (NewGELUActivation, in Python)."""
    rows = b * s
    fc = tr.linear(t, "fc1", rows, F)
    tr.gelu_tanh_python(t, "act", rows * F)
    t.drop(fc)
    out = tr.linear(t, "fc2", rows, D)
    t.drop("act")
    return out


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """PhiDecoderLayer.forward on ``x``: one LayerNorm, whose output the attention and then the feed-forward read
    (held until the layer returns), then ``attn_outputs + feed_forward_hidden_states + residual`` (the dropouts are
    the identity at inference); the attention weights stay bound to ``_`` until the layer returns."""
    rows = b * s
    normed = tr.layer_norm(t, "input_layernorm", D)
    attended, weights = attention_forward(t, normed, generate)
    mlp = mlp_forward(t, normed)
    t.new("partial_sum", tr.activation(rows * D))
    t.new(out, tr.activation(rows * D))
    t.drop("partial_sum", mlp, attended, normed, *weights)
    return out


KIN = llama.Kin(layer=layer_forward, norm=tr.layer_norm, rotary_width=d_r)
# The path the program follows: no q/k LayerNorm, gelu_new, plain rotary angles; the rotary part of a head,
# d_r = int(d_h partial_rotary_factor), even.
ASSUMES = {"requires": (("qk_layernorm", False, (False,)), ("hidden_act", "gelu_new", ("gelu_new",)),
                        ("rope_scaling", None, (None,))),
           "derived": (("d_r", "partial_rotary_factor", 0.5, "d_h"),)}
TRANSIENT = llama.transient("Phi", KIN, layouts=VARIANTS, **ASSUMES)


FAMILY = Family(
    name="phi",
    reader=reader.READER,
    variants=VARIANTS,
    base="PhiModel",
    checkpoints=CHECKPOINTS,
    first_published="2023-06",
    kind="decoder",
    maker="Microsoft",
    headlines=(Headline("PhiForCausalLM", "phi-1_5", "Phi-1.5"), Headline("PhiForCausalLM", "phi-2", "Phi-2")),
    example="phi-2",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"PhiForCausalLM": "PhiForCausalLM", "layer": "one layer"},
    rounded=ROUNDED,
    sources=SOURCES,
    transient=TRANSIENT,
)
