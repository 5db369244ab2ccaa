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


@st.composite
def grouped_query(draw: st.DrawFn, model_type: str, *, head_dim: bool = True, **fixed) -> dict:
    """A decoder with grouped-query attention (key/value heads that divide the heads) and a width of whole heads of a
    size rotary embeddings accept; head_dim drawn or left out (never set with ``head_dim`` False, for a config class
    without the field); the tied head, the classifier's bias and the labels drawn or left out; ``fixed`` as given."""
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    config = {"model_type": model_type, "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": heads * draw(head_sizes),
              "intermediate_size": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)), **fixed}
    if head_dim and draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


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
