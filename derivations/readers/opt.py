"""OPT (model_type ``opt``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, Switch, flag, num_labels, padding_index, shown, switch
from ..rules import divides
from .. import validation

# transformers' OPTConfig defaults (5.23, configuration_opt.py: OPT-125m's sizes). It has no attribute_map;
# word_embed_proj_dim null (the default) is the width.
FIELDS = Fields({"vocab_size": 50272, "hidden_size": 768, "num_hidden_layers": 12, "ffn_dim": 3072,
                 "max_position_embeddings": 2048, "num_attention_heads": 12})

# OPTAttention raises unless the heads divide the width (the count does not depend on them).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`OPTAttention` requires the heads {H} to divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "P": "max_position_embeddings", "D": "hidden_size", "H": "num_attention_heads",
            "d_h": "hidden_size / num_attention_heads", "F": "ffn_dim", "L": "num_hidden_layers",
            "E": "word_embed_proj_dim", "C": "num_labels"}


def projection(config: Mapping) -> int:
    """word_embed_proj_dim: the width of the token embeddings and of the model's output (the hidden size when
    null or absent). transformers builds and runs a width of 0 (empty tables and projections)."""
    if config.get("word_embed_proj_dim") is None:
        return FIELDS.size(config, "hidden_size")
    return FIELDS.size(config, "word_embed_proj_dim", minimum=0)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads, vocabulary = (FIELDS.size(config, name) for name in
                                 ("hidden_size", "num_attention_heads", "vocab_size"))
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    # nn.Embedding(V, E, padding_idx=pad_token_id) refuses an index outside the table (1 by default).
    padding_index(config, vocabulary, default=1)
    flag(config, "do_layer_norm_before", True)
    return {"V": vocabulary, "P": FIELDS.size(config, "max_position_embeddings"), "D": hidden, "H": heads,
            "d_h": hidden // heads, "F": FIELDS.size(config, "ffn_dim"), "L": FIELDS.size(config, "num_hidden_layers"),
            "E": projection(config), "C": num_labels(config)}


def final_norm(config: Mapping) -> str:
    """Where the LayerNorms sit: before each sub-layer with a final one (""), after each sub-layer and no final one
    (``post_norm``, do_layer_norm_before false: OPT-350m), or before each sub-layer without the final one
    (``final_norm_removed``: _remove_final_layer_norm, kept for checkpoints fine-tuned before transformers 4.20.1)."""
    if not flag(config, "do_layer_norm_before", True):
        return "post_norm"
    removed = config.get("_remove_final_layer_norm", False)
    if not isinstance(removed, bool):
        raise ConfigError(f"_remove_final_layer_norm must be true or false, got {shown(removed)}")
    return "final_norm_removed" if removed else ""


# Which of opt.VARIANTS a config builds: token embeddings of another width than the layers', with project_in and
# project_out (word_embed_proj_dim differs from hidden_size: OPT-350m); an untied head; where the LayerNorms sit;
# no biases on the attention's and the feed-forward's maps (enable_bias false); LayerNorms without parameters
# (layer_norm_elementwise_affine false).
LAYOUT = Layout((Switch("projected", lambda config: projection(config) != FIELDS.size(config, "hidden_size")),
                 switch("untied", "tie_word_embeddings", True, on=False),
                 switch("no_bias", "enable_bias", True, on=False),
                 switch("no_affine", "layer_norm_elementwise_affine", True, on=False),
                 Switch("norms", final_norm, ("", "post_norm", "final_norm_removed"))))

# OPTConfig's fields that set no size (configuration_opt.py, 5.23).
CHECKS = validation.fields(
    dropout=validation.dropout(), attention_dropout=validation.dropout(), activation_function=validation.activation(),
    layerdrop="float | int", init_std=validation.deviation(), use_cache="bool", **validation.TOKENS,
    pad_token_id="int | None")

READER = Reader("opt", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), checks=CHECKS, zero=frozenset({"E"}))
