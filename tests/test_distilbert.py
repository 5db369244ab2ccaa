"""DistilBERT: published totals, the student against its teacher, and the reconciled published figures.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/distilbert.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry

from derivations.families import bert, distilbert
from derivations.claims import rounds_to
from derivations.symbols import C, D, F, H, L, P, T, V, d_h

# KerasNLP's preset metadata ([cite: keras-hub, keras_nlp/models/distil_bert/distil_bert_presets.py, "params"]):
# its backbones hold the same tensors as DistilBertModel. 66,362,880 is also what many printouts of the uncased
# model give.
PUBLISHED = {
    ("distilbert-base-uncased", "DistilBertModel"): 66_362_880,
    ("distilbert-base-cased", "DistilBertModel"): 65_190_912,
}
# The same metadata lists distil_bert_base_multi (distilbert-base-multilingual-cased, vocabulary 119,547,
# not bundled here) at 134,734,080.
MULTILINGUAL = (119_547, 134_734_080)
# A TensorFlow summary of TFDistilBertForSequenceClassification (2 labels) on distilbert-base-uncased:
# distilbert 66362880, pre_classifier 590592, classifier 1538, "Total params: 66,955,010".
SEQUENCE_CLASSIFICATION = (66_362_880, 590_592, 1_538, 66_955_010)


@pytest.mark.parametrize("checkpoint, architecture", PUBLISHED)
def test_published_totals(checkpoint, architecture):
    assert registry.checkpoint(checkpoint, architecture).total == PUBLISHED[checkpoint, architecture]


def test_multilingual_vocabulary():
    values = registry.checkpoint("distilbert-base-cased").values | {V: MULTILINGUAL[0]}
    assert distilbert.ARCHITECTURES["DistilBertModel"].count(values) == MULTILINGUAL[1]


def test_sequence_classification_summary():
    values = registry.checkpoint("distilbert-base-uncased").values
    model = distilbert.ARCHITECTURES["DistilBertForSequenceClassification"]
    body, pre, head, whole = SEQUENCE_CLASSIFICATION
    assert model.child("distilbert").count(values) == body
    assert model.child("pre_classifier").count(values) == pre
    assert model.child("classifier").count(values) == head
    assert model.count(values) == whole


def test_claims_are_the_sources():
    assert distilbert.paper_66m.claim == 66_000_000  # Sanh et al. 2019, Table 3: DistilBERT 66


def test_the_papers_66m_is_the_model_without_its_head():
    # Candidates: DistilBertModel (66,362,880: 66M), DistilBertForMaskedLM (67M).
    assert [distilbert.paper_66m.rounds(i) for i in range(2)] == [True, False]


# ---------------------------------------------------------------------------------------------
# The student against its teacher
# ---------------------------------------------------------------------------------------------

def test_layer_is_berts_layer():
    assert sympy.expand(distilbert.layer.total.subs(d_h, D / H) - bert.layer.total.subs(d_h, D / H)) == 0
    assert distilbert.layer_standard.total == 12 * D**2 + 13 * D


def test_model_closed_form():
    expected = (V + P) * D + 2 * D + L * (12 * D**2 + 13 * D)
    assert sympy.expand(distilbert.DistilBertModel_standard.total - expected) == 0


def test_teacher_is_bert_base():
    # The teacher on the student's sizes is bert-base-uncased: 109,482,240 ([cite: bert-1225]).
    values = registry.checkpoint("distilbert-base-uncased").values
    assert distilbert.teacher.count(values) == 109_482_240


def test_what_was_removed_is_the_papers_list():
    # Half the layers, the token-type table, the pooler: teacher - student, exactly.
    gap = (distilbert.teacher.total - distilbert.ARCHITECTURES["DistilBertModel"].total - distilbert.removed.total).subs(d_h, D / H)
    assert sympy.expand(gap) == 0
    values = registry.checkpoint("distilbert-base-uncased").values
    assert distilbert.removed.count(values) == 109_482_240 - 66_362_880


def test_forty_percent_smaller():
    # "reduce the size of a BERT model by 40%": 1 - 66,362,880 / 109,482,240 = 39.4 %.
    values = registry.checkpoint("distilbert-base-uncased").values
    share = distilbert.smaller_by.subs(values)
    assert share == 1 - sympy.Rational(66_362_880, 109_482_240)
    assert rounds_to(share * 100, 39, 1) and rounds_to(share * 100, 40, 2)


def test_mlm_head():
    # vocab_transform (D^2 + D), vocab_layer_norm (2D), the projector's own bias (V); its weight is the table.
    extra = sympy.expand(distilbert.ARCHITECTURES["DistilBertForMaskedLM"].total - distilbert.ARCHITECTURES["DistilBertModel"].total)
    assert extra == D**2 + 3 * D + V
    untied = distilbert.VARIANTS["untied"]["DistilBertForMaskedLM"].total
    assert sympy.expand(untied - distilbert.ARCHITECTURES["DistilBertForMaskedLM"].total) == V * D


def test_classification_heads():
    body = distilbert.ARCHITECTURES["DistilBertModel"].total
    assert sympy.expand(distilbert.ARCHITECTURES["DistilBertForSequenceClassification"].total - body) == D**2 + D + D * C + C
    assert sympy.expand(distilbert.ARCHITECTURES["DistilBertForMultipleChoice"].total - body) == D**2 + D + D + 1
    assert sympy.expand(distilbert.ARCHITECTURES["DistilBertForTokenClassification"].total - body) == D * C + C


def test_checkpoint_sizes():
    uncased, cased = (registry.checkpoint(name).values for name in distilbert.FAMILY.checkpoints)
    assert (uncased[V], uncased[D], uncased[L], uncased[H], uncased[F], uncased[P]) == (30522, 768, 6, 12, 3072, 512)
    assert cased[V] == 28996 and T not in cased


@pytest.mark.parametrize("config, message", [
    ({"model_type": "distilbert", "dim": 100}, "n_heads"),
    ({"model_type": "distilbert", "sinusoidal_pos_embds": "yes"}, "sinusoidal_pos_embds"),
    ({"model_type": "distilbert", "pad_token_id": 30522}, "pad_token_id"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)


def test_question_answering_needs_two_labels():
    with pytest.raises(configs.ConfigError, match="num_labels 2"):
        registry.resolve({"model_type": "distilbert", "num_labels": 3}, "DistilBertForQuestionAnswering")
    # Two labels from id2label: the published body and qa_outputs, 768 x 2 with two biases.
    assert registry.resolve({"model_type": "distilbert", "id2label": {"0": "a", "1": "b"}},
                           "DistilBertForQuestionAnswering").total == 66_362_880 + 768 * 2 + 2
