"""ModernBERT (model_type ``modernbert``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, num_labels, padding_index, shown, switch
from ..rules import divides, even_or_one
from .. import validation

# transformers' ModernBertConfig defaults (5.23, configuration_modernbert.py: ModernBERT-base's sizes). It has no
# attribute_map.
FIELDS = Fields({"vocab_size": 50368, "hidden_size": 768, "intermediate_size": 1152, "num_hidden_layers": 22,
                 "num_attention_heads": 12})

# ModernBertAttention raises unless the heads divide the width (the count does not depend on them).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`ModernBertAttention` requires the heads {H} to divide the width {D}.")
# The rotary embedding turns pairs of coordinates across the whole head: an odd head size above 1 builds a model whose
# forward fails on the shapes (a head of 1 runs, by broadcasting).
EVEN_HEAD = even_or_one("d_h", "The head size {d_h} must be even (or 1): rotary embeddings turn pairs of "
                               "coordinates.", "the head size ({d_h}) must be even for rotary position embeddings")
FIELD_OF = {"V": "vocab_size", "D": "hidden_size", "H": "num_attention_heads",
            "d_h": "hidden_size / num_attention_heads", "F": "intermediate_size", "L": "num_hidden_layers",
            "C": "num_labels"}


def read(config: Mapping) -> dict[str, int]:
    hidden, heads, vocabulary = (FIELDS.size(config, name) for name in
                                 ("hidden_size", "num_attention_heads", "vocab_size"))
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    EVEN_HEAD.check({"d_h": hidden // heads})
    # nn.Embedding(V, D, padding_idx=pad_token_id) refuses an index outside the table (50283 by default).
    padding_index(config, vocabulary, default=50283)
    layers = FIELDS.size(config, "num_hidden_layers")
    # Each layer's attention reads its type from layer_types (sliding or full: the same tensors either way); the
    # config class refuses a list of another length or with another type. Without one, it makes one from
    # global_attn_every_n_layers (layer i is full where i is a multiple of it), which must not be 0.
    types = config.get("layer_types")
    if types is not None and (not isinstance(types, list) or len(types) != layers
                              or not all(t in ("sliding_attention", "full_attention") for t in types)):
        raise ConfigError(f"layer_types must list {layers} entries, each 'sliding_attention' or 'full_attention', "
                          f"got {shown(types)}")
    every = config.get("global_attn_every_n_layers", 3)
    if types is None and (not isinstance(every, (int, float)) or every == 0):  # true is 1 to Python, false 0
        raise ConfigError(f"global_attn_every_n_layers must be a non-zero number, got {shown(every)}")
    return {"V": vocabulary, "D": hidden, "H": heads, "d_h": hidden // heads,
            "F": FIELDS.size(config, "intermediate_size"), "L": layers, "C": num_labels(config)}


# Which of modernbert.VARIANTS a config builds: a bias on the attention's Wqkv and Wo (attention_bias), on the
# feed-forward's Wi and Wo (mlp_bias), on every LayerNorm (norm_bias), on the prediction head's dense map
# (classifier_bias); none on the masked-LM decoder (decoder_bias false, true by default); an untied decoder.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), switch("mlp_bias", "mlp_bias"),
                 switch("norm_bias", "norm_bias"), switch("classifier_bias", "classifier_bias"),
                 switch("no_decoder_bias", "decoder_bias", True, on=False),
                 switch("untied", "tie_word_embeddings", True, on=False)))

# ModernBertConfig's fields that set no size (configuration_modernbert.py, 5.23). The prediction head's activation
# is built by every class but the bare model; classifier_dropout by the task classes.
_HEADED = ("ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
           "ForMultipleChoice")
CHECKS = validation.fields(
    hidden_activation=validation.activation(), max_position_embeddings="int",
    initializer_range=validation.deviation(), initializer_cutoff_factor="float", norm_eps="float",
    **validation.TOKENS, cls_token_id="int | None", sep_token_id="int | None",
    attention_dropout=validation.dropout(), local_attention="int", embedding_dropout=validation.dropout(),
    mlp_dropout=validation.dropout(),
    classifier_activation=validation.Field("str", among=validation.ACTIVATIONS, classes=_HEADED,
                                           what="must name an activation it knows"),
    classifier_dropout=validation.dropout("float | int", *_HEADED[1:]), deterministic_flash_attn="bool",
    sparse_prediction="bool", sparse_pred_ignore_index="int", rope_parameters="dict | None",
    # The rotary bases of the global and the local layers, under the names 4.x's configs give them (the published
    # checkpoints'): the rotary embedding raises each to a power as the model is built.
    global_rope_theta=validation.ROPE_THETA, local_rope_theta=validation.ROPE_THETA)

def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
    """Each layer's attention window, as ModernBertAttention reads its type (layer_types, else every
    global_attn_every_n_layers-th layer full, from the first): a sliding layer attends to ``sliding_window =
    local_attention // 2`` tokens on either side (it keeps no cache: only the forward's masks read them)."""
    types = config.get("layer_types")
    every = config.get("global_attn_every_n_layers", 3)
    window = config.get("local_attention", 128) // 2
    return tuple(window if (types[i] == "sliding_attention" if types is not None else bool(i % every)) else None
                 for i in range(layers))


READER = Reader("modernbert", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH, EVEN_HEAD), checks=CHECKS,
                encoder_windows=windows)
