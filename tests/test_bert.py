"""BERT: published and independently measured totals, symbolic identities, reconciled claims.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/test_reference_bert.py recomputes every one of them on the meta device).
"""

import pytest
import sympy

from derivations import configs

from derivations.families import bert
from derivations.symbols import D, F, H, L, P, T, V, d_h

# (checkpoint, architecture) -> exact total, with where the number comes from. Exact figures
# printed by someone who loaded the real checkpoint:
PUBLISHED = {
    # seed note 000: sum(p.numel()) of AutoModelForMaskedLM.from_pretrained("bert-base-chinese")
    ("bert-base-chinese", "BertForMaskedLM"): 102_290_312,
    # google-research/bert#1225 prints 109,482,240; so do seed notes 001 and 004 (BertModel.from_pretrained)
    ("bert-base-uncased", "BertModel"): 109_482_240,
    # google-research/bert#1225 prints 177,853,440 for multilingual-cased
    ("bert-base-multilingual-cased", "BertModel"): 177_853_440,
    # seed note 003: 24 layers, 1024 wide, 21,128 tokens, no pooler or heads
    ("bert-large-21128-vocab", "BertModelWithoutPooler"): 324_472_832,
    # hungsblog.de prints 109,514,298 for a masked-LM model of BERT-base dimensions and vocab 30,522
    ("bert-base-uncased", "BertForMaskedLM"): 109_514_298,
}
# Exact figures that only the arithmetic of the shared reference (section A1, "computed") gives:
# transformers recomputes each of them on the meta device in test_reference_bert.py, which is
# their outside check. The papers' rounded figures agree with them (BERT-base 110M and BERT-large
# 340M in Devlin et al.; 108M and 334M without the pooler in the ALBERT paper, Table 1;
# google-research/bert#1094 estimates ~102M for bert-base-chinese).
PUBLISHED |= {
    ("bert-base-chinese", "BertModel"): 102_267_648,
    ("bert-large-uncased", "BertModel"): 335_141_888,
    ("bert-large-uncased", "BertForPreTraining"): 336_226_108,
    ("bert-large-uncased", "BertModelWithoutPooler"): 334_092_288,
    ("bert-base-uncased", "BertModelWithoutPooler"): 108_891_648,
    ("bert-base-cased", "BertModel"): 108_310_272,
    ("bert-base-multilingual-uncased", "BertModel"): 167_356_416,
    ("bert-large-cased", "BertModel"): 333_579_264,
    ("bert-base-uncased", "BertForPreTraining"): 110_106_428,
}


@pytest.mark.parametrize("checkpoint, architecture", PUBLISHED)
def test_published_totals(checkpoint, architecture):
    assert configs.checkpoint(checkpoint, architecture).total == PUBLISHED[checkpoint, architecture]


def test_checkpoint_components_from_a_published_breakdown():
    # google-research/bert#656 (liuqiangict): embeddings 23,837,184; per layer 7,087,872;
    # 12 layers 85,054,464; pooler 590,592 for bert-base-uncased.
    values = configs.checkpoint("bert-base-uncased").values
    assert bert.embeddings.count(values) == 23_837_184
    assert bert.layer.count(values) == 7_087_872
    assert bert.encoder.count(values) == 85_054_464
    assert bert.pooler.count(values) == 590_592


def test_layer_is_12d2_plus_13d():
    assert bert.layer_standard.total == 12 * D**2 + 13 * D


def test_encoder_is_l_times_layer():
    assert sympy.expand(bert.encoder_standard.total - L * (12 * D**2 + 13 * D)) == 0


def test_bertmodel_closed_form():
    expected = (V + P + T) * D + 2 * D + L * (12 * D**2 + 13 * D) + D**2 + D
    assert sympy.expand(bert.BertModel_standard.total - expected) == 0


def test_heads_drop_out_under_the_standard_shapes():
    assert H not in bert.BertModel_standard.total.free_symbols


def test_general_layer_keeps_every_size():
    assert bert.layer.total.free_symbols == {D, F, H, d_h}


@pytest.mark.parametrize("item", bert.MISCOUNTS, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(item):
    item.check()


def test_chinese_75m_decomposition():
    # The statement: 102,267,648 - 75,641,856 = 26,625,792 = 25,952,256 + 36,864 + 46,080 + 590,592
    item = bert.chinese_75m
    values = item.values()
    assert [t.count(values) for t in item.terms] == [25_952_256, 36_864, 46_080, 590_592]
    # ... and it holds for every size, not only this checkpoint.
    gap = item.correct.total - item.reconstruction.total - sum(t.total for t in item.terms)
    assert sympy.expand(gap) == 0


def test_bert_large_340m_is_no_convention():
    # Devlin et al. print 340M; no module set comes within rounding of it.
    values = configs.checkpoint("bert-large-uncased").values
    assert all(abs(gap.subs(values)) > 3_000_000 for gap in bert.large_340m.gaps)


def test_chinese_and_multilingual_are_not_110m():
    # google-research/bert README lists both at 110M; only the vocabulary differs from bert-base.
    for item in (bert.chinese_110m, bert.multilingual_110m, bert.multilingual_uncased_110m):
        values = configs.checkpoint(item.checkpoint).values
        assert all(abs(gap.subs(values)) > 6_000_000 for gap in item.gaps)


def test_num_labels_from_id2label_as_transformers():
    config = {"model_type": "bert", "id2label": {str(i): f"L{i}" for i in range(18)}}
    resolved = configs.resolve(config, "BertForSequenceClassification")
    # BertModel (defaults = bert-base-uncased, 109,482,240) + 768*18 + 18
    assert resolved.total == 109_482_240 + 768 * 18 + 18
