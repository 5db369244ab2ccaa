"""XLM-RoBERTa: published totals, the tree against RoBERTa's, and the reconciled published figures.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/xlm_roberta.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry
from derivations.families import roberta, xlm_roberta
from derivations.symbols import D, P, T, V

# KerasHub's presets ([cite: keras-hub-xlmr], "params"): its backbones have the word table, 512 position rows, the
# embedding LayerNorm and the encoder: no token-type table, no pooler.
KERAS = {"xlm-roberta-base": 277_450_752, "xlm-roberta-large": 558_837_760}
# The same presets as KerasNLP first published them ([cite: keras-nlp-xlmr], "params").
FIRST_KERAS = {"xlm-roberta-base": 278_042_882, "xlm-roberta-large": 559_889_410}
# Conneau et al. 2019, the appendix's table of model sizes: XLM-R Base 270M, XLM-R 550M; fairseq's README
# (examples/xlmr): xlmr.base 250M, xlmr.large 560M.
PAPER = {"xlm-roberta-base": 270_000_000, "xlm-roberta-large": 550_000_000}
FAIRSEQ = {"xlm-roberta-base": 250_000_000, "xlm-roberta-large": 560_000_000}


@pytest.mark.parametrize("checkpoint", KERAS)
def test_kerashub_counts_are_robertamodel_less_offset_rows_token_type_and_pooler(checkpoint):
    values = registry.checkpoint(checkpoint).values
    assert roberta.keras_backbone.count(values) == KERAS[checkpoint]
    width = values[D]
    model = registry.checkpoint(checkpoint, "XLMRobertaModel").total
    assert model - (width**2 + width) - 2 * width - width == KERAS[checkpoint]


@pytest.mark.parametrize("checkpoint", FIRST_KERAS)
def test_the_first_keras_figures_add_a_two_label_classifier(checkpoint):
    # The corrected figure plus a dense D x D map and a two-logit output, both with bias: the first figure.
    width = registry.checkpoint(checkpoint).values[D]
    assert KERAS[checkpoint] + (width**2 + width) + (2 * width + 2) == FIRST_KERAS[checkpoint]
    # Which is transformers' sequence classifier (two labels, its default) less the three rows Keras leaves out.
    classifier = registry.checkpoint(checkpoint, "XLMRobertaForSequenceClassification").total
    assert classifier - 3 * width == FIRST_KERAS[checkpoint]


def test_claims_are_the_sources():
    assert {c.checkpoint: c.claim for c in xlm_roberta.KERAS} == KERAS
    assert {c.checkpoint: c.claim for c in xlm_roberta.MISCOUNTS} == FIRST_KERAS
    assert {c.checkpoint: c.claim for c in (xlm_roberta.paper_base, xlm_roberta.paper_large)} == PAPER
    assert {c.checkpoint: c.claim for c in (xlm_roberta.fairseq_base, xlm_roberta.fairseq_large)} == FAIRSEQ
    for claim in (*xlm_roberta.KERAS, *xlm_roberta.MISCOUNTS):
        claim.check()


def test_the_papers_figures_are_the_counts_cut_down_not_rounded():
    # Every convention (XLMRobertaModel, without pooler, ForMaskedLM) is 277M-278M and 559M-560M: none rounds to
    # 270M or 550M at the paper's tens of millions, and cut down to them, all but large's ForMaskedLM do.
    for claim in (xlm_roberta.paper_base, xlm_roberta.paper_large):
        assert not any(claim.rounds(i) for i in range(3)), claim.name
    assert [xlm_roberta.truncated(xlm_roberta.paper_base, i) for i in range(3)] == [True, True, True]
    assert [xlm_roberta.truncated(xlm_roberta.paper_large, i) for i in range(3)] == [True, True, False]


def test_fairseqs_large_rounds_and_its_base_is_28m_short():
    assert all(xlm_roberta.fairseq_large.rounds(i) for i in range(3))
    assert not any(xlm_roberta.fairseq_base.rounds(i) for i in range(3))
    assert xlm_roberta.fairseq_base.exact(1) - FAIRSEQ["xlm-roberta-base"] > 27_000_000


def test_the_tree_is_robertas():
    for name, part in xlm_roberta.ARCHITECTURES.items():
        assert sympy.expand(part.total - roberta.ARCHITECTURES[name.replace("XLMRoberta", "Roberta")].total) == 0
    assert xlm_roberta.layer is roberta.layer and xlm_roberta.embeddings is roberta.embeddings


def test_the_word_table_is_most_of_the_model():
    values = registry.checkpoint("xlm-roberta-base").values
    assert values[V] == 250_002
    assert xlm_roberta.word_share.subs(values) > sympy.Rational(69, 100)


def test_bge_m3_is_large_with_longer_positions():
    large, m3 = (registry.checkpoint(name, "XLMRobertaModel").total for name in ("xlm-roberta-large", "bge-m3"))
    assert registry.checkpoint("bge-m3").values[P] == 8194
    assert m3 - large == (8194 - 514) * 1024


def test_minimal_config_takes_xlmrobertaconfigs_defaults():
    # XLMRobertaConfig: BERT's vocabulary (30522, not RoBERTa's 50265), 512 positions, two token types.
    values = registry.resolve({"model_type": "xlm-roberta"}).values
    assert (values[V], values[P], values[T], values[D]) == (30522, 512, 2, 768)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "xlm-roberta", "pad_token_id": 514, "max_position_embeddings": 514}, "max_position_embeddings"),
    ({"model_type": "xlm-roberta", "vocab_size": 1}, "vocab_size"),
    ({"model_type": "xlm-roberta", "hidden_size": 100}, "multiple"),
    ({"model_type": "xlm-roberta", "add_cross_attention": True}, "is_decoder"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
