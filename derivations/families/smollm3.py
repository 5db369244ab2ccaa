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
from ..symbols import D, F, H, K, L, V, b_2, c_bt, g_1, g_kv, r_1, r_2
from .. import transient as tr
from . import llama, qwen2


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


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): LLaMA's, with Qwen2's masks, where a layer may not rotate
# ---------------------------------------------------------------------------------------------
#
# SmolLM3Model.forward computes the rotary cosine and sine once, whether or not a layer rotates; a layer without
# rotary embeddings (no_rope_layers 0) hands attention its projections as they are: head-split views of the products,
# which torch.matmul cannot fold into one batch of b H matrices (``expand(...).reshape``) where the batch holds more
# than one sequence, so it copies them (and a single key/value head that repeat_kv expands to H heads, a view of
# stride 0, likewise). A rotated query or key keeps the projection's layout (the rotation is elementwise): the same
# copies, which LLaMA's forward makes too, where its other moments hold more.

def folded(generate: bool) -> tuple:
    """Where eager attention's matmuls copy an operand (derivations.transient.eager_attention): the query where more
    than one sequence, head and token (c_bt); the keys and values where K = H and the same (not from generate's cache,
    which concatenates them into tensors of their own), or where one key/value head is expanded to H > 1 heads (g_1)
    and the batch holds more than one sequence (b_2); repeated heads (g_kv) are a copy of their own already."""
    own = 0 if generate else (1 - g_kv - g_1) * c_bt
    return c_bt, own + g_1 * b_2


def attention_forward(t: tr.Timeline, x: str, generate: bool):
    """SmolLM3Attention.forward: LlamaAttention's, rotating where the layer does (``if self.use_rope``), and eager
    matmul's copies counted."""
    return llama.attention_forward(t, x, generate, folded=folded(generate))


# Both masks where some layer slides (SmolLM3Model.forward builds the sliding one where layer_types has one, as
# Qwen2Model.forward does); the first layer rotates where r_1, some later one where r_2 (the reader's no_rope_layers).
KIN = llama.Kin(masks=qwen2.masks, attention=attention_forward, rotated=(r_1, r_2))
# SmolLM3MLP calls ACT2FN[hidden_act]: the program follows an activation that is one operation of torch.
_ACTIVATION = (("hidden_act", "silu", tr.ONE_OP_ACTIVATIONS),)
TRANSIENT = llama.transient("SmolLM3", KIN, layouts=VARIANTS, windowed=True, requires=_ACTIVATION)
# ... under sdpa attention (transformers' default): the causal mask skipped, the sliding one where the tokens reach it;
# sdpa's kernel takes the projections' views as they are.
TRANSIENT_SDPA = llama.transient("SmolLM3", KIN, layouts=VARIANTS, windowed=True, attention="sdpa",
                                 requires=_ACTIVATION)


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
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
