"""Gemma 3 with its vision encoder (Gemma Team 2025), laid out as transformers' ``Gemma3ForConditionalGeneration``.

Three parts: SigLIP's vision tower (``derivations.siglip``: the So400m tower at 896 pixels, patches of 14, without its
attention-pooling head), a projector that pools the tower's 64 x 64 patch states to N_i = 256 (an average over
squares of patches: no parameter), norms them (RMSNorm) and maps them to the language model's width with one matrix,
and Gemma 3's language model (``derivations.gemma3_text``), which reads the image's N_i tokens among its s; then the
head, tied to the token embeddings. The 1B model has no vision encoder: it is ``gemma3_text`` alone.
"""

from __future__ import annotations

import sympy

from ..claims import Rounded
from ..components import Part, group, leaf, score
from ..contract import Family, Headline
from ..readers import gemma3 as reader
from ..sources import Citation, Source, declare
from ..symbols import C, D, D_v, L, L_v, N_i, N_p, V, p
from . import _composite, gemma3_text, siglip

# ---------------------------------------------------------------------------------------------
# The vision tower: SigLIP's, without the pooling head unless vision_use_head (false in every release)
# ---------------------------------------------------------------------------------------------


def vision_tower_of(head: bool) -> Part:
    """Gemma3Model.vision_tower: a SiglipVisionModel, on one image's N_p patches."""
    return _composite.tower(siglip.vision_tower_of(head), "vision_tower")


# ---------------------------------------------------------------------------------------------
# The projector (Gemma3MultiModalProjector): average-pool the sqrt(N_p) x sqrt(N_p) patch states to N_i, RMSNorm,
# one D_v x D matrix (an nn.Parameter, not an nn.Linear: no bias)
# $$N_\mathrm{projector} = D_\mathrm{v} + D_\mathrm{v} D$$
# ---------------------------------------------------------------------------------------------

projector = group(
    "projector", "multimodal projector (pooled to N_i tokens, RMSNorm, one matrix)",
    leaf("norm", "RMSNorm of the pooled states (Gemma's: scales by 1 + w)", D_v, "mm_soft_emb_norm.weight"),
    leaf("projection", "projection to the language model's width (mm_input_projection_weight)", D_v * D,
         "mm_input_projection_weight", matrix=D_v * D),
    path="multi_modal_projector", kind="heads", tokens=N_i, symbol=r"N_{\mathrm{proj}}")


def architectures(attention_bias: bool = False, no_token_bias: bool = False, untied: bool = False,
                  head: bool = False) -> dict[str, Part]:
    """The classes transformers builds for a gemma3 config: the whole model (Gemma3Model, with the head
    Gemma3ForConditionalGeneration, with a classifier Gemma3ForSequenceClassification), and the language model's
    own classes, which from_pretrained builds from text_config (Gemma3TextModel, Gemma3ForCausalLM,
    Gemma3TextForSequenceClassification: derivations.gemma3_text's)."""
    text = gemma3_text.architectures(attention_bias, untied, no_token_bias)
    body = group("model", "Gemma3Model: vision tower, projector, language model", vision_tower_of(head), projector,
                 _composite.language_model(text["Gemma3TextModel"]), path="model", symbol=r"N_{\mathrm{Gemma3Model}}")

    def model(name: str, label: str, *parts: Part) -> Part:
        return group(name, label, *parts, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        # The base model is the body itself (its parameters without the model. prefix).
        "Gemma3Model": model("Gemma3Model", "Gemma 3: vision tower, projector, language model", *body.children),
        "Gemma3ForConditionalGeneration": model("Gemma3ForConditionalGeneration", "with the language-model head", body,
                                                _composite.lm_head(not untied)),
        "Gemma3ForSequenceClassification": model("Gemma3ForSequenceClassification", "with a sequence classifier",
                                                 body, score(D, C)),
        **text,
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)

# The three parts a reader asks about, as every release builds them (no pooling head in the tower, no biases).
_RELEASED = ARCHITECTURES["Gemma3ForConditionalGeneration"].child("model")
vision_tower = _RELEASED.child("vision_tower")
language_model = _RELEASED.child("language_model")
vision_encoder = group("vision_encoder", "vision encoder (the tower and the projector)", vision_tower, projector,
                       symbol=r"N_{\mathrm{vision\,encoder}}")

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled: the report's Table 1
# ---------------------------------------------------------------------------------------------

