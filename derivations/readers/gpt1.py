"""GPT-1 (model_type ``openai-gpt``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, SEQUENCE_SUMMARY, num_labels, summary_type, switch
from .. import validation
from .gpt2 import ALIASES, HEADS_DIVIDE_WIDTH, written
from . import gpt2

# transformers' OpenAIGPTConfig defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 40478, "n_positions": 512, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, written(config, FIELDS))
    return {"V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden,
            "H": heads, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


# Which of gpt1.VARIANTS a config builds: an untied head, and the multiple-choice summary's projection.
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False), SEQUENCE_SUMMARY))

# OpenAIGPTConfig's fields that set no size (configuration_openai.py, 5.23): GPT-2's but three; its activation is
# one of modeling_openai.py's ACT_FNS.
GPT2_ONLY = ("activation_function", "scale_attn_weights", "use_cache", "scale_attn_by_inverse_layer_idx",
             "reorder_and_upcast_attn")
CHECKS = validation.fields(
    {f: c for f, c in gpt2.CHECKS.items() if f not in GPT2_ONLY},
    afn=validation.activation(names=frozenset({"relu", "silu", "gelu", "swish"}),
                              what="must be relu, silu, gelu or swish"),
    # OpenAIGPTModel's forward reads output_hidden_states as a truth value alone (validation.BASE's comparison is
    # the other families').
    output_hidden_states="object")

READER = Reader("openai-gpt", read, LAYOUT, {"V": "vocab_size", "P": "n_positions", "D": "n_embd", "H": "n_head",
                                            "L": "n_layer", "C": "num_labels"}, (HEADS_DIVIDE_WIDTH,),
                check=summary_type, checks=CHECKS)
