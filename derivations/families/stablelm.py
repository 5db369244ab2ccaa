"""StableLM (StableLM-3B-4E1T, Stable LM 2), laid out as transformers' ``StableLmModel``.

LLaMA's decoder (``derivations.llama``: grouped-query attention, a gated SwiGLU feed-forward without biases, a head
of its own) with GPT-NeoX's habits (``derivations.gpt_neox``): LayerNorm with a bias instead of RMSNorm, rotary
embeddings on the first quarter of each head (``partial_rotary_factor``: no parameter), and, with
``use_parallel_residual``, a parallel layer whose feed-forward reads the attention's norm, so that the layer has one
norm, not two. ``use_qkv_bias`` gives q, k and v a bias (Stable LM 2), the output map never has one; ``qk_layernorm``
normalizes every query and key head with a LayerNorm of its own (no bias: H of them for the queries, K for the keys).
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Miscount, Rounded
from ..contract import Family, Headline
from ..components import AttentionLayout, Part, attention, group, layer_norm, leaf, score, task_heads
from . import llama
from ..readers import stablelm as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, K, L, V, b, d_h, d_r, s
from .. import transient as tr
from . import phi

# ---------------------------------------------------------------------------------------------
# One decoder layer: LayerNorm, attention, (LayerNorm,) gated feed-forward
# $$N_\mathrm{layer} = 2D + (D H d_h + 2 D K d_h + H d_h D) + 2D + 3DF$$  sequential, without q/k/v biases
# ---------------------------------------------------------------------------------------------

_PROJECTIONS = AttentionLayout(query="q_proj", key="k_proj", value="v_proj", output="o_proj")


def self_attention(qkv_bias: bool = False, qk_layernorm: bool = False) -> Part:
    """StableLmAttention (``self_attn``): q, k and v (biases with use_qkv_bias), o_proj without one; with
    qk_layernorm, StableLmLayerNormPerHead for the queries (H LayerNorms of d_h, no bias) and the keys (K of them)."""
    maps = attention(D, H, d_h, K, bias=qkv_bias, output_bias=False, layout=_PROJECTIONS, path="self_attn",
                     causal=True, label="grouped-query self-attention" + (", q, k and v biased" if qkv_bias else "")
                     + (", each q and k head normed" if qk_layernorm else ""))
    if not qk_layernorm:
        return maps
    return replace(maps, children=(*maps.children,
                                   leaf("query_norms", "a LayerNorm (a scale, no bias) of each query head", H * d_h,
                                        "q_layernorm", kind="norms"),
                                   leaf("key_norms", "a LayerNorm (a scale, no bias) of each key head", K * d_h,
                                        "k_layernorm", kind="norms")))


def decoder_layer(qkv_bias: bool = False, qk_layernorm: bool = False, parallel: bool = False) -> Part:
    """StableLmDecoderLayer (``layers.<i>``): with use_parallel_residual, no post_attention_layernorm."""
    norms = [layer_norm("attention_norm", D, "input_layernorm",
                        label="LayerNorm before attention" + (" (and the feed-forward)" if parallel else ""))]
    second = [] if parallel else [layer_norm("feed_forward_norm", D, "post_attention_layernorm",
                                             label="LayerNorm before the feed-forward")]
    return group("layer", "decoder layer" + (", parallel: one LayerNorm" if parallel else ""),
                 *norms, self_attention(qkv_bias, qk_layernorm), *second, llama.gated_feed_forward(),
                 path="layers", symbol=r"N_{\mathrm{layer}}")


final_norm = layer_norm("final_norm", D, "norm", label="final LayerNorm (after the last layer)")


def body(layer: Part, name: str, label: str, path: str | None) -> Part:
    return group(name, label, llama.token_embeddings, replace(layer, repeat=L), final_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


def architectures(qkv_bias: bool = False, qk_layernorm: bool = False, parallel: bool = False, tied: bool = False,
                  no_token_bias: bool = False) -> dict[str, Part]:
    """StableLmModel, StableLmForCausalLM, StableLmForSequenceClassification and StableLmForTokenClassification."""
    layer = decoder_layer(qkv_bias, qk_layernorm, parallel)
    label = "StableLmModel: embeddings, layers, final LayerNorm"

    def model(name: str, what: str, head: Part) -> Part:
        return group(name, what, body(layer, "StableLmModel", label, "model"), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    heads = task_heads("StableLm", score(D, C, not no_token_bias))
    return {"StableLmModel": body(layer, "StableLmModel", label, None),
            "StableLmForCausalLM": model("StableLmForCausalLM", "with the language-model head", llama.lm_head(tied)),
            **{name: model(name, what, head) for name, (what, head) in heads.items()
               if not name.endswith("QuestionAnswering")}}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

StableLmForCausalLM_qkv_bias = VARIANTS["qkv_bias"]["StableLmForCausalLM"]
layer = decoder_layer()
layer_qkv_bias = decoder_layer(qkv_bias=True)
layer_parallel = decoder_layer(parallel=True)
attention_block = layer.child("attention")

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.stablelm.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# stabilityai/stablelm-3b-4e1t and stabilityai/stablelm-2-1_6b [cite: hub-stabilityai], in the format transformers'
# StableLmForCausalLM reads (model_type stablelm). Reconstructions, not copies: the files themselves were not found
# here. stablelm-3b-4e1t's sizes are StableLmConfig's defaults (its docstring names that checkpoint) and the card's
# table (hidden size 2560, 32 layers, 32 heads, 4096 positions); the count they give is the card's 2,795,443,200 to
# the parameter (tests/test_stablelm.py). stablelm-2-1_6b's are the card's table (2048, 24 layers, 32 heads, 4096)
# with the vocabulary (100,352), feed-forward width (5,632), q/k/v biases and rotary quarter that a third-party
# conversion test (tensorrt_model_connect's StableLM contract tests, found with the code search) lists for it.
CHECKPOINTS = ("stablelm-3b-4e1t", "stablelm-2-1_6b")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("hub-stabilityai", "card", "Stability AI", "StableLM-3B-4E1T and Stable LM 2 1.6B: model cards",
           "Hugging Face, stabilityai", 2023, "https://huggingface.co/stabilityai", read="2026-11-26",
           short="stabilityai on the hub"),
)

_CARD_3B = Citation("hub-stabilityai", "StableLM-3B-4E1T's card, Model Architecture: “Parameters 2,795,443,200”")
_CARD_2 = Citation("hub-stabilityai", "Stable LM 2 1.6B's card, Model Architecture: “Parameters 1,644,417,024”")

# Stable LM 2 1.6B's card is 98,304 = 2 D L short of the checkpoint: as many parameters as one LayerNorm a layer
# (weight and bias), or as the biases of both, or as the query and key biases; which one its count left out, it
# does not say. (StableLM-3B-4E1T's card, counted the same way, is exact: it has no q/k/v biases.)
stablelm_2_card = Miscount(
    "stablelm_2_card", 1_644_417_024, "Stable LM 2 1.6B’s parameters, as its card's table gives them", _CARD_2,
    "stablelm-2-1_6b", StableLmForCausalLM_qkv_bias,
    terms=(leaf("per_layer", "2 D a layer: one LayerNorm's weight and bias (or both LayerNorms' biases, or the "
                "query and key biases), which the card's count leaves out", 2 * D * L),),
    model="Stable LM 2 1.6B (<code>stablelm-2-1_6b</code>)",
    cause="the card's count is 2 D short in every layer, as many parameters as one LayerNorm (or the query and key "
          "biases): the table leaves something of each layer out",
)

NAMES = (
    Rounded("name_3b", 3 * 10**9, "StableLM-3B-4E1T, “a 3 billion parameter” model",
            Citation("hub-stabilityai", "StableLM-3B-4E1T's card: “a 3 billion parameter decoder-only language model”"),
            "stablelm-3b-4e1t", (ARCHITECTURES["StableLmForCausalLM"],), precision=10**9, printed="3B"),
    Rounded("name_1_6b", 1_600_000_000, "Stable LM 2 1.6B",
            Citation("hub-stabilityai", "Stable LM 2 1.6B's card: “a 1.6 billion parameter decoder-only language "
                                        "model”"),
            "stablelm-2-1_6b", (StableLmForCausalLM_qkv_bias,), precision=10**8, printed="1.6B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_stablelm.py, statement by statement
# ---------------------------------------------------------------------------------------------

def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """StableLmDecoderLayer.forward, sequential: the attention on ``input_layernorm(x)`` (bound to ``hidden_states``
    until the layer's last sum rebinds it), ``residual = residual + self_attn_output`` (the attention's output stays
    bound), the gated MLP on ``post_attention_layernorm(residual)`` (an argument, dying when it returns), then
    ``residual + mlp_output``. Its attention is Phi's (the same slices, bound to the end)."""
    rows = b * s
    normed = tr.layer_norm(t, "input_layernorm", D)
    attended, weights = phi.attention_forward(t, normed, generate)
    t.new("residual", tr.activation(rows * D))
    post = tr.layer_norm(t, "post_attention_layernorm", D)
    mlp = llama.gated_mlp_forward(t, post)
    t.drop(post)
    t.new(out, tr.activation(rows * D))
    t.drop(normed)  # hidden_states bound again
    t.drop("residual", mlp, attended, *weights)
    return out


