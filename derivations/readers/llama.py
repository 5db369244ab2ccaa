"""LLaMA (model_type ``llama``): config.json -> {symbol name: value}, and the layout it asks for.

The readers of Mistral and Mixtral (readers.mistral, readers.mixtral) are this one with their config
classes' defaults: :func:`read_decoder` and :func:`tied_layout` are shared by the three.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Fields, Layout, Switch, flag, num_labels, padding_index, shown, switch
from ..rules import divides, even_or_one
from .. import validation

# transformers' LlamaConfig defaults (configuration_llama.py, 5.23): a minimal config.json takes these.
# num_key_value_heads and head_dim default to null: the heads, and hidden_size // num_attention_heads.
FIELDS = Fields({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                 "num_attention_heads": 32})

# Which config field sets each size (Mixtral adds its experts).
SYMBOL_FIELDS = {"V": "vocab_size", "D": "hidden_size", "H": "num_attention_heads", "K": "num_key_value_heads",
                 "d_h": "head_dim", "F": "intermediate_size", "L": "num_hidden_layers", "C": "num_labels"}

# What transformers requires of the sizes (read_decoder checks them). Mistral and Mixtral share the last two; their
# configs take the floor of the width over the heads.
HEADS_DIVIDE_WIDTH = divides("H", "D", "`LlamaConfig` requires the heads {H} to divide the width {D}, even with "
                                       "`head_dim` set.")
# transformers builds K that does not divide H (or exceeds it), but the attention cannot run: repeat_kv gives each
# key/value head H // K query heads, and the shapes no longer match.
KV_HEADS_DIVIDE_HEADS = divides("K", "H", "The key/value heads {K} must divide the heads {H}: transformers builds "
                                          "other values, but the attention cannot run.")
# Rotary embeddings rotate pairs of coordinates across the whole head (these classes ignore partial_rotary_factor):
# an odd head size above 1 is refused by the config's RoPE check, or builds a model whose forward pass fails on the
# shapes. A head of 1 runs, by broadcasting.
EVEN_HEAD = even_or_one("d_h", "The head size {d_h} must be even (or 1): rotary embeddings turn pairs of "
                               "coordinates.", "the head size ({d_h}) must be even for rotary position embeddings")


def read_decoder(config: Mapping, fields: Fields, *, divisible: bool, zero_head_dim: bool,
                 null_kv_heads: bool = False) -> dict[str, int]:
    """The sizes of a LLaMA-style decoder, read as transformers 5.23 reads them.

    ``divisible``: the config class refuses a hidden size that is not a multiple of the heads, even with
    head_dim set (LlamaConfig.validate_architecture); Mistral's and Mixtral's take the floor.
    ``zero_head_dim``: the attention reads head_dim 0 as unset (MistralAttention and MixtralAttention:
    ``config.head_dim or hidden_size // num_attention_heads``); LlamaAttention takes it as it is.
    ``null_kv_heads``: num_key_value_heads null means as many as the heads although the field has a default
    (Qwen2Config: ``int | None = 32``, and None becomes the heads).
    """
    def get(field: str) -> int:
        return fields.size(config, field)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    if divisible:
        HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, SYMBOL_FIELDS)
    # null means as many key/value heads as query heads where the field may be null (LlamaConfig: int | None);
    # MistralConfig and MixtralConfig type it int (default 8), and refuse null.
    if config.get("num_key_value_heads", 0) is None and "num_key_value_heads" in fields.defaults and not null_kv_heads:
        raise ConfigError("num_key_value_heads must be an integer, got null")
    kv_heads = heads if config.get("num_key_value_heads", fields.defaults.get("num_key_value_heads")) is None \
        else get("num_key_value_heads")
    KV_HEADS_DIVIDE_HEADS.check({"K": kv_heads, "H": heads}, SYMBOL_FIELDS)
    head_dim = config.get("head_dim")
    if head_dim is not None and (isinstance(head_dim, bool) or not isinstance(head_dim, int)):
        raise ConfigError(f"head_dim must be an integer or null, got {shown(head_dim)}")
    if head_dim is None or (head_dim == 0 and zero_head_dim):
        head = hidden // heads
        if head == 0:
            raise ConfigError(f"hidden_size ({hidden}) is smaller than num_attention_heads ({heads}): a head size of 0")
    else:
        head = fields.size(config, "head_dim")  # 0 and negatives refused: no attention to build
    EVEN_HEAD.check({"d_h": head})
    padding_index(config, vocabulary, default=None)
    return {"V": vocabulary, "D": hidden, "H": heads, "K": kv_heads, "d_h": head, "F": get("intermediate_size"),
            "L": get("num_hidden_layers"), "C": num_labels(config)}


def read(config: Mapping) -> dict[str, int]:
    return read_decoder(config, FIELDS, divisible=True, zero_head_dim=False)


def token_bias(config: Mapping) -> bool:
    """GenericForTokenClassification gives its score a bias unless the config says
    token_classification_bias false (read with getattr, default true)."""
    return flag(config, "token_classification_bias", default=True)


TIED = switch("tied", "tie_word_embeddings")
NO_TOKEN_BIAS = Switch("no_token_bias", lambda config: not token_bias(config))

# Which of llama.VARIANTS a config builds: biases on q, k, v, o (attention_bias) and on the three
# feed-forward maps (mlp_bias), a head tied to the embeddings, a token classifier without bias.
LAYOUT = Layout((switch("attention_bias", "attention_bias"), switch("mlp_bias", "mlp_bias"), TIED, NO_TOKEN_BIAS))
# The layouts of Mistral and Mixtral, which have no bias options: a tied head, a token classifier without bias.
TIED_LAYOUT = Layout((TIED, NO_TOKEN_BIAS))

# LlamaConfig's fields that set no size, annotated as configuration_llama.py annotates them (5.23): what its strict
# dataclass refuses is said, not refused (derivations.validation). Mistral's, Mixtral's and Qwen's classes have the
# same, LlamaConfig's bounds on initializer_range apart.
DECODER_CHECKS = validation.fields(
    hidden_act=validation.activation(), max_position_embeddings="int", initializer_range=validation.deviation(),
    rms_norm_eps="float", use_cache="bool", **validation.TOKENS, **validation.ROTARY,
    attention_dropout=validation.dropout())
CHECKS = validation.fields(DECODER_CHECKS, pretraining_tp="int | None",
                           # LlamaConfig: interval(min=0.0, max=1.0)(default=0.02) (utils/type_validators.py, interval)
                           initializer_range=validation.interval("float", 0.0, 1.0, "LlamaConfig"),
                           # The annotation takes null; a training step does not (functional dropout compares it).
                           attention_dropout=validation.dropout("int | float"))

READER = Reader("llama", read, LAYOUT, SYMBOL_FIELDS, (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS, EVEN_HEAD),
                checks=CHECKS)


def explicit_heads(fields: Fields, config: Mapping) -> tuple[int, int, int]:
    """The heads, key/value heads and head size of a config whose head_dim is a field of its own, which the strict
    config types int (gpt-oss, Llama 4): null refused for either, the key/value heads dividing the heads (else the
    attention cannot run), the head size even."""
    for field in ("num_key_value_heads", "head_dim"):
        if field in config and config[field] is None:
            raise ConfigError(f"{field} must be an integer, got null")
    heads, kv_heads, head = (fields.size(config, field) for field in
                             ("num_attention_heads", "num_key_value_heads", "head_dim"))
    KV_HEADS_DIVIDE_HEADS.check({"K": kv_heads, "H": heads}, SYMBOL_FIELDS)
    EVEN_HEAD.check({"d_h": head})
    return heads, kv_heads, head

