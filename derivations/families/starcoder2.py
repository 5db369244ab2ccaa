"""StarCoder2 (Lozhkov et al. 2024), laid out as transformers' ``Starcoder2Model``.

LLaMA's decoder (``derivations.llama``: grouped-query self-attention, rotary positions, a final norm) with GPT-2's
parts in it: LayerNorm with a bias instead of RMSNorm, and a plain feed-forward of two matrices (``c_fc``,
``c_proj``, GELU) instead of the gated one. Every linear map of the layers has a bias unless ``use_bias`` is false;
the head has none. The head is the token embeddings (``tie_word_embeddings``, true by default) unless a config
unties it, as StarCoder2-15B does. Sliding-window attention is a mask: no parameter.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..contract import Family, Headline
from ..components import Part, feed_forward, group, layer_norm, score, task_heads
from . import llama
from ..readers import starcoder2 as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, F, H, K, L, V, b, d_h, s
from .. import transient as tr

# ---------------------------------------------------------------------------------------------
# One decoder layer (pre-norm): LayerNorm, grouped-query attention, residual; LayerNorm, feed-forward, residual
# $$N_\mathrm{layer} = 2D + (D H d_h + 2 D K d_h + H d_h D) + (H d_h + 2 K d_h + D) + 2D + (2 D F + F + D)$$
# ---------------------------------------------------------------------------------------------


# $$\mathrm{FFN}(x) = \mathrm{GELU}(x W_\mathrm{fc} + b_\mathrm{fc}) W_\mathrm{proj} + b_\mathrm{proj}$$
def plain_feed_forward(bias: bool = True) -> Part:
    """Starcoder2MLP (``mlp``): c_fc D to F, c_proj F to D, biases with ``use_bias``."""
    return feed_forward(D, F, bias=bias, up="c_fc", down="c_proj", path="mlp",
                        label="feed-forward (GELU)" + ("" if bias else " without biases"))


def decoder_layer(bias: bool = True) -> Part:
    """Starcoder2DecoderLayer (``layers.<i>``): LLaMA's order, its norms LayerNorms (weight and bias, whatever
    ``use_bias`` says: nn.LayerNorm's own bias)."""
    return group("layer", "decoder layer" + ("" if bias else ", linear maps without biases"),
                 layer_norm("attention_norm", D, "input_layernorm", label="LayerNorm before attention"),
                 llama.self_attention(bias),
                 layer_norm("feed_forward_norm", D, "post_attention_layernorm", label="LayerNorm before the feed-forward"),
                 plain_feed_forward(bias),
                 path="layers", symbol=r"N_{\mathrm{layer}}")


final_norm = layer_norm("final_norm", D, "norm", label="final LayerNorm (after the last layer)")


def body(layer: Part, name: str, label: str, path: str | None) -> Part:
    """Starcoder2Model: the token embeddings, L layers with weights of their own, the final LayerNorm."""
    return group(name, label, llama.token_embeddings, replace(layer, repeat=L), final_norm, path=path,
                 symbol=rf"N_{{\mathrm{{{name}}}}}")


