"""BERT (model_type ``bert``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Reader, Layout, Switch, flag, head_size, num_labels, padding_index, size, switch

# transformers' BertConfig defaults: a minimal config.json takes these for a missing field.
DEFAULTS = {
    "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
}


def read(config: Mapping) -> dict[str, int]:
    def get(field: str) -> int:
        return size(config, field, DEFAULTS)

    hidden, heads, vocabulary = get("hidden_size"), get("num_attention_heads"), get("vocab_size")
    padding_index(config, vocabulary, default=0)
    flag(config, "is_decoder")
    return {
        "V": vocabulary, "P": get("max_position_embeddings"), "T": get("type_vocab_size"),
        "D": hidden, "H": heads, "d_h": head_size(config, hidden, heads),
        "F": get("intermediate_size"), "L": get("num_hidden_layers"), "C": num_labels(config),
    }


def cross_attention(config: Mapping) -> bool:
    """A decoder layer with cross-attention (add_cross_attention), which needs is_decoder."""
    cross = flag(config, "add_cross_attention")
    if cross and not flag(config, "is_decoder"):
        # BertLayer raises the same: cross-attention needs a decoder.
        raise ConfigError("add_cross_attention needs is_decoder: true")
    return cross


# Which of bert.VARIANTS a config builds: cross-attention (a decoder) and an untied LM head.
LAYOUT = Layout((Switch("cross_attention", cross_attention), switch("untied", "tie_word_embeddings", True, on=False)))

READER = Reader("bert", read, LAYOUT, {"C": "num_labels", "d_h": "hidden_size / num_attention_heads"})
