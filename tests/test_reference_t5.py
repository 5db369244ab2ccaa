"""What only T5 has, against transformers 5.23 on the meta device (the checks every family shares, with T5's own
check, are tests/specs/t5.py's): its classes and activations are transformers' own, the refusals, and what
transformers 5.x does to the head of a T5 1.1 config, which is not what the checkpoint holds.

transformers 5.x (configuration_t5.py, T5Config.__post_init__) pops ``tie_word_embeddings`` from the
config, stores ``scale_decoder_outputs = (it is not False)``, and sets ``tie_word_embeddings = True``
whatever the config said. Built from a v1.1 config, T5ForConditionalGeneration therefore ties its
lm_head to ``shared`` (and skips the 1/sqrt(d_model) scaling of the decoder's output, which is all
the False still changes). Loading a checkpoint that holds an lm_head of its own (every v1.1 and
Flan-T5 one does) then unties it again: ``PreTrainedModel.tie_weights`` finds both ``shared.weight``
and ``lm_head.weight`` in the file with different values and does NOT tie them (it logs a warning).
The derivation counts the checkpoint; the spec's check and the tests below check both halves of that story.
"""

from __future__ import annotations

import json

import pytest

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs, registry
from derivations.families import t5
from derivations.reading import ConfigError
from specs.t5 import TINY, untie

torch = reference.torch
transformers = reference.transformers


def test_the_classes_are_those_of_transformers() -> None:
    # Every model class modeling_t5 exports (but the pretrained base and the bare stack), and no other.
    from transformers.models.t5 import modeling_t5

    exported = set(modeling_t5.__all__) - {"T5PreTrainedModel"}
    assert exported == set(t5.FAMILY.classes)
    assert not hasattr(transformers, "T5WithLMHeadModel")


def test_v1_1_base_as_built_and_as_published() -> None:
    # transformers 5.x from the config: the head tied, 24,674,304 (V D) short of the checkpoint.
    config = configs.load("t5-v1_1-base")
    model = reference.build("T5ForConditionalGeneration", config)
    assert reference.total(model) == 222_903_552 == 247_577_856 - 32128 * 768
    # The checkpoint (its lm_head apart): 247,577,856, the count KerasHub publishes for t5_1.1_base
    # ([cite: keras-hub, keras_hub/src/models/t5/t5_presets.py]) and that 3rd-party printouts give.
    untie(model)
    assert reference.total(model) == 247_577_856 == registry.checkpoint("t5-v1_1-base", "T5ForConditionalGeneration").total


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
