"""Pieces of the random configs the reference tests draw (hypothesis). A helper, not a test module."""

from __future__ import annotations

from hypothesis import strategies as st


def maybe_flags(draw: st.DrawFn, config: dict, *fields: str) -> None:
    """Each flag set to a drawn boolean, or left out of the config (transformers' default)."""
    for field in fields:
        if draw(st.booleans()):
            config[field] = draw(st.booleans())


def maybe_labels(draw: st.DrawFn, config: dict) -> None:
    """num_labels drawn, or left out (transformers' 2)."""
    if draw(st.booleans()):
        config["num_labels"] = draw(st.integers(1, 20))


def bert_sizes(draw: st.DrawFn, model_type: str, *, smallest: int, most_layers: int, most_positions: int) -> dict:
    """A BERT-shaped encoder config (BERT, RoBERTa): heads dividing the width, or, with embedding_size
    present, heads that cover less than the hidden size (each gets the floor of hidden / heads); a
    decoder with or without cross-attention; the LM head tied or not. ``smallest`` is the least
    vocabulary and position table (RoBERTa's padding row must fit both)."""
    heads, head_size = draw(st.integers(1, 16)), draw(st.integers(1, 64))
    config = {
        "model_type": model_type,
        "vocab_size": draw(st.integers(smallest, 60000)),
        "hidden_size": heads * head_size,
        "num_attention_heads": heads,
        "num_hidden_layers": draw(st.integers(1, most_layers)),
        "intermediate_size": draw(st.integers(1, 4096)),
        "max_position_embeddings": draw(st.integers(smallest, most_positions)),
        "type_vocab_size": draw(st.integers(1, 4)),
    }
    if draw(st.booleans()):
        config["is_decoder"] = True
        config["add_cross_attention"] = draw(st.booleans())
    maybe_flags(draw, config, "tie_word_embeddings")
    if draw(st.booleans()):
        config["embedding_size"] = config["hidden_size"]
        config["hidden_size"] += draw(st.integers(0, heads - 1))
    return config


# A head size rotary embeddings accept: even, or 1 (which runs by broadcasting).
head_sizes = st.integers(1, 32).filter(lambda size: size == 1 or size % 2 == 0)


def windows(*fields: str):
    """How a family's configs set their attention windows, as a spec's ``windows``: a function that draws, into a
    config of ``layers`` layers, a sliding_window (or none), and the family's own fields among use_sliding_window,
    max_window_layers, sliding_window_pattern and layer_types."""
    known = {"use_sliding_window", "max_window_layers", "sliding_window_pattern", "layer_types"}
    assert set(fields) <= known, set(fields) - known

    def draw(data: st.DataObject, config: dict, layers: int) -> None:
        config["sliding_window"] = data.draw(st.one_of(st.none(), st.integers(1, 48)), label="sliding_window")
        if "use_sliding_window" in fields:
            config["use_sliding_window"] = data.draw(st.booleans(), label="use_sliding_window")
        if "max_window_layers" in fields:
            config["max_window_layers"] = data.draw(st.integers(0, layers), label="max_window_layers")
        if "sliding_window_pattern" in fields:
            config["sliding_window_pattern"] = data.draw(st.integers(1, 4), label="sliding_window_pattern")
        if "layer_types" in fields and config["sliding_window"] is not None and data.draw(st.booleans(), label="types?"):
            config["layer_types"] = data.draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                                       min_size=layers, max_size=layers), label="layer_types")

    return draw
