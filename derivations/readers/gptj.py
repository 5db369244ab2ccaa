"""GPT-J (model_type ``gptj``): config.json -> {symbol name: value}, and the layout it asks for."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, num_labels, shown, size, switch
from ..rules import divides
from .. import validation
from .gpt2 import written

# GPTJConfig.attribute_map: these names, when present, set the field (GPT-2's, under GPT-2's names).
ALIASES = {"n_positions": "max_position_embeddings", "n_embd": "hidden_size", "n_layer": "num_hidden_layers",
           "n_head": "num_attention_heads"}
# transformers' GPTJConfig defaults (configuration_gptj.py, 5.23): GPT-J-6B's sizes. n_inner null means 4 n_embd.
FIELDS = Fields({"vocab_size": 50400, "n_positions": 2048, "n_embd": 4096, "n_layer": 28, "n_head": 16}, ALIASES)

# GPTJAttention raises unless the heads divide the width (q, k, v and out_proj are all D by D).
HEADS_DIVIDE_WIDTH = divides("H", "D", "`GPTJAttention` requires the heads {H} to divide the width {D}.")
FIELD_OF = {"V": "vocab_size", "D": "n_embd", "H": "n_head", "d_h": "n_embd / n_head", "F": "n_inner",
            "L": "n_layer", "C": "num_labels"}


def read(config: Mapping) -> dict[str, int]:
    hidden, heads = FIELDS.size(config, "n_embd"), FIELDS.size(config, "n_head")
    HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, written(config, FIELDS))
    head = hidden // heads
    inner = 4 * hidden if config.get("n_inner") is None else size(config, "n_inner", {})
    FIELDS.size(config, "n_positions")  # the sinusoid table's rows: a buffer, but the model needs them
    return {"V": FIELDS.size(config, "vocab_size"), "D": hidden, "H": heads, "d_h": head, "F": inner,
            "L": FIELDS.size(config, "n_layer"), "C": num_labels(config)}


def rotary_check(config: Mapping, architecture: str) -> None:
    """rotary_dim sizes no parameter, but the rotation turns pairs of coordinates within a head: an odd number of
    them, more than a head, or none (null rotates with the whole width's angles) fails in the forward pass. Checked
    apart from the sizes (the calculator does not ask for rotary_dim), for every class."""
    values = read(config)
    head, heads = values["d_h"], values["H"]
    rotary = config.get("rotary_dim", 64)
    if rotary is None:
        if heads != 1:
            raise ConfigError("rotary_dim null rotates each head with the whole width's angles: the forward pass fails "
                              "unless there is one head")
    elif isinstance(rotary, bool) or not isinstance(rotary, int) or rotary < 1 or rotary % 2 or rotary > head:
        raise ConfigError(f"rotary_dim must be an even number of a head's {head} coordinates, got {shown(rotary)}")


# Which of gptj.VARIANTS a config builds: the head's weight tied to the token embeddings (tie_word_embeddings, false by
# default); its bias stays its own either way.
LAYOUT = Layout((switch("tied", "tie_word_embeddings"),))

# GPTJConfig's fields that set no size (configuration_gptj.py, 5.23).
CHECKS = validation.fields(
    activation_function=validation.activation(), resid_pdrop=validation.dropout(), embd_pdrop=validation.dropout(),
    attn_pdrop=validation.dropout(), layer_norm_epsilon="float", initializer_range=validation.deviation(),
    use_cache="bool", **validation.TOKENS, pad_token_id="int | None",
    # GPTJModel's forward reads output_hidden_states as a truth value alone.
    output_hidden_states="object")

READER = Reader("gptj", read, LAYOUT, FIELD_OF, (HEADS_DIVIDE_WIDTH,), check=rotary_check, checks=CHECKS)
