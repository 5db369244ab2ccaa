"""StableLM (model_type ``stablelm``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, num_labels, padding_index, shown, switch
from ..rules import divides
from .. import validation
from .llama import DECODER_CHECKS, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS
from .phi import rotary_factor, rotary_part

# transformers' StableLmConfig defaults (configuration_stablelm.py, 5.23): StableLM-3B-4E1T's sizes, as many key/value
# heads as heads (typed int: null refused), a quarter of each head rotated. StableLmAttention's heads are
# hidden_size // num_attention_heads, and it refuses a width they do not divide; it has no head_dim.
FIELDS = Fields({"vocab_size": 50304, "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 32})
ROTARY_FACTOR = 0.25

# The head size is the width over the heads (StableLmAttention reads no head_dim).
FIELD_OF = {**SYMBOL_FIELDS, "d_h": "hidden_size / num_attention_heads"}

HEADS_DIVIDE_WIDTH = divides("H", "D", "`StableLmAttention` requires the heads {H} to divide the width {D}.")


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "hidden_size"), FIELDS.size(config, "num_attention_heads")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    kv_heads = FIELDS.size(config, "num_key_value_heads")  # an int in StableLmConfig: null refused
    KV_HEADS_DIVIDE_HEADS.check({"K": kv_heads, "H": heads}, FIELD_OF)
    head, vocabulary = hidden // heads, FIELDS.size(config, "vocab_size")
    # The attention's heads are hidden_size // num_attention_heads whatever head_dim says, but the rotary embedding
    # reads head_dim (``getattr(config, "head_dim", None) or ...``): another size fails in the forward pass.
    if config.get("head_dim") not in (None, 0, head):
        raise ConfigError(f"head_dim ({shown(config['head_dim'])}) is not hidden_size // num_attention_heads ({head}): "
                          "the rotary embedding would turn heads of another size")
    factor(config)
    padding_index(config, vocabulary, default=None)
    return {"V": vocabulary, "D": hidden, "H": heads, "K": kv_heads, "d_h": head,
            "F": FIELDS.size(config, "intermediate_size"), "L": FIELDS.size(config, "num_hidden_layers"),
            "C": num_labels(config)}


def factor(config: Mapping) -> float:
    """partial_rotary_factor as StableLmConfig reads it (a quarter unless set)."""
    return rotary_factor(config) if ("partial_rotary_factor" in config or "rope_parameters" in config) \
        else ROTARY_FACTOR


def rotary_check(config: Mapping, architecture: str) -> None:
    """The rotary part of a head, checked apart from the sizes (the calculator does not ask for the factor)."""
    rotary_part(read(config)["d_h"], factor(config))


# Which of stablelm.VARIANTS a config builds: biases on q, k and v (use_qkv_bias), a LayerNorm (no bias) of every
# query and key head of its own (qk_layernorm), one norm a layer (use_parallel_residual: the feed-forward reads the
# attention's norm, and there is no post_attention_layernorm), a head tied to the embeddings, a token classifier
# without bias.
LAYOUT = Layout((switch("qkv_bias", "use_qkv_bias"), switch("qk_layernorm", "qk_layernorm"),
                 switch("parallel", "use_parallel_residual"), switch("tied", "tie_word_embeddings"), NO_TOKEN_BIAS))

# StableLmConfig's fields that set no size (configuration_stablelm.py, 5.23).
CHECKS = validation.fields(
    {name: field for name, field in DECODER_CHECKS.items() if name != "rms_norm_eps"}, layer_norm_eps="float",
    hidden_dropout=validation.dropout(), pad_token_id="int | None",
    partial_rotary_factor=validation.Field("int | float"))

READER = Reader("stablelm", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS),
                check=rotary_check, checks=CHECKS)
