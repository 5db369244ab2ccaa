"""StableLM (model_type ``stablelm``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, switch
from ..rules import divides
from .. import validation
from .llama import DECODER_CHECKS, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, read_decoder
from .phi import rotary_factor

# transformers' StableLmConfig defaults (configuration_stablelm.py, 5.23): StableLM-3B-4E1T's sizes, as many key/value
# heads as heads (typed int: null refused), a quarter of each head rotated. StableLmAttention's heads are
# hidden_size // num_attention_heads, and it refuses a width they do not divide; it has no head_dim.
FIELDS = Fields({"vocab_size": 50304, "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 32})
ROTARY_FACTOR = 0.25

HEADS_DIVIDE_WIDTH = divides("H", "D", "`StableLmAttention` requires the heads {H} to divide the width {D}.")


def read(config: Mapping) -> dict[str, int]:
    HEADS_DIVIDE_WIDTH.check({"H": FIELDS.size(config, "num_attention_heads"), "D": FIELDS.size(config, "hidden_size")},
                             SYMBOL_FIELDS)
    values = read_decoder({k: v for k, v in config.items() if k != "head_dim"}, FIELDS, divisible=False,
                          zero_head_dim=False)
    head = values["d_h"]
    # The attention's heads are hidden_size // num_attention_heads whatever head_dim says, but the rotary embedding
    # reads head_dim (``getattr(config, "head_dim", None) or ...``): another size fails in the forward pass.
    if config.get("head_dim") not in (None, 0, head):
        raise ConfigError(f"head_dim ({config['head_dim']}) is not hidden_size // num_attention_heads ({head}): the "
                          "rotary embedding would turn heads of another size")
    factor = rotary_factor(config) if ("partial_rotary_factor" in config or "rope_parameters" in config) \
        else ROTARY_FACTOR
    rotated = int(head * factor)
    if rotated % 2 or rotated > head:
        raise ConfigError(f"partial_rotary_factor rotates {rotated} of a head's {head} coordinates: it must be an "
                          "even number, at most the head")
    return values


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

READER = Reader("stablelm", read, LAYOUT, SYMBOL_FIELDS, (HEADS_DIVIDE_WIDTH, KV_HEADS_DIVIDE_HEADS), checks=CHECKS)
