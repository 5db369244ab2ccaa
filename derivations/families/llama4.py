"""Llama 4 with its vision tower (Meta 2025: Scout, Maverick), laid out as transformers'
``Llama4ForConditionalGeneration``.

Three parts: a vision tower of Meta's own (``vision_model``: each p by p patch mapped to D_v by one matrix without a
bias, a class token and learned positions, a LayerNorm, L_v pre-norm layers of LayerNorm, attention with biases
(rotary positions over the patches' two axes: no parameter) and a GELU feed-forward with biases, a LayerNorm; then
an adapter that drops the class token, folds each square of patches into one token by a pixel shuffle (N_p patches to
N_i tokens, each F_v wide) and runs a two-matrix MLP without biases), a projector (one matrix, D_vo to the language
model's D, no bias), and Llama 4's language model with its own head (``derivations.llama4_text``'s
Llama4ForCausalLM: interleaved dense and expert layers with a shared expert), which reads the image's N_i tokens among
its s.

Active per token (:data:`ACTIVE`), as on the Mixtral page: the language model's active parameters (the X_a routed
experts its router picks, the shared expert, everything else whole, the input embedding included) plus the vision
tower and the projector whole: an image's tokens run through every tensor of them.
"""

from __future__ import annotations

from dataclasses import replace

import sympy

from ..claims import Rounded
from ..components import (AttentionLayout, Part, attention, column_parallel, feed_forward, group, layer_norm, leaf,
                          linear, row_parallel)
from ..contract import Family, Headline
from ..readers import llama4 as reader
from ..sources import Citation
from ..symbols import C_i, D, D_a, D_v, D_vo, F_a, F_v, H_v, L, L_f, L_v, N_i, N_p, V, X, X_a, p
from . import llama4_text

# ---------------------------------------------------------------------------------------------
# The vision tower (Llama4VisionModel)
# ---------------------------------------------------------------------------------------------

# Llama4UnfoldConvolution: the image unfolded into its N_p patches of C_i p^2 pixels, each mapped to D_v (nn.Linear,
# no bias); then the class token (class_embedding) after them and one learned position a token, the class token's
# included (positional_embedding_vlm: N_p + 1 rows)
# $$N_\mathrm{emb} = C_\mathrm{in} p^2 D_\mathrm{v} + D_\mathrm{v} + (N_\mathrm{p} + 1) D_\mathrm{v}$$
# Tensor parallelism cuts its outputs (transformers' plan: colwise_gather_output), as it does the adapter's two
# matrices (colwise, rowwise) and the projector's (colwise_gather_output).
patch_embedding = column_parallel(replace(
    linear("patch_embedding", "patch embedding (unfolded patches, one matrix, no bias)", C_i * p**2, D_v, False,
           "patch_embedding.linear"), kind="embeddings", tokens=N_p), "inner", D_v)
class_token = leaf("class_token", "class token (after the patches)", D_v, "class_embedding", kind="embeddings")
positions = leaf("positions", "learned position embeddings (N_p + 1 rows)", (N_p + 1) * D_v,
                 "positional_embedding_vlm", kind="embeddings")

# One Llama4VisionEncoderLayer: LayerNorm, attention (q, k, v, o with biases; heads that partition the width),
# LayerNorm, feed-forward (fc1, GELU, fc2, with biases)
# $$N_\mathrm{layer} = 2 D_\mathrm{v} + (4 D_\mathrm{v}^2 + 4 D_\mathrm{v}) + 2 D_\mathrm{v}
#   + (2 D_\mathrm{v} F_\mathrm{v} + F_\mathrm{v} + D_\mathrm{v})$$
layer = group(
    "layer", "Llama4VisionEncoderLayer",
    layer_norm("norm1", D_v, "input_layernorm", label="LayerNorm before attention"),
    attention(D_v, H_v, D_v / H_v, layout=AttentionLayout("q_proj", "k_proj", "v_proj", "o_proj"), path="self_attn",
              label="self-attention (rotary positions over the patches' rows and columns: no parameter)"),
    layer_norm("norm2", D_v, "post_attention_layernorm", label="LayerNorm before the feed-forward"),
    feed_forward(D_v, F_v, up="fc1", down="fc2", path="mlp"),
    path="model.layers", symbol=r"N_{\mathrm{layer}}")

