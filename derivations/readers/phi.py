"""Phi-1, Phi-1.5 and Phi-2 (model_type ``phi``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, shown, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, read_decoder

# transformers' PhiConfig defaults (configuration_phi.py, 5.23): Phi-1's sizes. num_key_value_heads null means as many
# as the heads. PhiConfig has no head_dim field: PhiAttention reads ``getattr(config, "head_dim", hidden_size //
# num_attention_heads)``, so a head_dim in config.json is taken as it is (0 too, which builds no attention).
FIELDS = Fields({"vocab_size": 51200, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
                 "num_attention_heads": 32})

# PhiConfig: partial_rotary_factor 0.5 unless set (at the top level, or in rope_parameters).
ROTARY_FACTOR = 0.5


def rotary_factor(config: Mapping) -> float:
    """The part of each head the rotation turns, as PhiConfig reads it."""
    rope = config.get("rope_parameters")
    if rope is not None and not isinstance(rope, dict):
        raise ConfigError(f"rope_parameters must be an object or null, got {shown(rope)}")
    factor = (rope or {}).get("partial_rotary_factor", config.get("partial_rotary_factor", ROTARY_FACTOR))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) or factor < 0:
        raise ConfigError(f"partial_rotary_factor must be a number from 0, got {shown(factor)}")
    return factor


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        raise ConfigError("head_dim must be an integer when given (PhiAttention reads it as it is), got null")
    values = read_decoder(config, FIELDS, divisible=False, zero_head_dim=False)
    head = values["d_h"]
    rotary_factor(config)
    # qk_layernorm normalizes each query and key head with a LayerNorm of hidden_size // num_attention_heads: a head
    # of another size (head_dim set) fails in the forward pass.
    if config.get("qk_layernorm") is True and head != values["D"] // values["H"]:
        raise ConfigError(f"qk_layernorm normalizes heads of hidden_size // num_attention_heads "
                          f"({values['D'] // values['H']}) coordinates, but head_dim is {head}")
    return values


def rotary_part(head: int, factor: float) -> None:
    """The rotation turns pairs of the first int(d_h partial_rotary_factor) coordinates of each head: an odd number
    of them, or more than the head, fails in the forward pass (the cosines are one longer)."""
    rotated = int(head * factor)
    if rotated % 2 or rotated > head:
        raise ConfigError(f"partial_rotary_factor rotates {rotated} of a head's {head} coordinates: it must be an "
                          "even number, at most the head")


def rotary_check(config: Mapping, architecture: str) -> None:
    """The rotary part of a head, checked apart from the sizes (the calculator does not ask for the factor)."""
    rotary_part(read(config)["d_h"], rotary_factor(config))


# Which of phi.VARIANTS a config builds: a LayerNorm of each query and key head (qk_layernorm), the head's weight tied
# to the embeddings (its bias stays its own), a token classifier without bias.
LAYOUT = Layout((switch("qk_layernorm", "qk_layernorm"), switch("tied", "tie_word_embeddings"), NO_TOKEN_BIAS))

# PhiConfig's fields that set no size (configuration_phi.py, 5.23): LLaMA's, but its norm's epsilon is
# layer_norm_eps, and its dropouts.
CHECKS = validation.fields(
    {name: field for name, field in DECODER_CHECKS.items() if name != "rms_norm_eps"}, layer_norm_eps="float",
    resid_pdrop=validation.dropout(), embd_pdrop=validation.dropout(), pad_token_id="int | None",
    partial_rotary_factor=validation.Field("int | float"))

# LLaMA's reading refuses an odd head (EVEN_HEAD), which Phi's partial rotation would run: a rule the calculator
# applies too.
READER = Reader("phi", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), check=rotary_check,
                checks=CHECKS)