def architectures(no_bias: bool = False, untied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """Starcoder2Model, Starcoder2ForCausalLM, Starcoder2ForSequenceClassification and
    Starcoder2ForTokenClassification (transformers defines no span head for StarCoder2)."""
    layer = decoder_layer(not no_bias)
    label = "Starcoder2Model: embeddings, layers, final LayerNorm"

    def model(name: str, what: str, head: Part) -> Part:
        return group(name, what, body(layer, "Starcoder2Model", label, "model"), head, symbol=rf"N_{{\mathrm{{{name}}}}}")

    heads = task_heads("Starcoder2", score(D, C, not no_token_bias))
    return {
        "Starcoder2Model": body(layer, "Starcoder2Model", label, None),
        "Starcoder2ForCausalLM": model("Starcoder2ForCausalLM", "with the language-model head", llama.lm_head(not untied)),
        **{name: model(name, what, head) for name, (what, head) in heads.items() if not name.endswith("QuestionAnswering")},
    }


ARCHITECTURES = architectures()

# Every layout a config.json can ask for (readers.starcoder2.READER.layout): linear maps without biases, an untied head,
# a token classifier without bias.
VARIANTS = reader.READER.layout.variants(architectures)

Starcoder2ForCausalLM_untied = VARIANTS["untied"]["Starcoder2ForCausalLM"]

layer = decoder_layer()
attention_block = layer.child("attention")
feed_forward_block = layer.child("feed_forward")

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.starcoder2.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# bigcode/starcoder2-3b, -7b and -15b on the Hugging Face hub [cite: hub-bigcode-starcoder2]. Read here as copies:
# NVIDIA/TensorRT-LLM's tests/unittest/_torch/modeling/test_modeling_starcoder2.py (f00d21a) lists the three
# configs "based on HuggingFace configs" (the fields they share, then each size's: hidden_size,
# initializer_range, intermediate_size, num_attention_heads, num_key_value_heads, rope_theta; the depth, which the
# test cuts to 6, is 30, 32 and 40, as its comment says); neither the 3B's nor the 7B's file sets
# tie_word_embeddings (Starcoder2Config's default, true: their hub pages' 3.03B and 7.17B are the tied counts), and
# the 15B's sets it false (a copy of starcoder2-15b/config.json in a note on counting parameters, found with the
# code search: "tie_word_embeddings": false, 40 layers; its 16B on the hub is the untied count).
CHECKPOINTS = ("starcoder2-3b", "starcoder2-7b", "starcoder2-15b")

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled
# ---------------------------------------------------------------------------------------------

SOURCES = declare(
    Source("lozhkov2024", "paper", "Lozhkov et al.", "StarCoder 2 and The Stack v2: The Next Generation",
           "arXiv:2402.19173", 2024, "https://arxiv.org/abs/2402.19173"),
    Source("hub-bigcode-starcoder2", "config", "BigCode", "StarCoder2 checkpoints: config.json and model cards of "
           "starcoder2-3b, starcoder2-7b and starcoder2-15b", "Hugging Face, bigcode", 2024,
           "https://huggingface.co/bigcode", read="2026-11-26", short="bigcode on the Hugging Face hub"),
)

_PAPER = Citation("lozhkov2024", "abstract: “StarCoder2 models with 3B, 7B, and 15B parameters”")
_CAUSAL = ARCHITECTURES["Starcoder2ForCausalLM"]

# The names: 3.03B and 7.17B round to 3B and 7B; the 15B model holds 15.96 billion (its head untied), which rounds
# to 16B: "15B" truncates it.
ROUNDED = (
    Rounded("name_3b", 3 * 10**9, "StarCoder2-3B", _PAPER, "starcoder2-3b", (_CAUSAL,), precision=10**9, printed="3B"),
    Rounded("name_7b", 7 * 10**9, "StarCoder2-7B", _PAPER, "starcoder2-7b", (_CAUSAL,), precision=10**9, printed="7B"),
    Rounded("name_15b", 15 * 10**9, "StarCoder2-15B", _PAPER, "starcoder2-15b", (Starcoder2ForCausalLM_untied,),
            precision=10**9, printed="15B"),
)


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_starcoder2.py, Mistral's (LLaMA's with the
# sliding-window mask) but for its LayerNorms and its plain feed-forward
# ---------------------------------------------------------------------------------------------

def mlp_forward(t: tr.Timeline, x: str) -> str:
    """Starcoder2MLP.forward: ``c_proj(act(c_fc(x)))`` (the dropout is the identity at inference); the activation,
    torch's GELU (tanh or exact), one tensor."""
    rows = b * s
    fc = tr.linear(t, "fc", rows, F)
    t.new("act", tr.activation(rows * F))
    t.drop(fc)
    out = tr.linear(t, "proj", rows, D)
    t.drop("act")
    return out


KIN = llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t, sliding),), mlp=mlp_forward, norm=tr.layer_norm)
# The path the program follows: an activation torch computes in one tensor (ACT2FN's gelu_pytorch_tanh, the default,
# or gelu), plain rotary angles.
ASSUMES = {"requires": (("hidden_act", "gelu_pytorch_tanh", ("gelu_pytorch_tanh", "gelu")),)}
TRANSIENT = llama.transient("Starcoder2", KIN, layouts=VARIANTS, windowed=True, **ASSUMES)


FAMILY = Family(
    name="starcoder2",
    reader=reader.READER,
    variants=VARIANTS,
    base="Starcoder2Model",
    checkpoints=CHECKPOINTS,
    first_published="2024-02",
    kind="decoder",
    maker="BigCode",
    headlines=(Headline("Starcoder2ForCausalLM", "starcoder2-3b", "3B"),
               Headline("Starcoder2ForCausalLM", "starcoder2-15b", "15B")),
    example="starcoder2-3b",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"Starcoder2ForCausalLM": "Starcoder2ForCausalLM",
                   "Starcoder2ForCausalLM.Starcoder2Model.layer": "all layers"},
    rounded=ROUNDED,
    sources=SOURCES,
    transient=TRANSIENT,
)
