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
from ..symbols import D, F, H, K, L, V
from . import llama

CLASSES = ("GraniteModel", "GraniteForCausalLM")


def architectures(attention_bias: bool = False, mlp_bias: bool = False, tied: bool = False) -> dict[str, Part]:
    """Every Granite class of transformers: LLaMA's body and causal LM, renamed (Granite has no task classes)."""
    every = llama.architectures("Granite", attention_bias=attention_bias, mlp_bias=mlp_bias, tied=tied)
    return {name: every[name] for name in CLASSES}


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
GraniteForCausalLM_tied = VARIANTS["tied"]["GraniteForCausalLM"]

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
)
