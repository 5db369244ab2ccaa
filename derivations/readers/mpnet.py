"""MPNet (model_type ``mpnet``): config.json -> {symbol name: value}, and the layout it asks for.

MPNetConfig (configuration_mpnet.py, 5.23) has BERT's sizes but no token types, and one more:
``relative_attention_num_buckets``, the rows of the relative-position bias the encoder holds once for all layers.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import Layout, Reader, num_labels, size, switch
from .. import validation
from . import bert

# transformers' MPNetConfig defaults: a minimal config.json takes these for a missing field.
DEFAULTS = {
    "vocab_size": 30527, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
    "intermediate_size": 3072, "max_position_embeddings": 512, "relative_attention_num_buckets": 32,
}

FIELD_OF = {"V": "vocab_size", "P": "max_position_embeddings", "D": "hidden_size", "H": "num_attention_heads",
            "d_h": "hidden_size / num_attention_heads", "F": "intermediate_size", "L": "num_hidden_layers",
            "B": "relative_attention_num_buckets", "C": "num_labels"}

# MPNetEmbeddings builds both tables with padding_idx=1, whatever pad_token_id says (nn.Embedding refuses a
# padding index outside its table): each needs two rows at least.
PADDING_ROWS = 2


def read(config: Mapping) -> dict[str, int]:
    def get(field: str, minimum: int = 1) -> int:
        return size(config, field, DEFAULTS, minimum)

    hidden, heads = get("hidden_size"), get("num_attention_heads")
    if "embedding_size" not in config:  # MPNetSelfAttention checks the width as BertSelfAttention does
        bert.HEADS_DIVIDE_WIDTH.check({"H": heads, "D": hidden}, FIELD_OF)
    return {
        "V": get("vocab_size", PADDING_ROWS), "P": get("max_position_embeddings", PADDING_ROWS), "D": hidden,
        "H": heads, "d_h": hidden // heads, "F": get("intermediate_size"), "L": get("num_hidden_layers"),
        "B": get("relative_attention_num_buckets"), "C": num_labels(config),
    }


# The one switch: an untied LM head (tie_word_embeddings false). MPNet has no decoder and no cross-attention.
LAYOUT = Layout((switch("untied", "tie_word_embeddings", True, on=False),))

# MPNetConfig's fields that set no size (configuration_mpnet.py, 5.23). pad_token_id indexes nothing MPNet builds
# (its embeddings pad row 1 whatever it says). classifier_dropout is not MPNet's: its heads use hidden_dropout_prob.
CHECKS = validation.fields(
    hidden_act=validation.activation(), hidden_dropout_prob=validation.dropout(),
    attention_probs_dropout_prob=validation.dropout(), initializer_range=validation.deviation(),
    layer_norm_eps="float", pad_token_id="int | None", **validation.TOKENS,
    # MPNetModel's forward reads output_hidden_states as a truth value alone.
    output_hidden_states="object")

READER = Reader("mpnet", read, LAYOUT, FIELD_OF, bert.READER.rules, checks=CHECKS)
