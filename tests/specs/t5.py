"""T5: what the reference harness checks (tests/test_reference_families.py), with T5's own check (its head, as
transformers 5.x builds it from a config and as a checkpoint loads it). What only T5 has is in
tests/test_reference_t5.py, which tells the story of that head."""

from collections.abc import Mapping

from hypothesis import strategies as st

import reference
from derivations import registry
from derivations.symbols import D, V
from spec import Spec

torch = reference.torch

# T5WithLMHeadModel is the name old configs carry; transformers 5.x has no class of that name and
# builds T5ForConditionalGeneration for them (reference.VARIANTS maps it so).
GENERATION = {"T5ForConditionalGeneration", "T5WithLMHeadModel"}

TINY = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "vocab_size": 100, "d_model": 16,
        "d_kv": 4, "num_heads": 3, "d_ff": 20, "num_layers": 2, "num_decoder_layers": 3,
        "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}


def untie(model: torch.nn.Module) -> None:
    """What loading a checkpoint with an lm_head of its own does to a model built from the config: the
    lm_head gets a weight of its own; nothing else changes (test_loading_a_v1_1_checkpoint shows it)."""
    model.lm_head.weight = torch.nn.Parameter(torch.empty_like(model.lm_head.weight))


def check(architecture: str, config: Mapping) -> None:
    """The derivation equals transformers, total and node by node. For a config with
    tie_word_embeddings false and a class with an lm_head: first the tied derivation against the model
    as transformers 5.x builds it from the config, then the untied derivation against that model with
    its lm_head untied as loading the checkpoint unties it."""
    if not (architecture in GENERATION and config.get("tie_word_embeddings") is False):
        reference.check(architecture, config)
        return
    resolved = registry.resolve(config, architecture)
    model = reference.build(architecture, config)
    assert model.config.tie_word_embeddings is True and model.config.scale_decoder_outputs is False
    assert model.lm_head.weight is model.shared.weight  # forced tied when built from the config
    tied = registry.resolve({**config, "tie_word_embeddings": True}, architecture)
    reference.compare(tied.part, tied.values, model)
    assert resolved.total - tied.total == resolved.values[V] * resolved.values[D]
    untie(model)
    reference.compare(resolved.part, resolved.values, model)


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """Head size, heads and width drawn apart (so that H d_kv is seldom d_model), decoders as deep as the encoder
    or not, either feed-forward, activations with learned parameters or without, the head tied or not."""
    config = {"model_type": "t5", "vocab_size": draw(st.integers(1, 3000)), "d_model": draw(st.integers(1, 64)),
              "d_kv": draw(st.integers(1, 16)), "num_heads": draw(st.integers(1, 8)),
              "d_ff": draw(st.integers(1, 128)), "num_layers": draw(st.integers(1, 3)),
              "num_decoder_layers": draw(st.one_of(st.none(), st.integers(1, 3))),
              "relative_attention_num_buckets": draw(st.integers(1, 40)),
              "feed_forward_proj": draw(st.sampled_from(["relu", "gated-gelu", "gelu", "gated-silu", "prelu",
                                                          "gated-xielu"])),
              "num_labels": draw(st.integers(1, 5))}
    if draw(st.booleans()):
        config["tie_word_embeddings"] = draw(st.sampled_from([True, False, None]))
    if draw(st.booleans()):
        config["is_decoder"] = draw(st.booleans())
    return config


# Over TINY with a plain feed-forward, the head tied and three labels.
LAYOUTS = [
    {}, {"feed_forward_proj": "gated-gelu"}, {"feed_forward_proj": "gated-silu"}, {"feed_forward_proj": "silu"},
    # Keys that T5Config derives from feed_forward_proj override it when a config.json carries them.
    {"feed_forward_proj": "relu", "is_gated_act": True}, {"feed_forward_proj": "gated-gelu", "is_gated_act": False},
    # is_gated_act is not a typed field: transformers takes any value, and T5LayerFF tests its truth.
    {"feed_forward_proj": "gated-gelu", "is_gated_act": None}, {"is_gated_act": "yes"}, {"is_gated_act": 0},
    # Activations with learned parameters of their own, one module per feed-forward.
    {"feed_forward_proj": "prelu"}, {"feed_forward_proj": "gated-prelu"}, {"dense_act_fn": "xielu"},
    {"feed_forward_proj": "gated-gelu", "dense_act_fn": "xielu", "tie_word_embeddings": False, "is_decoder": True},
    # T5Config pops tie_word_embeddings and asks only whether it is false: anything else ties.
    {"tie_word_embeddings": False}, {"tie_word_embeddings": True}, {"tie_word_embeddings": None},
    {"tie_word_embeddings": "no"}, {"is_decoder": True},
    {"feed_forward_proj": "gated-gelu", "tie_word_embeddings": False, "is_decoder": True},
    {"num_decoder_layers": None}, {"hidden_size": 24, "num_attention_heads": 2, "head_dim": 5},
]

SPEC = Spec(
    family="t5",
    small=TINY | {"feed_forward_proj": "relu", "tie_word_embeddings": True, "num_labels": 3},
    every_class_on_checkpoints=True,
    # T5Config() as it stands: t5-small's shape.
    defaults={},
    layouts={",".join(f"{k}={v}" for k, v in flags.items()) or "plain": flags for flags in LAYOUTS},
    configs=configs(),
    examples=50,
    check=check,
    # The sequence classifier classifies the state at the end-of-sequence token: its forward reads the ids.
    data_dependent=("T5ForSequenceClassification",),
    # Encoder-decoder classes whose decoder reads the input shifted right (decoder_input_ids are not theirs to
    # take): its length is the input's.
    shifted=("T5ForSequenceClassification", "T5ForQuestionAnswering"),
)
