"""What the families of a model that joins a vision tower to a language model share (Gemma 3, LLaVA, ...).

The language model keeps the plain sizes (D, F, L, H, K, d_h, V); a tower taken from its own family (SigLIP's,
CLIP's) is the same tree under the vision tower's names (:func:`tower`: its D is D_v, and so on), so that both
live in one model and are read from one config (derivations.readers._composite). The model is the three parts a
reader asks about: the vision tower, the projector that turns its states into the language model's tokens, and the
language model; then the head.
"""

from __future__ import annotations

from dataclasses import replace

from ..components import Part, as_kind, linear, tied_tensor
from ..symbols import D, D_v, F, F_v, H, H_v, L, L_v, V

# A tower's symbols under a composite's names (the readers' _composite.VISION).
VISION = {D: D_v, F: F_v, L: L_v, H: H_v}


def tower(part: Part, path: str, label: str = "vision tower") -> Part:
    """A vision tower of another family (its ``...VisionModel``, whose parameters are the tower's module's), under the
    vision tower's sizes, at ``path`` in the composite."""
    return replace(part.subs(VISION), name="vision_tower", label=label, path=path)


def language_model(body: Part, path: str = "language_model") -> Part:
    """The language model's body (its ``...TextModel``/``...Model``: embeddings, layers, final norm), at ``path``."""
    return replace(body, name="language_model", label=f"language model ({body.name})", path=path,
                   symbol=r"N_{\mathrm{LM}}")


def lm_head(tied: bool, embeddings: str = "model.language_model.embed_tokens") -> Part:
    """The language-model head, D to V without bias: tied, it *is* the language model's token embeddings."""
    if tied:
        return as_kind(tied_tensor("lm_head", "language-model head (the token embeddings, transposed)", embeddings,
                                   "lm_head", matrix=D * V), "heads")
    return as_kind(linear("lm_head", "language-model head (a weight of its own, no bias)", D, V, False, "lm_head"),
                   "heads")
