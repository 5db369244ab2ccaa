"""Falcon (model_type ``falcon``): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, num_labels, shown, size, switch
from ..rules import divides, even_or_one
from .. import validation
from .bloom import width

# transformers' FalconConfig defaults (configuration_falcon.py, 5.23): Falcon-7B's sizes. FalconConfig has no
# attribute_map; its __post_init__ takes n_embed (the RefinedWeb files' name) for the width, as BloomConfig does.
FIELDS = Fields({"vocab_size": 65024, "hidden_size": 4544, "num_hidden_layers": 32, "num_attention_heads": 71})

# FalconAttention raises unless the heads divide the width.
HEADS_DIVIDE_WIDTH = divides("H", "D", "`FalconAttention` requires the heads {H} to divide the width {D}.")
# The new decoder architecture views the fused map as K groups of H / K queries, a key and a value: another K builds,
# but the view fails.
KV_HEADS_DIVIDE_HEADS = divides("K", "H", "With `new_decoder_architecture`, the key/value heads {K} must divide the "
                                          "heads {H}: transformers builds other values, but the attention cannot run.")
# FalconConfig (5.23) takes any head size and the model builds, but with rotary positions (alibi false) an odd head
# above 1 fails in the forward pass, on the shapes (rotate_half's halves); with ALiBi no rotation runs, and a head of 1
# runs by broadcasting. The reader refuses the first, as LLaMA's does; the rule depends on alibi, which is no layout,
# so the calculator (which counts what transformers builds) does not hold it.
EVEN_HEAD = even_or_one("d_h", "With rotary positions (alibi false) the head size {d_h} must be even (or 1): rotary "
                               "embeddings turn pairs of coordinates.",
                        "the head size ({d_h}) must be even for rotary position embeddings (or alibi true)")
FIELD_OF = {"V": "vocab_size", "D": "hidden_size", "H": "num_attention_heads", "d_h": "hidden_size / num_attention_heads",
            "K": "num_kv_heads", "F": "ffn_hidden_size", "L": "num_hidden_layers", "C": "num_labels"}


def switched(config: Mapping, field: str, default: bool) -> bool:
    """A FalconConfig switch (annotated ``bool | None``): null is accepted and reads as false, as the modules test it
    (``if config.bias``)."""
    value = config.get(field, default)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(f"{field} must be true, false or null, got {shown(value)}")
    return bool(value)


def norms(config: Mapping) -> str:
    """Which LayerNorms a layer holds (FalconDecoderLayer.__init__): input_layernorm and post_attention_layernorm
    without parallel_attn ("sequential"); ln_attn and ln_mlp with num_ln_in_parallel_attn 2, its default under the new
    decoder architecture ("two_norms"); else input_layernorm alone ("")."""
    count = config.get("num_ln_in_parallel_attn")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        raise ConfigError(f"num_ln_in_parallel_attn must be an integer or null, got {shown(count)}")
    new = switched(config, "new_decoder_architecture", False)
    if count is None and new:
        count = 2
    if not switched(config, "parallel_attn", True):
        return "sequential"
    return "two_norms" if count == 2 else ""


def read(config: Mapping) -> dict[str, int]:
    hidden, field = width(config, FIELDS)
    heads = FIELDS.size(config, "num_attention_heads")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, {"H": "num_attention_heads", "D": field})
    head = hidden // heads
    new = switched(config, "new_decoder_architecture", False)
    multi_query = switched(config, "multi_query", True)
    switched(config, "bias", False)
    if not switched(config, "alibi", False):
        EVEN_HEAD.check({"d_h": head})
    given = config.get("num_kv_heads")
    kv = heads if given is None else size(config, "num_kv_heads", {})
    layout = norms(config)
    count = config.get("num_ln_in_parallel_attn")
    # FalconDecoderLayer.forward: the new architecture reads ln_attn and ln_mlp (num_ln_in_parallel_attn 2) or
    # input_layernorm alone (1); the old one reads input_layernorm, so it cannot have built ln_attn and ln_mlp.
    if new and count not in (None, 1, 2):
        raise ConfigError(f"num_ln_in_parallel_attn must be 1, 2 or null with new_decoder_architecture, got {count}")
    # new_decoder_architecture without parallel_attn (false or null) builds the sequential norms (FalconConfig says
    # the new architecture ignores the switch; FalconDecoderLayer.__init__ does not), and no forward of it runs: it
    # reads ln_attn, which the layer lacks, or (num_ln_in_parallel_attn 1) a feed-forward input it never set.
    if new and layout == "sequential":
        raise ConfigError("new_decoder_architecture needs parallel_attn true: without it transformers builds the "
                          "sequential norms, with which its layer cannot run")
    if not new and layout == "two_norms":
        raise ConfigError("num_ln_in_parallel_attn 2 needs new_decoder_architecture: transformers builds ln_attn "
                          "and ln_mlp, and the layer cannot run without them")
    if new:
        # (num_kv_heads * 2 + num_attention_heads) * head_dim: K key heads and K value heads.
        KV_HEADS_DIVIDE_HEADS.check({"K": kv, "H": heads}, FIELD_OF)
        key_value = kv
    elif multi_query:
        key_value = 1  # hidden_size + 2 * head_dim: one key head and one value head
    else:
        key_value = heads  # 3 * hidden_size
        if kv != heads:
            raise ConfigError(f"num_kv_heads ({kv}) must equal num_attention_heads ({heads}) without multi_query or "
                              "new_decoder_architecture: the attention reshapes H heads into num_kv_heads")
    inner = 4 * hidden if config.get("ffn_hidden_size") is None else size(config, "ffn_hidden_size", {})
    return {"V": FIELDS.size(config, "vocab_size"), "D": hidden, "H": heads, "d_h": head, "K": key_value,
            "F": inner, "L": FIELDS.size(config, "num_hidden_layers"), "C": num_labels(config)}


# Which of falcon.VARIANTS a config builds: biases on every linear map (bias), a cache of H heads (the new decoder
# architecture widens its K key/value heads to H before caching them), a head of its own (tie_word_embeddings false),
# and the layer's LayerNorms.
LAYOUT = Layout((Switch("bias", lambda config: switched(config, "bias", False)),
                 Switch("new_decoder", lambda config: switched(config, "new_decoder_architecture", False)),
                 switch("untied", "tie_word_embeddings", True, on=False),
                 Switch("norms", norms, ("", "two_norms", "sequential"))))

# FalconConfig's fields that set no size (configuration_falcon.py, 5.23); classifier_dropout is the token
# classifier's (modeling_falcon.py, FalconForTokenClassification), which falls back on hidden_dropout.
CHECKS = validation.fields(
    # layer_norm_epsilon, hidden_dropout and attention_dropout are annotated with null, which the LayerNorms and
    # dropouts then refuse (as the model is built, or in a training step).
    validation.ROTARY, layer_norm_epsilon="float", initializer_range=validation.deviation(), use_cache="bool",
    hidden_dropout=validation.dropout(), attention_dropout=validation.dropout(),
    max_position_embeddings="int", **validation.TOKENS, pad_token_id="int | None",
    # The model's forward reads output_hidden_states as a truth value alone (validation.BASE's comparison is
    # other families').
    output_hidden_states="object",
    activation=validation.activation(),  # annotated with null, which ACT2FN does not know
    classifier_dropout=validation.dropout("float | int | None", "ForTokenClassification"))

# The rules every layout has. EVEN_HEAD is rotary's alone (the reader checks it where alibi is false), and
# KV_HEADS_DIVIDE_HEADS the new architecture's alone (multi-query reads no
# num_kv_heads): the reader checks it there, and the calculator, which asks for K in every layout, does not.
READER = Reader("falcon", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), checks=CHECKS)
