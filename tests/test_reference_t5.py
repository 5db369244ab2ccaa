"""T5's derivation against transformers 5.23 on the meta device: every class, the bundled checkpoints,
the defaults, the layout flags, and random configs; and what transformers 5.x does to the head of a
T5 1.1 config, which is not what the checkpoint holds.

transformers 5.x (configuration_t5.py, T5Config.__post_init__) pops ``tie_word_embeddings`` from the
config, stores ``scale_decoder_outputs = (it is not False)``, and sets ``tie_word_embeddings = True``
whatever the config said. Built from a v1.1 config, T5ForConditionalGeneration therefore ties its
lm_head to ``shared`` (and skips the 1/sqrt(d_model) scaling of the decoder's output, which is all
the False still changes). Loading a checkpoint that holds an lm_head of its own (every v1.1 and
Flan-T5 one does) then unties it again: ``PreTrainedModel.tie_weights`` finds both ``shared.weight``
and ``lm_head.weight`` in the file with different values and does NOT tie them (it logs a warning).
The derivation counts the checkpoint; the tests below check both halves of that story.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import t5
from derivations.reading import ConfigError
from derivations.symbols import D, V

torch = reference.torch
transformers = reference.transformers

# T5WithLMHeadModel is the name old configs carry; transformers 5.x has no class of that name and
# builds T5ForConditionalGeneration for them (reference.VARIANTS maps it so).
GENERATION = {"T5ForConditionalGeneration", "T5WithLMHeadModel"}


def untie(model: torch.nn.Module) -> None:
    """What loading a checkpoint with an lm_head of its own does to a model built from the config: the
    lm_head gets a weight of its own; nothing else changes (test_loading_a_v1_1_checkpoint shows it)."""
    model.lm_head.weight = torch.nn.Parameter(torch.empty_like(model.lm_head.weight))


def check(architecture: str, config: dict) -> None:
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


def test_the_classes_are_those_of_transformers() -> None:
    # Every model class modeling_t5 exports (but the pretrained base and the bare stack), and no other.
    from transformers.models.t5 import modeling_t5

    exported = set(modeling_t5.__all__) - {"T5PreTrainedModel"}
    assert exported == set(t5.FAMILY.classes)
    assert not hasattr(transformers, "T5WithLMHeadModel")


@pytest.mark.parametrize("architecture", t5.ARCHITECTURES)
@pytest.mark.parametrize("checkpoint", t5.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str, architecture: str) -> None:
    check(architecture, configs.load(checkpoint))


@pytest.mark.parametrize("architecture", t5.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    # T5Config() as it stands: t5-small's shape.
    check(architecture, {"model_type": "t5"})


def test_v1_1_base_as_built_and_as_published() -> None:
    # transformers 5.x from the config: the head tied, 24,674,304 (V D) short of the checkpoint.
    config = configs.load("t5-v1_1-base")
    model = reference.build("T5ForConditionalGeneration", config)
    assert reference.total(model) == 222_903_552 == 247_577_856 - 32128 * 768
    # The checkpoint (its lm_head apart): 247,577,856, the count KerasHub publishes for t5_1.1_base
    # ([cite: keras-hub, keras_hub/src/models/t5/t5_presets.py]) and that 3rd-party printouts give.
    untie(model)
    assert reference.total(model) == 247_577_856 == registry.checkpoint("t5-v1_1-base", "T5ForConditionalGeneration").total


TINY = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "vocab_size": 100, "d_model": 16,
        "d_kv": 4, "num_heads": 3, "d_ff": 20, "num_layers": 2, "num_decoder_layers": 3,
        "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}


def test_loading_a_v1_1_checkpoint(tmp_path) -> None:
    # A real load, on the CPU, of a tiny checkpoint laid out as the v1.1 ones are: shared.weight and a
    # different lm_head.weight. transformers 5.x keeps them apart (and nothing else changes), so the
    # loaded model is the untied derivation, node by node.
    safetensors = pytest.importorskip("safetensors.torch")
    built = transformers.T5ForConditionalGeneration(transformers.AutoConfig.for_model(**TINY))
    state = {name: tensor.clone() for name, tensor in built.state_dict().items()}
    state["lm_head.weight"] = torch.randn_like(state["shared.weight"])
    safetensors.save_file(state, str(tmp_path / "model.safetensors"), metadata={"format": "pt"})
    (tmp_path / "config.json").write_text(json.dumps(TINY), encoding="utf-8")
    loaded = transformers.T5ForConditionalGeneration.from_pretrained(tmp_path)
    assert loaded.config.tie_word_embeddings is True and loaded.config.scale_decoder_outputs is False
    assert loaded.lm_head.weight is not loaded.shared.weight
    assert loaded.encoder.embed_tokens.weight is loaded.shared.weight is loaded.decoder.embed_tokens.weight
    resolved = registry.resolve(TINY)
    assert configs.READERS["t5"].layout.of(TINY) == "gated+untied"
    reference.compare(resolved.part, resolved.values, loaded)
    assert reference.total(loaded) == reference.total(built) + 100 * 16


@pytest.mark.parametrize("flags", [
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
], ids=lambda flags: ",".join(f"{k}={v}" for k, v in flags.items()) or "plain")
@pytest.mark.parametrize("architecture", t5.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    config = {**TINY, "feed_forward_proj": "relu", "tie_word_embeddings": True, "num_labels": 3, **flags}
    check(architecture, config)


def test_is_decoder_gives_the_lone_encoder_cross_attention() -> None:
    # T5EncoderModel builds its stack from the config itself; the two-stack classes do not read it.
    config = {**TINY, "is_decoder": True}
    resolved = registry.resolve(config, "T5EncoderModel")
    assert "cross_attention" in [c.name for c in resolved.part.find("encoder.block").children]
    assert registry.resolve(config, "T5Model").total == registry.resolve({**TINY, "is_decoder": False}, "T5Model").total


# What transformers refuses (T5Config's validation, its typed fields, or ACT2FN when the model is
# built), and the reader's one line for it.
REFUSED = [
    ({"feed_forward_proj": "gated-gelu-x"}, 'must be "ACT" or "gated-ACT"'),
    ({"feed_forward_proj": "new-gelu"}, 'must be "ACT" or "gated-ACT"'),
    ({"feed_forward_proj": "gated-foo"}, "unknown activation"), ({"dense_act_fn": "foo"}, "unknown activation"),
    ({"dense_act_fn": 3}, "unknown activation"), ({"dense_act_fn": None}, "unknown activation"),
    ({"feed_forward_proj": 3}, "must be a string"), ({"feed_forward_proj": None}, "must be a string"),
    ({"is_decoder": "yes"}, "true or false"), ({"is_decoder": None}, "true or false"),
]


@pytest.mark.parametrize("config, message", REFUSED, ids=lambda x: str(x))
def test_refused(config: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as refused:
        registry.resolve({"model_type": "t5", **config})
    assert "\n" not in str(refused.value)
    with pytest.raises(Exception):  # transformers refuses it too
        reference.build("T5Model", {**TINY, **config})


def test_sizes_that_make_no_model() -> None:
    # transformers builds a stack without blocks (and so without a relative position bias); there is
    # no model to count, and the reader says so.
    with pytest.raises(ConfigError, match="positive"):
        registry.resolve({"model_type": "t5", "num_decoder_layers": 0})


def test_the_activations_are_those_of_transformers() -> None:
    # The reader's list is ACT2CLS's; the learned ones are the modules with parameters, as many as
    # the reader's LEARNED counts.
    from derivations.readers import t5 as reader

    assert reader.ACTIVATIONS == set(transformers.activations.ACT2CLS)
    learned = {name: sum(p.numel() for p in transformers.activations.ACT2FN[name].parameters())
               for name in reader.ACTIVATIONS
               if isinstance(transformers.activations.ACT2FN[name], torch.nn.Module)}
    assert {name: n for name, n in learned.items() if n} == reader.LEARNED


@st.composite
def t5_configs(draw: st.DrawFn) -> tuple[str, dict]:
    """A class and a config: head size, heads and width drawn apart (so that H d_kv is seldom d_model),
    decoders as deep as the encoder or not, either feed-forward, activations with learned parameters or
    without, the head tied or not."""
    architecture = draw(st.sampled_from(t5.FAMILY.classes))
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
    return architecture, config


@settings(max_examples=50, deadline=None)
@given(drawn=t5_configs())
def test_random_configs(drawn: tuple[str, dict]) -> None:
    check(*drawn)
