"""Command R (model_type ``cohere``): LLaMA's reader with CohereConfig's defaults."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, Switch, flag, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, read_decoder

# transformers' CohereConfig defaults (configuration_cohere.py, 5.23): Command R's sizes (c4ai-command-r-v01).
# num_key_value_heads defaults to null, which means as many as the heads. The config has no head_dim field:
# CohereAttention reads getattr(config, "head_dim", hidden_size // num_attention_heads). The heads need not divide
# the width (no check in the config).
FIELDS = Fields({"vocab_size": 256000, "hidden_size": 8192, "intermediate_size": 22528, "num_hidden_layers": 40,
                 "num_attention_heads": 64})

SYMBOL_FIELDS = {f: SYMBOL_FIELDS[f] for f in ("V", "D", "H", "K", "d_h", "F", "L")}


def read(config: Mapping) -> dict[str, int]:
    if "head_dim" in config and config["head_dim"] is None:
        # getattr finds the attribute, None, and the projections cannot be sized.
        raise ConfigError("head_dim must be an integer when given (CohereAttention reads it as it is), got null")
    values = read_decoder(config, FIELDS, divisible=False, zero_head_dim=False)
    values.pop("C")  # no task heads: CohereModel and CohereForCausalLM only
    return values


# Biases on q, k, v and o (attention_bias, false in every release), a LayerNorm of each query and key head
# (use_qk_norm: Command R+), an untied head (tie_word_embeddings is true by default, and in every release).
LAYOUT = Layout((switch("attention_bias", "attention_bias"), Switch("qk_norm", lambda config: config.get("use_qk_norm") is not None
                        and flag(config, "use_qk_norm")),  # null: CohereConfig takes it, read as false
                 switch("untied", "tie_word_embeddings", True, on=False)))

# CohereConfig's fields that set no size (configuration_cohere.py, 5.23): LLaMA's, but the norm's epsilon, with the
# logits' scale (a float the head's output is multiplied by, not a parameter) and the qk norm.
CHECKS = validation.fields({f: c for f, c in DECODER_CHECKS.items() if f != "rms_norm_eps"},
                           # null: the config takes it, a training step fails on it (what transformers refuses, validation's sense).
                           layer_norm_eps="float", logit_scale="float", use_qk_norm="bool | None",
                           attention_dropout=validation.dropout("float | int"))

READER = Reader("cohere", read, LAYOUT, SYMBOL_FIELDS, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD), checks=CHECKS)
