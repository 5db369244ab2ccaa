"""CamemBERT: the published figure, the tree against RoBERTa's, and the config class's defaults.

Expected values come from outside the project: the source named beside each, and transformers
(tests/specs/camembert.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry
from derivations.families import camembert, roberta
from derivations.symbols import D, P, T, V

# The model card of almanach/camembert-base ([cite: hub-camembert]): camembert-base, 110M.
CARD = 110_000_000


def test_the_cards_110m_is_the_body_without_pooler():
    # Candidates: CamembertModel, without pooler, CamembertForMaskedLM: only the body fairseq trained rounds.
    assert camembert.base_110m.claim == CARD
    assert [camembert.base_110m.rounds(i) for i in range(3)] == [False, True, False]


def test_the_tree_is_robertas():
    for name, part in camembert.ARCHITECTURES.items():
        assert sympy.expand(part.total - roberta.ARCHITECTURES[name.replace("Camembert", "Roberta")].total) == 0


def test_checkpoint_sizes():
    values = registry.checkpoint("camembert-base").values
    assert (values[V], values[D], values[P], values[T]) == (32005, 768, 514, 1)


def test_minimal_config_takes_camembertconfigs_defaults():
    values = registry.resolve({"model_type": "camembert"}).values
    assert (values[V], values[P], values[T], values[D]) == (30522, 512, 2, 768)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "camembert", "max_position_embeddings": 1}, "max_position_embeddings"),
    ({"model_type": "camembert", "add_cross_attention": True}, "is_decoder"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