# Llama4VisionPixelShuffleMLP: the class token's state dropped, each square of patches folded into one token of
# F_v = D_v / r^2 features (the pixel shuffle: no parameter), then fc1 (F_v to F_a), GELU, fc2 (D_a to D_a), GELU,
# no biases, on the N_i tokens
# $$N_\mathrm{adapter} = F_\mathrm{v} F_\mathrm{a} + D_\mathrm{a}^2$$
adapter = group("adapter", "vision adapter (pixel shuffle to N_i tokens, then two matrices, no biases)",
                column_parallel(linear("fc1", "first matrix of the folded patches (F_v to F_a)", F_v, F_a, False,
                                       "fc1"), "inner", F_a),
                row_parallel(linear("fc2", "second matrix (D_a to D_a)", D_a, D_a, False, "fc2"), "inner", D_a),
                path="vision_adapter.mlp", kind="heads", tokens=N_i, symbol=r"N_{\mathrm{adapter}}")


def vision_model(path: str | None) -> Part:
    """Llama4VisionModel, on one image's N_p patches and its class token (the adapter on the N_i folded tokens)."""
    return group("vision_tower", "vision tower (patches, class token, positions, layers, adapter)",
                 patch_embedding, class_token, positions,
                 layer_norm("pre_norm", D_v, "layernorm_pre", label="LayerNorm before the layers"),
                 replace(layer, repeat=L_v),
                 layer_norm("post_norm", D_v, "layernorm_post", label="LayerNorm after the layers"),
                 adapter, path=path, tokens=N_p + 1, symbol=r"N_{\mathrm{vision}}")


# ---------------------------------------------------------------------------------------------
# The projector (Llama4MultiModalProjector): one matrix, D_vo to D, no bias, on the image's N_i tokens
# $$N_\mathrm{projector} = D_\mathrm{v,out} D$$
# ---------------------------------------------------------------------------------------------

projector = group("projector", "multimodal projector (one matrix to the language model's width, no bias)",
                  column_parallel(linear("linear_1", "projection to the language model's width (no bias)", D_vo, D,
                                         False, "linear_1"), "inner", D),
                  path="multi_modal_projector", kind="heads", tokens=N_i, symbol=r"N_{\mathrm{proj}}")


def architectures(attention_bias: bool = False, tied: bool = False, stored: sympy.Expr = X) -> dict[str, Part]:
    """The classes transformers 5.23 builds for a llama4 config (``__all__`` and the auto mappings): the whole model
    (Llama4ForConditionalGeneration, the base model as well), the tower alone (Llama4VisionModel, built from
    vision_config), and the language model alone (Llama4TextModel, Llama4ForCausalLM, built from text_config:
    derivations.llama4_text's); ``stored`` routed experts counted."""
    text = llama4_text.architectures(attention_bias, tied, stored)
    active = "" if stored == X else "^{\\mathrm{active}}"
    # Its body named by its path (model), not its class: the rows' names stay within a terminal's 100 columns.
    body, head = text["Llama4ForCausalLM"].children
    language_model = replace(text["Llama4ForCausalLM"], name="language_model",
                             label="language model (Llama4ForCausalLM, its head included)", path="language_model",
                             children=(replace(body, name="model"), head), symbol=r"N_{\mathrm{LM}}" + active)
    return {
        "Llama4ForConditionalGeneration": group(
            "Llama4ForConditionalGeneration", "Llama 4: vision tower, projector, language model",
            vision_model("vision_model"), projector, language_model,
            symbol=r"N_{\mathrm{Llama4ForConditionalGeneration}}" + active),
        "Llama4VisionModel": replace(vision_model(None), name="Llama4VisionModel", label="the vision tower alone",
                                     symbol=r"N_{\mathrm{Llama4VisionModel}}" + active),
        **text,
    }


ARCHITECTURES = architectures()
VARIANTS = reader.READER.layout.variants(architectures)
ACTIVE_VARIANTS = reader.READER.layout.variants(lambda **layout: architectures(stored=X_a, **layout))
ACTIVE = ACTIVE_VARIANTS[""]

# The three parts a reader asks about, as both releases build them (no biases in the language model, untied).
_WHOLE = ARCHITECTURES["Llama4ForConditionalGeneration"]
vision_tower = _WHOLE.child("vision_tower")
language_model = _WHOLE.child("language_model")
vision_encoder = group("vision_encoder", "vision side (the tower and the projector)", vision_tower, projector,
                       symbol=r"N_{\mathrm{vision\,side}}")
active_language_model = ACTIVE["Llama4ForConditionalGeneration"].child("language_model")

