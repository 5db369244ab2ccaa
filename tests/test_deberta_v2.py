"""DeBERTa-v2 and -v3: published totals, and the model cards' figures reconciled.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/deberta_v2.py, run by the reference harness, recomputes every total, and every node, on the meta device).
"""

import pytest

from derivations import configs, registry
from derivations.families import deberta_v2

# Exact totals KerasHub prints for its DeBERTa-v3 presets, converted from the same checkpoints
# [cite: keras-hub, keras_hub/src/models/deberta_v3/deberta_v3_presets.py, "params"]: DebertaV2Model's, to the unit.
KERAS = {
    "deberta-v3-xsmall": 70_682_112,
    "deberta-v3-small": 141_304_320,
    "deberta-v3-base": 183_831_552,
    "deberta-v3-large": 434_012_160,
    "mdeberta-v3-base": 278_218_752,
}


@pytest.mark.parametrize("checkpoint", KERAS)
def test_keras_totals(checkpoint):
    assert registry.checkpoint(checkpoint, "DebertaV2Model").total == KERAS[checkpoint]


# [cite: hub-deberta-v3]: "N M backbone parameters with a vocabulary containing 128K tokens which introduces E M
# parameters in the Embedding layer". The embedding figure is the word table alone (V D); the backbone figure rounds
# from the rest only with one D-by-D map with bias more (D^2 + D: a pooler's, or the discriminator head's dense).
CARDS = {"deberta-v3-xsmall": (22, 48), "deberta-v3-small": (44, 98), "deberta-v3-base": (86, 98),
         "deberta-v3-large": (304, 131), "mdeberta-v3-base": (86, 190)}


@pytest.mark.parametrize("checkpoint", CARDS)
def test_card_backbone_and_embedding(checkpoint):
    config = configs.load(checkpoint)
    width, words = config["hidden_size"], config["vocab_size"] * config["hidden_size"]
    backbone = registry.checkpoint(checkpoint, "DebertaV2Model").total - words
    printed_backbone, printed_embedding = CARDS[checkpoint]
    assert round(backbone / 1e6) == printed_backbone - 1  # one million short without the extra map
    assert round((backbone + width * width + width) / 1e6) == printed_backbone
    claims = [c for c in deberta_v2.CARDS_BACKBONE + deberta_v2.CARDS_EMBEDDING if c.checkpoint == checkpoint]
    assert [c.claim for c in claims] == [printed_backbone * 10**6, printed_embedding * 10**6]
    assert claims[0].exact(0) == backbone and claims[1].exact(0) == words


def test_base_card_decomposed():
    # 86M + 98M: the word table (128,100 x 768) and the rest (12 BERT-base layers, the 512 x 768 relative table, two
    # LayerNorms of 768): 183,831,552 in all, which rounds to the 184M the two figures add up to.
    words = 128_100 * 768
    layers = 12 * (12 * 768 * 768 + 13 * 768)
    assert words == 98_380_800
    assert words + layers + 512 * 768 + 2 * 768 + 2 * 768 == KERAS["deberta-v3-base"]
    assert round(KERAS["deberta-v3-base"] / 1e6) == 86 + 98


def test_xsmall_embedding_is_49m_not_48m():
    assert 128_100 * 384 == 49_190_400
    assert not deberta_v2.xsmall_48m.rounds(0)


def test_v2_cards():
    # "900M" for deberta-v2-xlarge rounds from 884,593,152 to the nearest hundred million; "1.5B" for xxlarge does
    # not: 1,564,549,632 is 1.6B.
    assert registry.checkpoint("deberta-v2-xlarge", "DebertaV2Model").total == 884_593_152
    assert deberta_v2.xlarge_900m.rounds(0) and not deberta_v2.xxlarge_1_5b.rounds(0)


def test_relative_attention_adds_one_table_not_a_layer():
    # With share_att_key, a layer of DeBERTa-v3 holds BERT-Base's tensors (12 D^2 + 13 D): the relative attention is
    # the table the layers share.
    assert deberta_v2.layer.count(registry.checkpoint("deberta-v3-base").values) == 12 * 768**2 + 13 * 768
