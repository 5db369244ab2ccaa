"""OPT: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 8))
    hidden = heads * draw(st.integers(1, 32))
    vocabulary = draw(st.integers(2, 5000))
    config = {"model_type": "opt", "vocab_size": vocabulary, "hidden_size": hidden, "num_attention_heads": heads,
              "ffn_dim": draw(st.integers(1, 256)), "num_hidden_layers": draw(st.integers(1, 3)),
              "max_position_embeddings": draw(st.integers(1, 2048)), "pad_token_id": draw(st.integers(0, vocabulary - 1))}
    # Token embeddings as wide as the layers (absent, null or the width), or of another width, projected.
    config["word_embed_proj_dim"] = draw(st.one_of(st.none(), st.just(hidden), st.integers(1, 96)))
    maybe_flags(draw, config, "tie_word_embeddings", "do_layer_norm_before", "enable_bias",
                "layer_norm_elementwise_affine", "_remove_final_layer_norm")
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="opt",
    small={"model_type": "opt", "vocab_size": 1000, "hidden_size": 64, "ffn_dim": 96, "num_hidden_layers": 2,
           "num_attention_heads": 4, "max_position_embeddings": 64},
    every_class_on_checkpoints=True,
    # Every class on OPT-350m's config (post-LN, projected), two layers.
    real=[("opt-350m", {"num_hidden_layers": 2})],
    defaults={"num_hidden_layers": 1},
    layouts={"projected": {"word_embed_proj_dim": 32}, "untied": {"tie_word_embeddings": False},
             "projected-untied": {"word_embed_proj_dim": 32, "tie_word_embeddings": False},
             "post-norm": {"do_layer_norm_before": False},
             "final-norm-removed": {"_remove_final_layer_norm": True},
             "no-bias": {"enable_bias": False}, "no-affine": {"layer_norm_elementwise_affine": False},
             "all": {"word_embed_proj_dim": 48, "tie_word_embeddings": False, "do_layer_norm_before": False,
                     "enable_bias": False, "layer_norm_elementwise_affine": False}},
    # transformers 5.23 refuses each (config class or constructor).
    refused=[({"hidden_size": 66}, "not a multiple"),  # OPTAttention raises
             ({"pad_token_id": 1000}, "pad_token_id"),  # nn.Embedding's padding_idx assertion
             ({"do_layer_norm_before": 1}, "do_layer_norm_before"), ({"enable_bias": None}, "enable_bias"),
             ({"_remove_final_layer_norm": "x"}, "_remove_final_layer_norm"),
             ({"word_embed_proj_dim": 64.0}, "word_embed_proj_dim")],
    accepted=[{"word_embed_proj_dim": 0}, {"word_embed_proj_dim": None}, {"pad_token_id": None},
              {"hidden_size": 6, "num_attention_heads": 2}, {"num_labels": 0}],
    configs=configs(),
    examples=30,
    runs=reference.builds_and_runs,
)
