"""GPT-1 (model_type ``openai-gpt``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Family, Fields, divides, flag, layout_name, num_labels, sequence_summary, summary_type
from .gpt2 import ALIASES

# transformers' OpenAIGPTConfig defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 40478, "n_positions": 512, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    # Attention requires the heads to divide the width (the count does not depend on them).
    divides(heads, hidden, FIELDS.written(config, "n_head"), FIELDS.written(config, "n_embd"))
    return {"V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden,
            "H": heads, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


def layout(config: Mapping) -> str:
    """Which of gpt1.VARIANTS the config builds."""
    return layout_name(untied=not flag(config, "tie_word_embeddings", default=True), summary=sequence_summary(config))


FAMILY = Family("openai-gpt", "gpt1", read, layout, {"C": "num_labels"}, check=summary_type)