assert sympy.expand(_WHOLE.total - vision_encoder.total - ARCHITECTURES["Llama4ForCausalLM"].total) == 0
assert sympy.expand(ACTIVE["Llama4ForConditionalGeneration"].total - vision_encoder.total
                    - llama4_text.ACTIVE["Llama4ForCausalLM"].total) == 0

# ---------------------------------------------------------------------------------------------
# Published figures, reconciled: the cards' totals (the whole checkpoints') and "17B (Activated)"
# ---------------------------------------------------------------------------------------------

_CARD = Citation("hub-meta-llama4", "the model cards' table of the models, “17B (Activated) 109B (Total)”, "
                                    "“17B (Activated) 400B (Total)”")
_ACTIVE_WHOLE = ACTIVE["Llama4ForConditionalGeneration"]
scout_total = Rounded("scout_total", 109 * 10**9, "Llama 4 Scout, “109B (Total)”", _CARD, "llama-4-scout-17b-16e",
                      (_WHOLE, language_model), precision=10**9, printed="109B")
# "400B": a figure rounded at its last nonzero digit (to the hundred billion), as a name's size is read.
maverick_total = Rounded("maverick_total", 400 * 10**9, "Llama 4 Maverick, “400B (Total)”", _CARD,
                         "llama-4-maverick-17b-128e", (_WHOLE, language_model), precision=10**11, printed="400B")
# "17B (Activated)": the language model's active count; with the vision side (an image's tokens run through all of
# it) the whole's active count is nearer 18B.
scout_active = Rounded("scout_active", 17 * 10**9, "Llama 4 Scout, “17B (Activated)”", _CARD,
                       "llama-4-scout-17b-16e", (_ACTIVE_WHOLE, active_language_model), precision=10**9,
                       printed="17B")
maverick_active = Rounded("maverick_active", 17 * 10**9, "Llama 4 Maverick, “17B (Activated)”", _CARD,
                          "llama-4-maverick-17b-128e", (_ACTIVE_WHOLE, active_language_model), precision=10**9,
                          printed="17B")
CARDS = (scout_total, maverick_total, scout_active, maverick_active)

FAMILY = Family(
    name="llama4",
    reader=reader.READER,
    variants=VARIANTS,
    base="Llama4ForConditionalGeneration",
    # meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E's config.json as published [cite: hub-meta-llama4]:
    # each text_config as the -text checkpoints of derivations.llama4_text bundle it (their origins stated there),
    # and the one vision_config of both as NVIDIA TensorRT-LLM's tests reproduce Maverick's
    # (LLAMA_4_MAVERICK_TWO_LAYER_CONFIG in tests/unittest/_torch/modeling/test_modeling_llama_min_latency.py, its
    # num_hidden_layers 0 restored to 34, as AWS neuronx-distributed-inference's LLAMA4_SCOUT_MINIMAL_MOCK_CONFIG
    # prints Scout's: 34 layers of width 1408, 16 heads, 336 pixels, patches of 14, vision_output_dim 4096).
    checkpoints=("llama-4-scout-17b-16e", "llama-4-maverick-17b-128e"),
    first_published="2025-04",
    kind="vision",
    maker="Meta",
    headlines=(
        Headline("Llama4ForConditionalGeneration", "llama-4-scout-17b-16e", "Scout, in total"),
        Headline("Llama4ForConditionalGeneration", "llama-4-maverick-17b-128e", "Maverick, in total"),
        Headline("ACTIVE.Llama4ForConditionalGeneration", "llama-4-maverick-17b-128e", "Maverick, per token",
                 convention="Active per token: the language model's (in each layer with experts the routed experts "
                 "the router picks, the shared expert and the router, every tensor outside the experts whole, the "
                 "input embedding included, as on the Mixtral page) and the vision tower and projector whole."),
    ),
    example="llama-4-scout-17b-16e",
    table_symbols=(L, L_f, D, X, X_a, V, L_v, D_v, N_p, p, N_i),
    table_columns={"Llama4ForConditionalGeneration": "Llama4ForConditionalGeneration",
                   "ACTIVE.Llama4ForConditionalGeneration": "active per token",
                   "vision_tower": "vision tower", "projector": "projector", "language_model": "language model"},
    rounded=CARDS,
    minimum={X_a: 0, L_f: 0},
    active=ACTIVE_VARIANTS,
    sources=llama4_text.SOURCES,
    layout_free=("vision_tower", "vision_encoder", "projector", "adapter", "layer", "patch_embedding"),
)
