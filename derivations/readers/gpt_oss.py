"""gpt-oss (model_type ``gpt_oss``): config.json -> sizes, as GptOssConfig reads them."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Fields, Layout, Reader, alternating, num_labels, padding_index, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, NO_TOKEN_BIAS, SYMBOL_FIELDS, explicit_heads
from .mixtral import TOP_K

# transformers' GptOssConfig defaults (configuration_gpt_oss.py, 5.23): gpt-oss-120b's sizes. attribute_map reads
# num_experts as num_local_experts. head_dim is a field of its own (64 whatever the width); the strict config
# refuses null for it and for num_key_value_heads.
FIELDS = Fields({"vocab_size": 201088, "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 36,
                 "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 128,
                 "num_experts_per_tok": 4}, {"num_local_experts": "num_experts"})


def read(config: Mapping) -> dict[str, int]:
    def get(field: str, minimum: int = 1) -> int:
        return FIELDS.size(config, field, minimum)

    heads, kv_heads, head = explicit_heads(FIELDS, config)
    hidden = get("hidden_size")
    experts, field = get("num_local_experts"), FIELDS.written(config, "num_local_experts")
    active = get("num_experts_per_tok", minimum=0)  # top-0 runs: the experts add nothing
    TOP_K.check({"X_a": active, "X": experts}, {"X_a": "num_experts_per_tok", "X": field})
    vocabulary = get("vocab_size")
    padding_index(config, vocabulary, default=None)
    return {"V": vocabulary, "D": hidden, "H": heads, "K": kv_heads, "d_h": head, "F": get("intermediate_size"),
            "L": get("num_hidden_layers"), "X": experts, "X_a": active, "C": num_labels(config)}


# Biases on q, k, v and o unless attention_bias is false (true by default and in both releases); a tied head; a
# token classifier without bias.
LAYOUT = Layout((switch("no_attention_bias", "attention_bias", True, on=False),
                 switch("tied", "tie_word_embeddings"), NO_TOKEN_BIAS))

# GptOssConfig's fields that set no size (configuration_gpt_oss.py, 5.23). Its experts' activation is their own
# (GptOssExperts' clamped SwiGLU): hidden_act names none. sliding_window: the annotation takes null; the model does
# not run without a window, as Gemma 2's (readers.gemma).
CHECKS = validation.fields(DECODER_CHECKS, hidden_act="str", sliding_window="int", swiglu_alpha="float",
                           swiglu_limit="float", router_aux_loss_coef="float", output_router_logits="bool",
                           layer_types="list[str] | None")

# GptOssConfig: local (128 tokens) and full attention alternate, the first layer local.
READER = Reader("gpt_oss", read, LAYOUT, SYMBOL_FIELDS | {"X": "num_local_experts", "X_a": "num_experts_per_tok"},
                (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD, TOP_K),
                windows=alternating(128), checks=CHECKS)
