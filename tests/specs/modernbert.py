"""ModernBERT: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

import reference
from spec import Spec
from strategies import maybe_flags, maybe_labels


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 8))
    head = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))  # even, or 1: rotary embeddings turn pairs
    vocabulary = draw(st.integers(1, 5000))
    config = {"model_type": "modernbert", "vocab_size": vocabulary, "hidden_size": heads * head,
              "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 4)), "pad_token_id": draw(st.integers(0, vocabulary - 1))}
    maybe_flags(draw, config, "attention_bias", "mlp_bias", "norm_bias", "classifier_bias", "decoder_bias",
                "tie_word_embeddings")
    maybe_labels(draw, config)
    # Which layers slide, and their window (sliding_window = local_attention // 2), short enough for the drawn lengths
    # to reach it: the forward builds the sliding mask then, and the sliding layers add it to their scores.
    if draw(st.booleans()):
        config["local_attention"] = draw(st.integers(1, 48))
    layers = config["num_hidden_layers"]
    kind = draw(st.sampled_from(["default", "every", "types"]))
    if kind == "every":
        config["global_attn_every_n_layers"] = draw(st.integers(1, 3))
    elif kind == "types":
        config["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                              min_size=layers, max_size=layers))
    return config


def builds_and_runs(config) -> bool:
    """Whether transformers builds ModernBertForMaskedLM from the config (real weights, on the CPU) and runs one
    forward pass on it."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = reference.build("ModernBertForMaskedLM", config, "cpu")
            with reference.torch.no_grad():
                model(reference.torch.tensor([[1, 2, 3]]))
    except Exception:
        return False
    return True


SPEC = Spec(
    family="modernbert",
    small={"model_type": "modernbert", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
           "num_hidden_layers": 2, "num_attention_heads": 4, "pad_token_id": 0},
    # Every class on ModernBERT-large's config, with four layers (one global, then sliding ones).
    real=[("modernbert-large", {"num_hidden_layers": 4})],
    defaults={"num_hidden_layers": 1},
    layouts={"attention-bias": {"attention_bias": True}, "mlp-bias": {"mlp_bias": True},
             "norm-bias": {"norm_bias": True}, "classifier-bias": {"classifier_bias": True},
             "no-decoder-bias": {"decoder_bias": False}, "untied": {"tie_word_embeddings": False},
             "untied-no-decoder-bias": {"tie_word_embeddings": False, "decoder_bias": False},
             "all": {"attention_bias": True, "mlp_bias": True, "norm_bias": True, "classifier_bias": True},
             "one-layer": {"num_hidden_layers": 1}},
    # transformers 5.23 refuses each (config class or constructor) or builds a model whose forward fails.
    refused=[({"hidden_size": 66}, "not a multiple"),  # ModernBertAttention raises
             ({"hidden_size": 56, "num_attention_heads": 8}, "head size"),  # 7: the rotary embedding's shapes
             ({"layer_types": ["full_attention"]}, "layer_types"),  # the config's validate_layer_type
             ({"global_attn_every_n_layers": 0}, "global_attn_every_n_layers"),  # i % 0
             ({"attention_bias": 1}, "attention_bias"), ({"norm_bias": None}, "norm_bias"),
             ({"pad_token_id": 1000}, "pad_token_id")],  # nn.Embedding's padding_idx assertion
    accepted=[{"hidden_size": 8, "num_attention_heads": 8}, {"num_labels": 0}, {"global_attn_every_n_layers": True},
              {"layer_types": ["full_attention", "full_attention"]}],
    configs=configs(),
    examples=30,
    # The multiple-choice scorer pools by the attention mask (classifier_pooling "mean", as the checkpoints set it):
    # it needs one, and its values (item() on the meta device fails).
    data_dependent=("ModernBertForMultipleChoice",),
    masked=("ModernBertForMultipleChoice",),
    runs=builds_and_runs,
)
