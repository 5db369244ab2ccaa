"""GPT-2 (model_type ``gpt2``; GPT-3's sizes too): config.json -> {symbol name: value}, and the layout."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Reader, Fields, Layout, SEQUENCE_SUMMARY, divides, num_labels, size, summary_type, switch

# GPT2Config.attribute_map (OpenAIGPTConfig's is the same): these names, when present, set the field.
ALIASES = {"n_positions": "max_position_embeddings", "n_embd": "hidden_size", "n_layer": "num_hidden_layers",
           "n_head": "num_attention_heads"}
# transformers' GPT2Config defaults: a minimal config.json takes these for a missing field.
FIELDS = Fields({"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}, ALIASES)


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    # n_inner null (the default) means four times the width.
    inner = 4 * hidden if config.get("n_inner") is None else size(config, "n_inner", {})
    return {
        "V": FIELDS.size(config, "vocab_size"), "P": FIELDS.size(config, "n_positions"), "D": hidden, "H": heads,
        # GPT2Attention requires the heads to divide the width (the count does not depend on them).
        "d_h": divides(heads, hidden, FIELDS.written(config, "n_head"), FIELDS.written(config, "n_embd")),
        "F": inner, "L": FIELDS.size(config, "n_layer"), "C": num_labels(config),
    }


# Which of gpt2.VARIANTS a config builds: cross-attention blocks, an untied head, and the
# multiple-choice summary's projection.
LAYOUT = Layout((switch("cross_attention", "add_cross_attention"),
                 switch("untied", "tie_word_embeddings", True, on=False), SEQUENCE_SUMMARY))

READER = Reader("gpt2", read, LAYOUT, {"C": "num_labels", "F": "n_inner"}, check=summary_type)