def parallel_layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """StableLmDecoderLayer.forward with use_parallel_residual: the attention and then the gated MLP on
    ``input_layernorm(x)``, then ``residual + self_attn_output + mlp_output``."""
    rows = b * s
    normed = tr.layer_norm(t, "input_layernorm", D)
    attended, weights = phi.attention_forward(t, normed, generate)
    mlp = llama.gated_mlp_forward(t, normed)
    t.new("partial_sum", tr.activation(rows * D))
    t.new(out, tr.activation(rows * D))
    t.drop("partial_sum", mlp, attended, normed, *weights)
    return out


# The path the program follows: no per-head q/k LayerNorm, SiLU (one tensor), plain rotary angles; the rotary part
# of a head, d_r = int(d_h partial_rotary_factor), even.
ASSUMES = {"requires": (("qk_layernorm", False, (False,)), ("hidden_act", "silu", ("silu",)),
                        ("rope_scaling", None, (None,))),
           "derived": (("d_r", "partial_rotary_factor", 0.25, "d_h"),)}
TRANSIENT = {key: llama.transient("StableLm", llama.Kin(layer=parallel_layer_forward if "parallel" in key.split("+")
                                                        else layer_forward, norm=tr.layer_norm, rotary_width=d_r),
                                  layouts={key: None}, **ASSUMES)[key]
             for key in VARIANTS}


FAMILY = Family(
    name="stablelm",
    reader=reader.READER,
    variants=VARIANTS,
    base="StableLmModel",
    checkpoints=CHECKPOINTS,
    first_published="2023-09",
    kind="decoder",
    maker="Stability AI",
    headlines=(Headline("StableLmForCausalLM", "stablelm-3b-4e1t", "3B"),
               Headline("StableLmForCausalLM", "stablelm-2-1_6b", "2 1.6B")),
    example="stablelm-3b-4e1t",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"StableLmForCausalLM": "StableLmForCausalLM", "StableLmForCausalLM.StableLmModel.layer": "all layers"},
    # The calculator derives the head size from the width and the heads, as StableLmAttention does.
    ratios={d_h: (D, H)},
    miscounts=(stablelm_2_card,),
    rounded=NAMES,
    sources=SOURCES,
    transient=TRANSIENT,
)
