"""RoBERTa: published totals, symbolic identities against BERT, and the reconciled published figures.

Expected values come from outside the project: the sources named beside each, and transformers
(tests/specs/roberta.py, run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import configs, registry

from derivations.families import bert, roberta
from derivations.claims import rounds_to
from derivations.symbols import C, D, L, P, T, V

# Exact figures printed by people who loaded the real checkpoints (AutoModel, so RobertaModel with its
# pooler): 124,645,632 ("Full model" in adapter-hub's summary and many other printouts), and a script's printout of AutoModel.from_pretrained(name).num_parameters() for
# roberta-base and roberta-large (found with the project's code search; the same printout gives
# bert-base-uncased 109,482,240 and bert-large-uncased 335,141,888, which the BERT tests check).
PUBLISHED = {
    ("roberta-base", "RobertaModel"): 124_645_632,
    ("roberta-large", "RobertaModel"): 355_359_744,
}
# KerasNLP's preset metadata ([cite: keras-hub, keras_nlp/models/roberta/roberta_presets.py], "params"):
# its backbones have no token-type table, no pooler and only the 512 usable position rows.
KERAS = {"roberta-base": 124_052_736, "roberta-large": 354_307_072}


@pytest.mark.parametrize("checkpoint, architecture", PUBLISHED)
def test_published_totals(checkpoint, architecture):
    assert registry.checkpoint(checkpoint, architecture).total == PUBLISHED[checkpoint, architecture]


@pytest.mark.parametrize("checkpoint", KERAS)
def test_kerasnlp_counts_are_the_backbone_without_offset_rows_token_types_or_pooler(checkpoint):
    values = registry.checkpoint(checkpoint).values
    assert roberta.keras_backbone.count(values) == KERAS[checkpoint]
    # The same figure, from the published RobertaModel count and the three things Keras leaves out,
    # in plain arithmetic: the pooler (D^2 + D), the two offset rows (2D), the one token-type row (D).
    width = values[D]
    model = PUBLISHED[checkpoint, "RobertaModel"]
    assert model - (width**2 + width) - 2 * width - width == KERAS[checkpoint]


def test_claims_are_the_sources():
    assert {c.checkpoint: c.claim for c in roberta.KERAS} == KERAS
    # fairseq README: roberta.base 125M, roberta.large 355M.
    assert (roberta.base_125m.claim, roberta.large_355m.claim) == (125_000_000, 355_000_000)


def test_the_fairseq_figures_round_the_model_with_or_without_the_lm_head_not_without_pooler():
    # Candidates: RobertaModel, without pooler, RobertaForMaskedLM.
    for claim in roberta.PUBLISHED:
        assert [claim.rounds(i) for i in range(3)] == [True, False, True], claim.name
    # roberta-base without its pooler is 124,055,040 (the published 124,645,632 less D^2 + D), which is "124M".
    assert not rounds_to(124_645_632 - (768**2 + 768), 125_000_000, 10**6)


def test_the_keras_figures_are_robertamodel_less_what_their_layout_leaves_out():
    for claim in roberta.KERAS:
        claim.check()  # RobertaModel - figure = offset rows + token-type row + pooler, and the backbone rebuilds it
        values = claim.values()
        assert claim.correct.count(values) == PUBLISHED[claim.checkpoint, "RobertaModel"]
        # Neither transformers body has the figure.
        assert roberta.without_pooler.count(values) != claim.claim


# ---------------------------------------------------------------------------------------------
# The same tensors as BERT
# ---------------------------------------------------------------------------------------------

def test_body_is_berts():
    # RobertaModel holds BertModel's tensors: the same expression in every size.
    assert sympy.expand(roberta.ARCHITECTURES["RobertaModel"].total - bert.ARCHITECTURES["BertModel"].total) == 0
    assert roberta.layer is bert.layer and roberta.embeddings is bert.embeddings


def test_released_embeddings_cost_one_row_more_than_berts():
    # 514 positions and 1 token type against BERT's 512 and 2: (514 - 512) D + (1 - 2) D = D.
    values = registry.checkpoint("roberta-base").values
    assert (values[P], values[T]) == (514, 1)
    as_bert = values | {P: 512, T: 2}
    assert roberta.embeddings.count(values) - roberta.embeddings.count(as_bert) == 768
    assert roberta.offset_rows.count(values) == 2 * 768
    assert roberta.usable_positions.subs(values) == 512


def test_lm_head_adds_d2_plus_3d_plus_v():
    # dense (D^2 + D), layer_norm (2D), bias (V); the decoder is the word table.
    expected = D**2 + D + 2 * D + V
    assert sympy.expand(roberta.ARCHITECTURES["RobertaForMaskedLM"].total - roberta.without_pooler.total) == expected
    untied = roberta.VARIANTS["untied"]["RobertaForMaskedLM"].total
    assert sympy.expand(untied - roberta.ARCHITECTURES["RobertaForMaskedLM"].total) == V * D + V


def test_classification_head_replaces_the_pooler():
    # RobertaForSequenceClassification: no pooler, dense D x D and out_proj D x C, both with bias.
    extra = sympy.expand(roberta.ARCHITECTURES["RobertaForSequenceClassification"].total - roberta.ARCHITECTURES["RobertaModel"].total)
    assert extra == D * C + C
    # The multiple-choice class keeps the pooler and adds one logit.
    assert sympy.expand(roberta.ARCHITECTURES["RobertaForMultipleChoice"].total - roberta.ARCHITECTURES["RobertaModel"].total) == D + 1


def test_causal_lm_is_the_masked_lm_in_count():
    for layout in roberta.VARIANTS.values():
        assert layout["RobertaForCausalLM"].total == layout["RobertaForMaskedLM"].total


def test_cross_attention_adds_berts_attention_block_per_layer():
    extra = roberta.VARIANTS["cross_attention"]["RobertaModel"].total - roberta.ARCHITECTURES["RobertaModel"].total
    assert sympy.expand(extra - L * (bert.decoder_layer.total - bert.layer.total)) == 0


def test_standard_layer():
    assert roberta.layer_standard.total == 12 * D**2 + 13 * D


def test_checkpoint_sizes():
    base, large = (registry.checkpoint(name).values for name in roberta.FAMILY.checkpoints)
    assert (base[V], base[D], base[L], base[P], base[T]) == (50265, 768, 12, 514, 1)
    assert (large[V], large[D], large[L], large[P], large[T]) == (50265, 1024, 24, 514, 1)


def test_minimal_config_takes_robertaconfigs_defaults():
    values = registry.resolve({"model_type": "roberta"}).values
    assert (values[V], values[P], values[T], values[D], values[L]) == (50265, 512, 2, 768, 12)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "roberta", "pad_token_id": 514, "max_position_embeddings": 514}, "max_position_embeddings"),
    # The default pad_token_id 1 needs two rows in each table.
    ({"model_type": "roberta", "max_position_embeddings": 1}, "max_position_embeddings"),
    ({"model_type": "roberta", "vocab_size": 1}, "vocab_size"),
    ({"model_type": "roberta", "hidden_size": 100}, "multiple"),
    ({"model_type": "roberta", "add_cross_attention": True}, "is_decoder"),
])
def test_bad_configs(config, message):
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(config)
