"""GPT-NeoX and Pythia (model_type ``gpt_neox``): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, flag, num_labels, shown, switch
from ..rules import divides
from .. import validation

# transformers' GPTNeoXConfig defaults (GPT-NeoX-20B's sizes): a minimal config.json takes these for a
# missing field. GPTNeoXConfig has no attribute_map.
FIELDS = Fields({"vocab_size": 50432, "hidden_size": 6144, "num_hidden_layers": 44, "num_attention_heads": 64,
                 "intermediate_size": 24576})


# GPTNeoXConfig.validate_architecture requires the heads to divide the width (the count does not depend on them).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`GPTNeoXConfig` requires the heads {H} to divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "D": "hidden_size", "H": "num_attention_heads", "d_h": "hidden_size / num_attention_heads",
            "F": "intermediate_size", "L": "num_hidden_layers", "C": "num_labels"}


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "hidden_size"), FIELDS.size(config, "num_attention_heads")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    head = hidden // heads
    # rotary_pct and rotary_emb_base size no parameter, but transformers computes with them: null or a
    # string fails, a boolean is a number to it, and fewer than zero rotary dimensions
    # (int(head size * rotary_pct)) fail when the rotary frequencies are built.
    for field in ("rotary_pct", "rotary_emb_base"):
        value = config.get(field, 0)
        if not isinstance(value, (int, float)):
            raise ConfigError(f"{field} must be a number, got {shown(value)}")
    for field in ("rope_scaling", "rope_parameters"):
        if config.get(field) is not None and not isinstance(config[field], dict):
            raise ConfigError(f"{field} must be an object or null, got {shown(config[field])}")
    # rope_scaling (else rope_parameters) may set partial_rotary_factor, which then wins over rotary_pct.
    rope = config.get("rope_scaling") or config.get("rope_parameters") or {}
    field = "partial_rotary_factor" if "partial_rotary_factor" in rope else "rotary_pct"
    factor = rope.get(field, config.get("rotary_pct", 0.25))
    if isinstance(factor, float) and not math.isfinite(factor):  # int(head size * factor) fails in transformers too
        raise ConfigError(f"{field} must be a finite number, got {shown(factor)}")
    if isinstance(factor, (int, float)) and int(head * factor) < 0:
        raise ConfigError(f"{field} ({factor}) gives a negative number of rotary dimensions")
    # use_parallel_residual changes how the block adds its two branches, not what it holds; transformers'
    # strict config still requires a boolean.
    flag(config, "use_parallel_residual", default=True)
    return {
        "V": FIELDS.size(config, "vocab_size"), "D": hidden, "H": heads,
        "d_h": head,
        "F": FIELDS.size(config, "intermediate_size"), "L": FIELDS.size(config, "num_hidden_layers"),
        "C": num_labels(config),
    }


# Which of gpt_neox.VARIANTS a config builds: a head tied to the input embedding (tie_word_embeddings,
# false by default here, unlike GPT-2), and attention without biases (attention_bias false).
LAYOUT = Layout((switch("tied", "tie_word_embeddings"), switch("no_attention_bias", "attention_bias", True, on=False)))

# GPTNeoXConfig's fields that set no size (configuration_gpt_neox.py, 5.23). classifier_dropout is the token
# classifier's (modeling_gpt_neox.py). rotary_pct and rotary_emb_base, which the model cannot be built without, the
# reader refuses.
CHECKS = validation.fields(
    hidden_act=validation.activation(), attention_dropout=validation.dropout(), hidden_dropout=validation.dropout(),
    classifier_dropout=validation.dropout("float | int", "ForTokenClassification"), max_position_embeddings="int",
    initializer_range=validation.deviation(), layer_norm_eps="float", use_cache="bool", **validation.TOKENS,
    pad_token_id="int | None", is_decoder="bool")

READER = Reader("gpt_neox", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), checks=CHECKS)
