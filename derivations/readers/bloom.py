"""BLOOM (model_type ``bloom``): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, num_labels, size, switch
from ..rules import divides
from .. import validation

# BloomConfig.attribute_map (configuration_bloom.py, 5.23): these names, when present, set the field.
ALIASES = {"n_layer": "num_hidden_layers", "n_head": "num_attention_heads"}
# transformers' BloomConfig defaults (a tiny model: 2 layers, 64 wide); a minimal config.json takes these.
FIELDS = Fields({"vocab_size": 250880, "hidden_size": 64, "n_layer": 2, "n_head": 8}, ALIASES)

# BloomAttention raises unless the heads divide the width (the count does not depend on them).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`BloomAttention` requires the heads {H} to divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "D": "hidden_size", "H": "n_head", "d_h": "hidden_size / n_head",
            "L": "n_layer", "C": "num_labels"}


def width(config: Mapping, fields: Fields) -> tuple[int, str]:
    """The width and the field it is read from: BloomConfig.__post_init__ (and FalconConfig's) pops an ``n_embed``
    keyword, the name BigScience's own files use, which wins over hidden_size unless it is null."""
    if config.get("n_embed") is not None:
        return size(config, "n_embed", {}), "n_embed"
    return fields.size(config, "hidden_size"), "hidden_size"


def read(config: Mapping) -> dict[str, int]:
    hidden, field = width(config, FIELDS)
    heads = FIELDS.size(config, "n_head")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": FIELDS.written(config, "n_head"), "D": field})
    return {"V": FIELDS.size(config, "vocab_size"), "D": hidden, "H": heads, "d_h": hidden // heads,
            "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


# Which of bloom.VARIANTS a config builds: a head of its own (tie_word_embeddings false; true by default).
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),))

# BloomConfig's fields that set no size (configuration_bloom.py, 5.23); classifier_dropout is read by the token
# classifier alone (modeling_bloom.py, BloomForTokenClassification), which falls back on hidden_dropout.
CHECKS = validation.fields(
    layer_norm_epsilon="float", initializer_range=validation.deviation(), use_cache="bool", **validation.TOKENS,
    pad_token_id="int | None", apply_residual_connection_post_layernorm="bool",
    hidden_dropout=validation.dropout(), attention_dropout=validation.dropout(), pretraining_tp="int",
    # The model's forward reads output_hidden_states as a truth value alone (validation.BASE's comparison is
    # other families').
    output_hidden_states="object",
    slow_but_exact="bool", classifier_dropout=validation.dropout("float | int | None", "ForTokenClassification"))

READER = Reader("bloom", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), checks=CHECKS)
