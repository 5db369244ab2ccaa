"""T5 (model_type ``t5``): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, Switch, num_labels, shown, size, switch
from .. import validation

# T5Config.attribute_map: these names, when present, set the field they map to.
ALIASES = {"d_model": "hidden_size", "num_heads": "num_attention_heads", "num_layers": "num_hidden_layers",
           "d_kv": "head_dim"}
# transformers' T5Config defaults (t5-small's shape): a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6, "num_heads": 8,
                 "relative_attention_num_buckets": 32}, ALIASES)

# transformers.activations.ACT2CLS (5.23): the names the feed-forward's activation may take.
ACTIVATIONS = {"gelu", "gelu_10", "gelu_accurate", "gelu_fast", "gelu_new", "gelu_python", "gelu_python_tanh",
               "gelu_pytorch_tanh", "hardswish", "laplace", "leaky_relu", "linear", "mish", "prelu", "quick_gelu",
               "relu", "relu2", "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh", "xielu"}
# Activations that are modules with learned parameters of their own, and how many each holds (nn.PReLU:
# one; XIELU: two): a layout of their own.
LEARNED = {"prelu": 1, "xielu": 2}


def feed_forward(config: Mapping) -> tuple[bool, str]:
    """Whether the feed-forward is gated (wi_0, wi_1, wo) rather than plain (wi, wo), as T5Config decides,
    and its activation.

    ``feed_forward_proj`` is "ACT" or "gated-ACT" ("relu" by default; "gated-gelu" for v1.1 and
    Flan-T5, which T5Config runs as gelu_new). T5Config derives ``is_gated_act`` and ``dense_act_fn``
    from it, but a config.json that carries those two keys (as configs saved by transformers do)
    overrides what it derived: they are read here the same way. ``is_gated_act`` is not a typed field
    of T5Config, and T5LayerFF tests it as Python does (``if config.is_gated_act``): any value is taken,
    null, false, 0 and "" as not gated.
    """
    projection = config.get("feed_forward_proj", "relu")
    if not isinstance(projection, str):
        raise ConfigError(f"feed_forward_proj must be a string, got {shown(projection)}")
    parts = projection.split("-")
    if (len(parts) > 1 and parts[0] != "gated") or len(parts) > 2:
        raise ConfigError(f'feed_forward_proj must be "ACT" or "gated-ACT" (e.g. "relu", "gated-gelu"), '
                          f"got {shown(projection)}")
    activation = "gelu_new" if projection == "gated-gelu" else parts[-1]
    activation = config.get("dense_act_fn", activation)
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ConfigError(f"unknown activation {shown(activation)} (transformers knows: {', '.join(sorted(ACTIVATIONS))})")
    gated = bool(config["is_gated_act"]) if "is_gated_act" in config else parts[0] == "gated"
    return gated, activation


def read(config: Mapping) -> dict[str, int]:
    layers = FIELDS.size(config, "num_layers")
    # num_decoder_layers null (the default) means as many as the encoder has.
    decoder = layers if config.get("num_decoder_layers") is None else size(config, "num_decoder_layers", {})
    feed_forward(config)  # the activation must exist; the gate and the activation are the layout's
    return {
        "V": FIELDS.size(config, "vocab_size"), "D": FIELDS.size(config, "d_model"),
        # T5Attention does not require H d_kv = d_model: the inner size is H d_kv, whatever d_model is.
        "H": FIELDS.size(config, "num_heads"), "d_h": FIELDS.size(config, "d_kv"),
        "F": FIELDS.size(config, "d_ff"), "L": layers, "L_d": decoder,
        "B": FIELDS.size(config, "relative_attention_num_buckets"), "C": num_labels(config),
    }


def learned_activation(config: Mapping) -> str:
    """The activation, when it has learned parameters ("" otherwise)."""
    activation = feed_forward(config)[1]
    return activation if activation in LEARNED else ""


# Which of t5.VARIANTS a config asks for: the gated feed-forward, a separate lm_head (tie_word_embeddings
# false, as in every v1.1 and Flan-T5 checkpoint), is_decoder true (which gives T5EncoderModel's stack,
# built from the config as it is, cross-attention blocks), and an activation with learned parameters.
# T5Config pops tie_word_embeddings and reads only whether it is false (any other value, null included,
# is tied); is_decoder is a typed field (true or false, else transformers refuses it).
LAYOUT = Layout((Switch("gated", lambda config: feed_forward(config)[0]),
                 Switch("untied", lambda config: config.get("tie_word_embeddings", True) is False),
                 switch("decoder_stack", "is_decoder"),
                 Switch("activation", learned_activation, ("", *LEARNED))))

# T5Config's fields that set no size (configuration_t5.py, 5.23). classifier_dropout is the classifiers'
# (modeling_t5.py: T5ClassificationHead, T5ForTokenClassification).
CHECKS = validation.fields(
    relative_attention_max_distance="int", dropout_rate=validation.dropout(), layer_norm_epsilon="float",
    initializer_factor=validation.deviation(), use_cache="bool", is_encoder_decoder="bool", pad_token_id="int | None",
    eos_token_id="int | list[int] | None",
    classifier_dropout=validation.dropout("float | int", "ForSequenceClassification", "ForTokenClassification"))

READER = Reader("t5", read, LAYOUT, {"V": "vocab_size", "D": "d_model", "H": "num_heads", "d_h": "d_kv", "F": "d_ff",
                                     "L": "num_layers", "L_d": "num_decoder_layers",
                                     "B": "relative_attention_num_buckets", "C": "num_labels"}, checks=CHECKS)
