"""Granite 3 (IBM 2024), laid out as transformers' ``GraniteModel``: LLaMA's tensors under another name.

GraniteDecoderLayer holds exactly LlamaDecoderLayer's tensors (``derivations.llama``: RMSNorm, grouped-query
attention, RMSNorm, gated SwiGLU feed-forward; biases with ``attention_bias`` and ``mlp_bias``); the released models
tie the head to the embeddings. What Granite adds is four numbers of μP (maximal update parametrization), all
scalars read from the config, none a parameter: the embeddings are multiplied by ``embedding_multiplier``, each
sublayer's output by ``residual_multiplier`` before the residual add, the attention scores by
``attention_multiplier`` (in place of 1/sqrt(d_h)), and the logits divided by ``logits_scaling``.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..components import Part, group
from ..contract import Family, Headline
from ..readers import granite as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, H, K, L, V, b, s
from .. import transient as tr
from . import llama

CLASSES = ("GraniteModel", "GraniteForCausalLM")


def architectures(attention_bias: bool = False, mlp_bias: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every Granite class of transformers: LLaMA's body and causal LM, renamed (Granite has no task classes); the
    head tied to the embeddings unless ``untied``."""
    every = llama.architectures("Granite", attention_bias=attention_bias, mlp_bias=mlp_bias, tied=not untied)
    return {name: every[name] for name in CLASSES}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
GraniteForCausalLM_tied = ARCHITECTURES["GraniteForCausalLM"]  # the released models tie the head
GraniteForCausalLM_untied = VARIANTS["untied"]["GraniteForCausalLM"]

layer = llama.layer  # GraniteDecoderLayer: the same tensors as LlamaDecoderLayer
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings, no head)",
                      replace(layer, repeat=L), llama.final_norm, symbol=r"N_{\text{non-emb}}")

SOURCES = declare(
    Source("hub-ibm-granite", "config", "IBM", "Granite checkpoints: config.json of granite-3.3-2b-instruct and "
           "granite-3.3-8b-instruct, and the model card of granite-3.0-8b-instruct (its “Model Architecture” table)",
           "Hugging Face, ibm-granite", 2024, "https://huggingface.co/ibm-granite", read="2026-11-26",
           short="ibm-granite on the Hugging Face hub"),
)

# Granite 3.0's model card, “Model Architecture”: “# Parameters 2.5B | 8.1B” for the 2B and 8B dense models, whose
# sizes (width 2048 and 4096, 40 layers, 32 heads of 64 and 128, 8 key/value heads, MLP 8192 and 12800, shared
# input and output embeddings) are those of the 3.3 configs bundled here. The vocabulary, which the table does not
# give, is 3.3's: a few rows cannot move the figures. 2.53B rounds to 2.5B; 8.17B does not round to 8.1B, which
# truncates it.
_CARD = Citation("hub-ibm-granite", "granite-3.0-8b-instruct's model card, “# Parameters”")
CARD = (Rounded("card_2b", 25 * 10**8, "Granite 3.0 2B, the card's “# Parameters”", _CARD, "granite-3.3-2b",
                (GraniteForCausalLM_tied,), precision=10**8, printed="2.5B"),
        Rounded("card_8b", 81 * 10**8, "Granite 3.0 8B, the card's “# Parameters”", _CARD, "granite-3.3-8b",
                (GraniteForCausalLM_tied,), precision=10**8, printed="8.1B"))



# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): LLaMA's, and a tensor for each multiplication by a multiplier
# ---------------------------------------------------------------------------------------------

def embed(t: tr.Timeline) -> str:
    """GraniteModel.forward: ``inputs_embeds = self.embed_tokens(input_ids)``, then ``inputs_embeds = inputs_embeds *
    self.embedding_multiplier``, a new tensor (the looked-up one dies as the name is bound again), held by the model's
    forward until it returns."""
    t.new("looked_up", tr.activation(b * s * D))
    t.new("embeddings", tr.activation(b * s * D))
    t.drop("looked_up")
    return "embeddings"


def layer_forward(t: tr.Timeline, x: str, out: str, generate: bool, kin: llama.Kin) -> str:
    """GraniteDecoderLayer.forward on ``x`` (its caller's): LLaMA's, but each residual add is ``residual +
    hidden_states * self.residual_multiplier``: the product a temporary beside the sum. The attention weights (``_``)
    live until the layer returns."""
    stream = tr.activation(b * s * D)
    normed = kin.norm(t, "input_norm", D)
    attended, weights = kin.attention(t, normed, generate)
    t.drop(normed)
    t.new("scaled_attention", stream)
    t.new("residual", stream)
    t.drop(attended, "scaled_attention")
    normed = kin.norm(t, "post_norm", D)
    mlp = kin.mlp(t, normed)
    t.drop(normed)
    t.new("scaled_mlp", stream)
    t.new(out, stream)
    t.drop(mlp, "scaled_mlp", "residual", *weights)
    return out


def logits(t: tr.Timeline, rows) -> str:
    """GraniteForCausalLM.forward: ``logits = self.lm_head(hidden_states)``, then ``logits = logits /
    self.config.logits_scaling``, a new tensor (the first dies as the name is bound again)."""
    t.new("logits", tr.activation(rows * V))
    t.new("scaled_logits", tr.activation(rows * V))
    t.drop("logits")
    return "scaled_logits"


KIN = llama.Kin(embed=embed, layer=layer_forward, logits=logits)
TRANSIENT = llama.transient("Granite", KIN, layouts=VARIANTS)
# ... under sdpa attention (transformers' default). A sliding_window in config.json (not a field of the config class)
# makes transformers' cache keep a window though the attention never slides (the reader's windows, which the cache
# follows); under sdpa the derived masks would follow that window: such a config is refused here.
TRANSIENT_SDPA = llama.transient("Granite", KIN, layouts=VARIANTS, attention="sdpa",
                                 requires=(("sliding_window", None, (None,)),))


FAMILY = Family(
    name="granite",
    reader=reader.READER,
    variants=VARIANTS,
    base="GraniteModel",
    # config.json of ibm-granite/granite-3.3-8b-instruct [cite: hub-ibm-granite], whole, as a listing of Hugging Face
    # configs and parameter shapes prints it (the one that begins with meta-llama/Llama-3.1-8B-Instruct); of
    # ibm-granite/granite-3.3-2b-instruct, the fields its loaders' tests copy (GRANITE_3_JSON, "Granite 3.3 2B style
    # config"; its sizes and vocabulary as other pages print its config.json). The -base releases have the same sizes.
    checkpoints=("granite-3.3-2b", "granite-3.3-8b"),
    first_published="2024-10",
    kind="decoder",
    maker="IBM",
    headlines=(Headline("GraniteForCausalLM", "granite-3.3-2b", "2B"),
               Headline("GraniteForCausalLM", "granite-3.3-8b", "8B")),
    example="granite-3.3-8b",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"GraniteForCausalLM": "GraniteForCausalLM", "GraniteForCausalLM.GraniteModel.layer": "all layers"},
    rounded=CARD,
    layout_free=("non_embedding",),
    sources=SOURCES,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
