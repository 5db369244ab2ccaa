"""ModernBERT: the model cards' 149M and 395M against the exact counts.

Expected values come from outside the project: the model cards of answerdotai/ModernBERT-base and -large ("149
million parameters", "395 million parameters"), and transformers (tests/specs/modernbert.py: every total recomputed
on the meta device, every class, every layout).
"""

from derivations import registry
from derivations.families import modernbert

# The model cards [cite: hub-answerdotai]: "ModernBERT-base, 22 layers, 149 million parameters", "ModernBERT-large,
# 28 layers, 395 million parameters".
CARDS = {"modernbert-base": 149, "modernbert-large": 395}


def test_the_cards_round_the_backbone():
    # The backbone (ModernBertModel, no head) rounds to both figures; the masked-LM class, which adds the head's
    # dense map, its LayerNorm and the decoder's bias, rounds the base to 150M and the large one to 396M.
    for name, millions in CARDS.items():
        backbone = registry.checkpoint(name, "ModernBertModel").total
        with_head = registry.checkpoint(name).total
        assert round(backbone / 10**6) == millions, (name, backbone)
        assert round(with_head / 10**6) == millions + 1, (name, with_head)


def test_the_counts_others_measured():
    # ModernBertForMaskedLM, as the configs name it, as others printed parameters() of the released weights
    # (answerdotai/ModernBERT-base at revision 8949b909, -large at 45bb4654, in a benchmark's table of models).
    assert registry.checkpoint("modernbert-base").total == 149_655_232
    assert registry.checkpoint("modernbert-large").total == 395_881_664


def test_the_first_layer_has_no_attention_norm():
    values = registry.checkpoint("modernbert-base").values
    assert modernbert.layer.count(values) - modernbert.first_layer.count(values) * (values[modernbert.L] - 1) \
        == values[modernbert.D] * (values[modernbert.L] - 1)
