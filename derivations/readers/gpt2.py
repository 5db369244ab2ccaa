"""GPT-2 (model_type ``gpt2``; GPT-3's sizes too): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, SEQUENCE_SUMMARY, num_labels, size, summary_type, switch
from ..rules import divides
from .. import validation

# GPT2Config.attribute_map (OpenAIGPTConfig's is the same): these names, when present, set the field.
ALIASES = {"n_positions": "max_position_embeddings", "n_embd": "hidden_size", "n_layer": "num_hidden_layers",
           "n_head": "num_attention_heads"}
# transformers' GPT2Config defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


# GPT2Attention requires the heads to divide the width (the count does not depend on them: the calculator asks for no
# heads). GPT-1's attention the same.
HEADS_DIVIDE_WIDTH = divides("H", "D", "The heads {H} must divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "P": "n_positions", "D": "n_embd", "H": "n_head", "d_h": "n_embd / n_head",
            "F": "n_inner", "L": "n_layer", "C": "num_labels"}


def written(config: Mapping, fields: Fields) -> dict[str, str]:
    """The names this config gives the width and the heads (attribute_map's, or their own), for a refusal."""
    return {"H": fields.written(config, "n_head"), "D": fields.written(config, "n_embd")}


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    # n_inner null (the default) means four times the width.
    inner = 4 * hidden if config.get("n_inner") is None else size(config, "n_inner", {})
    vocabulary, positions = FIELDS.size(config, "vocab_size"), FIELDS.size(config, "n_positions")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, written(config, FIELDS))
    return {
        "V": vocabulary, "P": positions, "D": hidden, "H": heads, "d_h": hidden // heads,
        "F": inner, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config),
    }


# Which of gpt2.VARIANTS a config builds: cross-attention blocks, an untied head, and the
# multiple-choice summary's projection.
LAYOUT = Layout((switch("cross_attention", "add_cross_attention"),
                 switch("untied", "tie_word_embeddings", True, on=False), SEQUENCE_SUMMARY))

# GPT2Config's fields that set no size (configuration_gpt2.py, 5.23). The sequence summary (summary_activation,
# summary_first_dropout) is the double-heads class's alone (modeling_gpt2.py: GPT2SequenceSummary).
CHECKS = validation.fields(
    activation_function=validation.activation(), resid_pdrop=validation.dropout(), embd_pdrop=validation.dropout(),
    attn_pdrop=validation.dropout(), layer_norm_epsilon="float", initializer_range=validation.deviation(),
    summary_activation=validation.Field("str | None", among=validation.ACTIVATIONS, classes=("DoubleHeadsModel",),
                                        what="must name an activation it knows"),
    summary_first_dropout=validation.dropout("float | int", "DoubleHeadsModel"), scale_attn_weights="bool",
    use_cache="bool", **validation.TOKENS, pad_token_id="int | None", scale_attn_by_inverse_layer_idx="bool",
    reorder_and_upcast_attn="bool")

READER = Reader("gpt2", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), check=summary_type, checks=CHECKS)
