"""Mistral 7B (Jiang et al. 2023), laid out as transformers' ``MistralModel``: LLaMA's blocks.

The same decoder layer as LLaMA (``derivations.llama``): RMSNorm, grouped-query self-attention,
RMSNorm, gated SwiGLU feed-forward; a final RMSNorm and an untied head. What Mistral adds is sliding
window attention: each position attends to the ``sliding_window`` positions before it. The window is
a mask, not a tensor: it adds no parameter. MistralAttention and MistralMLP have no bias options.
"""

from __future__ import annotations

from ..claims import Rounded
from ..contract import Family, Headline
from . import llama
from .. import transient as tr
from .llama import architectures as _architectures
from ..readers import mistral as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, V


# MistralForQuestionAnswering keeps the body under ``model`` (LlamaForQuestionAnswering: ``transformer``).
ARCHITECTURES = _architectures("Mistral", qa_prefix="model")

# Every layout a config.json can ask for (readers.mistral: llama.TIED_LAYOUT): a tied head, a token classifier
# without bias.
VARIANTS = reader.READER.layout.variants(lambda **layout: _architectures("Mistral", qa_prefix="model", **layout))

layer = llama.layer  # the same tensors as LlamaDecoderLayer


# Mistral AI's announcement: "Mistral 7B is a 7.3B parameter model". The exact count is 7.24 billion.
_ANNOUNCEMENT = Citation("mistral-7b-announcement", "“a 7.3B parameter model”")
announced = Rounded("announced", 7_300_000_000, "Mistral 7B as announced", _ANNOUNCEMENT, "mistral-7b",
                    (ARCHITECTURES["MistralForCausalLM"],), precision=10**8, printed="7.3B")
name = Rounded("name", 7 * 10**9, "Mistral 7B, the name", _ANNOUNCEMENT, "mistral-7b",
               (ARCHITECTURES["MistralForCausalLM"],), precision=10**9, printed="7B")
# The page's table of them.
ROUNDED = (announced, name)


# The forward at inference (derivations.transient): LLaMA's, but for its mask, a sliding-window one where
# sliding_window is set (MistralModel.forward picks create_sliding_window_causal_mask then).
KIN = llama.Kin(masks=lambda t, sliding: (tr.causal_mask(t, sliding),))
TRANSIENT = llama.transient("Mistral", KIN, layouts=VARIANTS, windowed=True)
# ... under sdpa attention (transformers' default): a mask only where the window is no longer than the tokens.
TRANSIENT_SDPA = llama.transient("Mistral", KIN, layouts=VARIANTS, windowed=True, attention="sdpa")


FAMILY = Family(
    name="mistral",
    reader=reader.READER,
    variants=VARIANTS,
    base="MistralModel",
    # mistralai/Mistral-7B-v0.1's config.json (sizes as in the paper's Table 1 and Mistral's params.json:
    # dim 4096, n_layers 32, head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, window 4096, vocab 32000).
    checkpoints=("mistral-7b",),
    first_published="2023-10",
    kind="decoder",
    maker="Mistral AI",
    headlines=(Headline("MistralForCausalLM", "mistral-7b", "7B"),),
    example="mistral-7b",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"MistralForCausalLM": "MistralForCausalLM", "layer": "one layer"},
    rounded=ROUNDED,
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
