"""DeBERTa-v2 and -v3 (model_type ``deberta-v2``): config.json -> {symbol name: value}, and the layout it asks for.

Most of what DeBERTa-v2's modules hold depends on fields DebertaV2Config does not declare, which the modules read with
``getattr(config, name, default)`` (modeling_deberta_v2.py, 5.23): ``embedding_size``, ``share_att_key``,
``position_buckets``, ``norm_rel_ebd``, ``conv_kernel_size``, ``conv_groups``, ``attention_head_size``; a config.json
that sets them carries them through. The reader reads them with the same defaults.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, flag, num_labels, padding_index, shown
from ..rules import divides
from .. import validation

# DebertaV2Config's defaults (5.23, configuration_deberta_v2.py): deberta-v2-xlarge's widths, but neither its
# relative attention nor its convolution (relative_attention false, no conv_kernel_size).
FIELDS = Fields({
    "vocab_size": 128100, "hidden_size": 1536, "num_hidden_layers": 24, "num_attention_heads": 24,
    "intermediate_size": 6144, "max_position_embeddings": 512, "type_vocab_size": 0,
})

FIELD_OF = {"V": "vocab_size", "E": "embedding_size", "P": "max_position_embeddings", "T": "type_vocab_size",
            "D": "hidden_size", "H": "num_attention_heads", "d_h": "attention_head_size", "F": "intermediate_size",
            "L": "num_hidden_layers", "C": "num_labels", "P_r": "position_buckets", "k_c": "conv_kernel_size",
            "D_g": "hidden_size / conv_groups", "n_abs": "position_biased_input", "n_c2p": "pos_att_type",
            "n_p2c": "pos_att_type", "n_sh": "share_att_key"}

# DisentangledSelfAttention raises unless the heads divide the width (whatever attention_head_size says).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`DisentangledSelfAttention` requires the heads {H} to divide the width {D}.")


def _integer(config: Mapping, field: str, default: int) -> int:
    value = config.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field} must be an integer, got {shown(value)}")
    return value


def position_types(config: Mapping) -> list[str]:
    """pos_att_type as DebertaV2Config keeps it: a string "p2c|c2p" is lowercased and split at "|"; a list as is."""
    kinds = config.get("pos_att_type")
    if kinds is None:
        return []
    if isinstance(kinds, str):
        return [kind.strip() for kind in kinds.lower().split("|")]
    if not isinstance(kinds, list) or not all(isinstance(kind, str) for kind in kinds):
        raise ConfigError(f"pos_att_type must be a string or a list of strings, got {shown(kinds)}")
    return kinds


def relative_span(config: Mapping) -> int:
    """The relative distances one side of zero (the table has twice as many rows): position_buckets where positive,
    else max_relative_positions where at least 1, else max_position_embeddings; 0 without relative_attention."""
    if not flag(config, "relative_attention"):
        return 0
    buckets = _integer(config, "position_buckets", -1)
    if buckets > 0:
        return buckets
    span = _integer(config, "max_relative_positions", -1)
    return span if span >= 1 else FIELDS.size(config, "max_position_embeddings")


def truthy(config: Mapping, field: str) -> bool:
    """A switch DebertaV2Config does not declare, which the layers read with getattr and test for truth
    (share_att_key): a number is taken as Python takes it."""
    value = config.get(field, False)
    if isinstance(value, (list, dict)):
        raise ConfigError(f"{field} must be true or false, got {shown(value)}")
    return bool(value)  # a string too, as Python tests it: "false" is true


def embedding_size(config: Mapping) -> int:
    """getattr(config, "embedding_size", hidden_size): a config.json may set it; null means the width."""
    return FIELDS.size(config, "hidden_size") if config.get("embedding_size") is None else \
        FIELDS.size(config, "embedding_size")


def norms_relative(config: Mapping) -> bool:
    """norm_rel_ebd ("none" by default): a LayerNorm of the relative table where it names "layer_norm"."""
    kinds = config.get("norm_rel_ebd", "none")
    if not isinstance(kinds, str):
        raise ConfigError(f"norm_rel_ebd must be a string, got {shown(kinds)}")
    return "layer_norm" in [kind.strip() for kind in kinds.lower().split("|")]


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return FIELDS.size(config, field)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    # nn.Embedding(V, E, padding_idx=pad_token_id) refuses an index outside the table.
    padding_index(config, vocabulary, default=0)
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    head_size = FIELDS.size(config, "attention_head_size") if "attention_head_size" in config else hidden // heads
    relative, kinds, shared = flag(config, "relative_attention"), position_types(config), truthy(config, "share_att_key")
    kernel, groups = _integer(config, "conv_kernel_size", 0), _integer(config, "conv_groups", 1)
    if kernel > 0 and (groups < 1 or hidden % groups):
        # nn.Conv1d refuses it as the model is built.
        raise ConfigError(f"conv_groups ({groups}) must be a positive divisor of hidden_size ({hidden})")
    return {
        "V": vocabulary, "E": embedding_size(config), "P": get("max_position_embeddings"),
        "T": FIELDS.size(config, "type_vocab_size", minimum=0), "D": hidden, "H": heads, "d_h": head_size,
        "F": get("intermediate_size"), "L": get("num_hidden_layers"), "C": num_labels(config),
        "P_r": relative_span(config), "k_c": max(kernel, 0), "D_g": hidden // groups if groups >= 1 else hidden,
        "n_abs": int(flag(config, "position_biased_input", default=True)),
        "n_c2p": int(relative and "c2p" in kinds), "n_p2c": int(relative and "p2c" in kinds),
        "n_sh": int(relative and shared),
    }


def head(config: Mapping) -> str:
    """DebertaV2ForMaskedLM's head: the legacy one (legacy true, the default), tied to the word embeddings or not
    (tie_word_embeddings), or DebertaV2OnlyMLMHead (legacy false), which multiplies by the word table directly."""
    if not flag(config, "legacy", default=True):
        return "lm_predictions"
    return "" if flag(config, "tie_word_embeddings", default=True) else "untied"


# Which of deberta_v2.VARIANTS a config builds: the convolution beside the first layer, the relative table without
# its LayerNorm, the projection from E to D, and the masked-LM head. (What else a config switches, the absolute position
# table, the relative scores and their maps, is counted by the sizes n_abs, n_c2p, n_p2c, n_sh and P_r.)
LAYOUT = Layout((Switch("conv", lambda config: _integer(config, "conv_kernel_size", 0) > 0),
                 # Inverted, so that the plain layout is the released checkpoints' (the table's LayerNorm in each).
                 Switch("no_rel_norm", lambda config: not norms_relative(config)),
                 Switch("projected", lambda config: embedding_size(config) != FIELDS.size(config, "hidden_size")),
                 Switch("head", head, ("", "untied", "lm_predictions"))))


def check(config: Mapping, architecture: str) -> None:
    """ContextPooler (the sequence and multiple-choice classifiers') is pooler_hidden_size wide, and reads the
    hidden states: transformers builds a pooler of another width and fails in the forward."""
    if architecture not in ("DebertaV2ForSequenceClassification", "DebertaV2ForMultipleChoice"):
        return
    width = config.get("pooler_hidden_size", FIELDS.size(config, "hidden_size"))
    if width != FIELDS.size(config, "hidden_size"):
        raise ConfigError(f"{architecture} needs pooler_hidden_size ({shown(width)}) equal to hidden_size")


# DebertaV2Config's fields that set no size (configuration_deberta_v2.py, 5.23).
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout(),
    attention_probs_dropout_prob=validation.dropout(), initializer_range=validation.deviation(),
    layer_norm_eps="float", relative_attention="bool", max_relative_positions="int", position_biased_input="bool",
    pos_att_type="str | list[str] | None", pooler_dropout="float | int", pooler_hidden_act="str",
    legacy="bool", **validation.TOKENS,
    # The model's forward reads output_hidden_states as a truth value alone.
    output_hidden_states="object")

READER = Reader("deberta-v2", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), check=check,
                zero=frozenset({"T", "P_r", "k_c", "n_abs", "n_c2p", "n_p2c", "n_sh"}), checks=CHECKS)
