"""GPT-1 (model_type ``openai-gpt``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, SEQUENCE_SUMMARY, num_labels, summary_type, switch
from .gpt2 import ALIASES, HEADS_DIVIDE_WIDTH, written

# transformers' OpenAIGPTConfig defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 40478, "n_positions": 512, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, written(config, FIELDS))
    return {"V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden,
            "H": heads, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


# Which of gpt1.VARIANTS a config builds: an untied head, and the multiple-choice summary's projection.
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False), SEQUENCE_SUMMARY))

READER = Reader("openai-gpt", read, LAYOUT, {"V": "vocab_size", "P": "n_positions", "D": "n_embd", "H": "n_head",
                                            "L": "n_layer", "C": "num_labels"}, (HEADS_DIVIDE_WIDTH,), check=summary_type)
