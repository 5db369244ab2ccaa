"""GPT-1 (model_type ``openai-gpt``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, SEQUENCE_SUMMARY, divides, num_labels, summary_type, switch
from .gpt2 import ALIASES

# transformers' OpenAIGPTConfig defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 40478, "n_positions": 512, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    # Attention requires the heads to divide the width (the count does not depend on them).
    divides(heads, hidden, FIELDS.written(config, "n_head"), FIELDS.written(config, "n_embd"))
    return {"V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden,
            "H": heads, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


# Which of gpt1.VARIANTS a config builds: an untied head, and the multiple-choice summary's projection.
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False), SEQUENCE_SUMMARY))

READER = Reader("openai-gpt", read, LAYOUT, {"C": "num_labels"}, check=summary_type)
