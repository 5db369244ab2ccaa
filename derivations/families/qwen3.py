"""Qwen3 (Yang et al. 2025), laid out as transformers' ``Qwen3Model``.

LLaMA's decoder (``derivations.llama``) with two changes in the tensors: no bias on q, k and v (Qwen2 had
them; ``attention_bias``, false in every release, would put one on all four projections), and an RMSNorm
on each head's queries and on each head's keys (``q_norm``, ``k_norm``), of the head size ``d_h``: one
scale shared by all heads, not one per head. The head size is a field of its own (``head_dim``, 128 in
every release), not the width over the heads. The small sizes tie the head to the embeddings.
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from functools import partial

from . import llama, qwen2
from ..claims import Rounded
from ..components import Part, group, rms_norm
from ..readers import qwen3 as reader
from ..sources import Citation
from ..symbols import D, F, H, K, L, V, d_h


# ---------------------------------------------------------------------------------------------
# Attention: LLaMA's, with an RMSNorm of size d_h on the queries and one on the keys
# $$N_\mathrm{attn} = D H d_h + 2 D K d_h + H d_h D + 2 d_h$$
# ---------------------------------------------------------------------------------------------

# The two norms are applied per head (on the last dimension, d_h) with one weight for all heads.
head_norms = (rms_norm("query_norm", d_h, "q_norm", label="RMSNorm of each query head (one scale of d_h)"),
              rms_norm("key_norm", d_h, "k_norm", label="RMSNorm of each key head (one scale of d_h)"))


def self_attention(bias: bool = False) -> Part:
    """Qwen3Attention (``self_attn``): LLaMA's four projections (all four biased with ``attention_bias``) and
    the query and key norms."""
    plain = llama.self_attention(bias)
    return replace(plain, children=plain.children + head_norms,
                   label="grouped-query self-attention with query and key norms" + (", biases" if bias else ""))


def decoder_layer(attention_bias: bool = False) -> Part:
    """Qwen3DecoderLayer (``layers.<i>``): LLaMA's layer around Qwen3's attention."""
    return llama.decoder_layer(attention=self_attention(attention_bias))


layer = decoder_layer()
attention_block = layer.child("attention")


def architectures(attention_bias: bool = False, tied: bool = False, no_token_bias: bool = False) -> dict[str, Part]:
    """Every Qwen3 class of transformers: LLaMA's classes around Qwen3's layer (Qwen3ForQuestionAnswering keeps
    its body under ``transformer``, as LLaMA's does)."""
    return llama.architectures("Qwen3", tied=tied, no_token_bias=no_token_bias, qa_prefix="transformer",
                               layer=decoder_layer(attention_bias))


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

Qwen3ForCausalLM_tied = VARIANTS["tied"]["Qwen3ForCausalLM"]

final_norm = llama.final_norm
# The model cards' "non-embedding" parameters: the layers and the final norm, neither the token embeddings nor
# the head (tied or not), as on the Qwen2 page.
non_embedding = group("non_embedding", "layers and final RMSNorm (no embeddings, no head)",
                      replace(layer, repeat=L), final_norm, symbol=r"N_{\text{non-emb}}")

# ---------------------------------------------------------------------------------------------
# Checkpoints (readers.qwen3.read reads their config.json)
# ---------------------------------------------------------------------------------------------

# config.json of Qwen/Qwen3-0.6B, -1.7B, -4B, -8B, -14B, -32B on the Hugging Face hub [cite: hub-qwen]: the
# fields that set the count (sizes, head_dim, vocabulary, tie_word_embeddings, attention_bias), with model_type,
# architectures and the context length; the others set no parameter. The -Base releases have the same sizes.
TIED_CHECKPOINTS = ("qwen3-0.6b", "qwen3-1.7b", "qwen3-4b")


# ---------------------------------------------------------------------------------------------
# Published counts, reconciled: the model cards' two lines, as for Qwen2.5
# ---------------------------------------------------------------------------------------------


def _card(checkpoint: str, total: str, non_embedding_printed: str) -> tuple[Rounded, Rounded]:
    def billions(printed: str) -> tuple[int, int]:
        whole, decimals = printed.removesuffix("B").split(".")
        precision = 10 ** (9 - len(decimals))
        return int(whole + decimals) * precision, precision

    size = checkpoint.removeprefix("qwen3-").upper()
    name = f"card_{size.lower().replace('.', '_')}"
    claim, precision = billions(total)
    claim_non, precision_non = billions(non_embedding_printed)
    head = Qwen3ForCausalLM_tied if checkpoint in TIED_CHECKPOINTS else ARCHITECTURES["Qwen3ForCausalLM"]
    return (Rounded(name, claim, f"Qwen3-{size}", Citation("hub-qwen", f"Qwen3-{size} model card, “Number of "
                                                                         "Parameters”"),
                    checkpoint, (head,), precision=precision, printed=total),
            Rounded(f"{name}_non_embedding", claim_non, f"Qwen3-{size}, non-embedding",
                    Citation("hub-qwen", f"Qwen3-{size} model card, “Number of Parameters (Non-Embedding)”"),
                    checkpoint, (non_embedding,), precision=precision_non, printed=non_embedding_printed))


CARDS = tuple(claim for checkpoint, total, non in (
    ("qwen3-0.6b", "0.6B", "0.44B"), ("qwen3-1.7b", "1.7B", "1.4B"), ("qwen3-4b", "4.0B", "3.6B"),
    ("qwen3-8b", "8.2B", "6.95B"), ("qwen3-14b", "14.8B", "13.2B"), ("qwen3-32b", "32.8B", "31.2B"))
    for claim in _card(checkpoint, total, non))


# The forward at inference (derivations.transient): Qwen2's, with an RMSNorm on each query and key head.
KIN = llama.Kin(masks=qwen2.masks, attention=partial(llama.attention_forward, qk_norm=True))
TRANSIENT = llama.transient("Qwen3", KIN, layouts=VARIANTS, windowed=True)
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = llama.transient("Qwen3", KIN, layouts=VARIANTS, windowed=True, attention="sdpa")


FAMILY = Family(
    name="qwen3",
    reader=reader.READER,
    variants=VARIANTS,
    base="Qwen3Model",
    checkpoints=("qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b"),
    first_published="2025-05",
    kind="decoder",
    maker="Alibaba",
    headlines=(Headline("Qwen3ForCausalLM", "qwen3-8b", "8B"), Headline("Qwen3ForCausalLM", "qwen3-32b", "32B")),
    example="qwen3-8b",
    table_symbols=(L, D, H, K, d_h, F, V),
    table_columns={"Qwen3ForCausalLM": "Qwen3ForCausalLM", "Qwen3ForCausalLM.Qwen3Model.layer": "all layers"},
    rounded=CARDS,
    layout_free=("non_embedding",),
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
