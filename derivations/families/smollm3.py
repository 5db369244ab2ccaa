"""SmolLM3 (Hugging Face 2025), laid out as transformers' ``SmolLM3Model``: LLaMA's tensors under another name.

SmolLM3DecoderLayer holds exactly LlamaDecoderLayer's tensors (``derivations.llama``: RMSNorm, grouped-query
attention, RMSNorm, gated SwiGLU feed-forward; biases with ``attention_bias`` and ``mlp_bias``), and the head is tied
to the embeddings by default. What SmolLM3 changes is which layers rotate their queries and keys: every fourth layer
(``no_rope_layers``, 0 where a layer does not) uses no position embedding at all ("NoPE"). A layer without rotary
embeddings holds no tensor more and no tensor less: rotary embeddings have no parameters.
"""

from __future__ import annotations

from dataclasses import replace

from ..claims import Rounded
from ..components import Part, group
from ..contract import Family, Headline
from ..readers import smollm3 as reader
from ..sources import Citation, Source, declare
from ..symbols import D, F, H, K, L, V
from . import llama


def architectures(attention_bias: bool = False, mlp_bias: bool = False, untied: bool = False,
                  no_token_bias: bool = False) -> dict[str, Part]:
    """Every SmolLM3 class of transformers: LLaMA's five, renamed (SmolLM3ForQuestionAnswering keeps its body under
    ``transformer``, as LLaMA's does); the head tied to the embeddings unless ``untied``."""
    return llama.architectures("SmolLM3", attention_bias=attention_bias, mlp_bias=mlp_bias, tied=not untied,
                               no_token_bias=no_token_bias, qa_prefix="transformer")


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
SmolLM3ForCausalLM_tied = ARCHITECTURES["SmolLM3ForCausalLM"]  # tied by default

layer = llama.layer  # SmolLM3DecoderLayer: the same tensors as LlamaDecoderLayer, with or without rotary embeddings
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings; the head is tied)",
                      replace(layer, repeat=L), llama.final_norm, symbol=r"N_{\text{non-emb}}")

SOURCES = declare(
    Source("smollm3-blog", "card", "Hugging Face (Bakouch et al.)", "SmolLM3: smol, multilingual, long-context "
           "reasoner", "Hugging Face blog (huggingface/blog, smollm3.md)", 2025, "https://huggingface.co/blog/smollm3",
           read="2026-11-26", short="Hugging Face 2025"),
    Source("aibase-smollm3", "card", "AIbase", "Hugging Face Releases SmolLM3 (news, 9 July 2025)", "aibase.com", 2025,
           "https://www.aibase.com/news/19552", read="2026-11-26", short="AIbase 2025"),
)

# The blog's “3B model”: a name (3.08 billion, exactly).
NAME = Rounded("name_3b", 3 * 10**9, "SmolLM3-3B", Citation("smollm3-blog", "“3B model trained on 11T tokens”"),
               "smollm3-3b", (SmolLM3ForCausalLM_tied,), precision=10**9, printed="3B")
# The training configuration as AIbase reports it: "SmolLM3 has 3.08B parameters, a depth structure of 36 layers".
REPORTED = Rounded("reported_3_08b", 308 * 10**7, "SmolLM3-3B as AIbase reports its training configuration",
                   Citation("aibase-smollm3", "“3.08B parameters, a depth structure of 36 layers”"), "smollm3-3b",
                   (SmolLM3ForCausalLM_tied,), precision=10**7, printed="3.08B")
ROUNDED = (NAME, REPORTED)  # the page's table


FAMILY = Family(
    name="smollm3",
    reader=reader.READER,
    variants=VARIANTS,
    base="SmolLM3Model",
    # HuggingFaceTB/SmolLM3-3B's config.json: the fields that set the count and the rotary layers, as the projects
    # that load it copy them (ThinTensor's SmolLM3 build tests, a checkpoint fixture "with the typed fields from_dir
    # fills in for SmolLM3-3B"; a C# loader's "authoritative copy of HuggingFaceTB/SmolLM3-3B/config.json's shape"),
    # which agree with the blog's architecture [cite: smollm3-blog] and with SmolLM3Config's defaults. The -Base
    # release has the same sizes.
    checkpoints=("smollm3-3b",),
    first_published="2025-07",
    kind="decoder",
    maker="Hugging Face",
    headlines=(Headline("SmolLM3ForCausalLM", "smollm3-3b", "3B"),),
    example="smollm3-3b",
    table_symbols=(L, D, H, K, F, V),
    table_columns={"SmolLM3ForCausalLM": "SmolLM3ForCausalLM", "SmolLM3ForCausalLM.SmolLM3Model.layer": "all layers"},
    rounded=ROUNDED,
    layout_free=("non_embedding",),
    sources=SOURCES,
)
