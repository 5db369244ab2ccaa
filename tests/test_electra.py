"""ELECTRA: published totals, and the README's figures reconciled.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/electra.py, run by the reference harness, recomputes every total, and every node, on the meta device).
"""

import pytest

from derivations import configs, registry
from derivations.families import electra

# Exact totals KerasHub prints for its ELECTRA presets, converted from the same six checkpoints
# [cite: keras-hub, keras_hub/src/models/electra/electra_presets.py, "params"]. KerasHub's ElectraBackbone has a
# pooled_dense (hidden by hidden, with bias) that transformers' ElectraModel has not: each is ElectraModel plus
# that map. (The small generator's figure equals the small discriminator's: the two configs are the same.)
KERAS = {
    "electra-small-discriminator": 13_548_800,
    "electra-small-generator": 13_548_800,
    "electra-base-discriminator": 109_482_240,
    "electra-base-generator": 33_576_960,
    "electra-large-discriminator": 335_141_888,
    "electra-large-generator": 51_065_344,
}


@pytest.mark.parametrize("checkpoint", KERAS)
def test_keras_backbone_is_electra_model_and_a_pooler(checkpoint):
    hidden = configs.load(checkpoint)["hidden_size"]
    assert registry.checkpoint(checkpoint, "ElectraModel").total + hidden * hidden + hidden == KERAS[checkpoint]


# [cite: electra-readme, Released Models]: 14M, 110M and 335M. Small's and large's round from the discriminator with
# its head (ElectraForPreTraining), not from its encoder alone; base's 110M rounds from neither (it is BERT-Base's
# figure, for the same shape: BertModel on bert-base-uncased is 109,482,240, also 109M).
README = {"electra-small-discriminator": (14, 13, 14), "electra-base-discriminator": (110, 109, 109),
          "electra-large-discriminator": (335, 334, 335)}


@pytest.mark.parametrize("checkpoint", README)
def test_readme_figures(checkpoint):
    printed, encoder, discriminator = README[checkpoint]
    assert round(registry.checkpoint(checkpoint, "ElectraModel").total / 1e6) == encoder
    assert round(registry.checkpoint(checkpoint, "ElectraForPreTraining").total / 1e6) == discriminator
    claim = next(c for c in electra.README if c.checkpoint == checkpoint)
    assert claim.claim == printed * 10**6
    assert [claim.rounds(i) for i in range(2)] == [encoder == printed, discriminator == printed]


def test_base_and_bert_base_have_one_encoder():
    # ELECTRA-Base is BERT-Base's shape with no pooler (the embeddings as wide as the encoder: no projection).
    bert = registry.checkpoint("bert-base-uncased", "BertModel").total
    assert registry.checkpoint("electra-base-discriminator", "ElectraModel").total == bert - (768 * 768 + 768)


def test_projection_only_where_embedding_differs():
    layout = electra.reader.READER.layout.of
    assert layout(configs.load("electra-small-discriminator")) == "projected"
    assert layout(configs.load("electra-base-discriminator")) == ""
    assert layout(configs.load("electra-base-generator")) == "projected"