# Table 1 gives the vision encoder of the 4B, 12B and 27B models as 417M, one encoder for the three: the SigLIP tower
# alone, without the projector (which would make it 420M).
_TABLE_1 = Citation("gemma3-2025", "Table 1, “Vision Encoder” (millions)")
paper_vision_encoder = Rounded("paper_vision_encoder", 417 * 10**6, "Gemma 3 4B, 12B and 27B, vision encoder",
                               _TABLE_1, "gemma-3-4b-pt", (vision_tower, vision_encoder), printed="417M")

SOURCES = declare(
    Source("kerashub-gemma3", "code", "KerasHub", "keras_hub/src/models/gemma3/gemma3_presets.py: each preset's "
           "parameters", "GitHub, keras-team/keras-hub", None,
           "https://github.com/keras-team/keras-hub/blob/master/keras_hub/src/models/gemma3/gemma3_presets.py",
           revision="https://github.com/keras-team/keras-hub/blob/00d9f10a8e74d4f552ed50170b7dcadb65d3bd52/"
                    "keras_hub/src/models/gemma3/gemma3_presets.py", short="KerasHub's Gemma 3 presets"),
)

# KerasHub's presets print each model's parameters exactly. Its MedGemma presets (Gemma 3's architecture, converted
# from the hub's checkpoints) are the count here; its own Gemma 3 presets are 64 rows of the token table fewer at each
# size: a vocabulary of 262,144 (the tokenizer's), where the hub's checkpoints hold 262,208 rows.
_PRESETS = Citation("kerashub-gemma3", "backbone_presets, “params”")
KERAS_VOCABULARY = 262_144
keras_vocabulary = sympy.Integer(KERAS_VOCABULARY)
_WHOLE = ARCHITECTURES["Gemma3ForConditionalGeneration"]
kerashub_medgemma_4b = Rounded("kerashub_medgemma_4b", 4_300_079_472, "medgemma_4b (Gemma 3 4B's architecture)",
                               _PRESETS, "gemma-3-4b-pt", (_WHOLE,), precision=1, printed="4300079472")
kerashub_medgemma_27b = Rounded("kerashub_medgemma_27b", 27_432_406_640,
                                "medgemma_instruct_27b (Gemma 3 27B's architecture)", _PRESETS, "gemma-3-27b-pt",
                                (_WHOLE,), precision=1, printed="27432406640")


def _keras(size: str, claim: int) -> Rounded:
    return Rounded(f"kerashub_gemma3_{size}", claim, f"gemma3_{size}, at KerasHub's vocabulary", _PRESETS,
                   f"gemma-3-{size}-pt", (_WHOLE,), precision=1, overrides={V: KERAS_VOCABULARY}, printed=str(claim))


kerashub_gemma3_4b = _keras("4b", 4_299_915_632)
kerashub_gemma3_12b = _keras("12b", 12_187_079_280)
kerashub_gemma3_27b = _keras("27b", 27_432_062_576)
KERASHUB = (kerashub_medgemma_4b, kerashub_medgemma_27b, kerashub_gemma3_4b, kerashub_gemma3_12b, kerashub_gemma3_27b)
# The 64 rows, in parameters: D of them each.
keras_rows = leaf("keras_rows", "the rows of the hub's table beyond KerasHub's 262,144", (V - KERAS_VOCABULARY) * D)

FAMILY = Family(
    name="gemma3",
    reader=reader.READER,
    variants=VARIANTS,
    base="Gemma3Model",
    # google/gemma-3-4b-pt, -12b-pt and -27b-pt's config.json as published [cite: hub-google-gemma]: the vision_config
    # of all three (SigLIP So400m at 896 pixels, patches of 14, no pooling head), mm_tokens_per_image 256, and each
    # text_config (the same fields as the gemma-3-*b checkpoints of derivations.gemma3_text, which are these
    # text_configs alone).
    checkpoints=("gemma-3-4b-pt", "gemma-3-12b-pt", "gemma-3-27b-pt"),
    first_published="2025-03",
    kind="vision",
    maker="Google",
    headlines=(Headline("Gemma3ForConditionalGeneration", "gemma-3-4b-pt", "4B"),
               Headline("Gemma3ForConditionalGeneration", "gemma-3-27b-pt", "27B")),
    example="gemma-3-4b-pt",
    table_symbols=(L, D, V, L_v, D_v, N_p, p, N_i),
    table_columns={"Gemma3ForConditionalGeneration": "Gemma3ForConditionalGeneration", "vision_tower": "vision tower",
                   "projector": "projector", "language_model": "language model"},
    rounded=(paper_vision_encoder, *KERASHUB),
    sources=SOURCES,
    layout_free=("vision_tower", "language_model", "vision_encoder", "projector", "keras_rows"),
)

assert sympy.expand(ARCHITECTURES["Gemma3Model"].total - ARCHITECTURES["Gemma3ForConditionalGeneration"].total) == 0
