"""mBART: the published totals, reconciled, and what mBART adds to BART.

Every class against transformers on the meta device is tests/specs/mbart.py's (the reference harness)."""

import sympy

from derivations import registry
from derivations.families import bart, mbart
from derivations.symbols import D


def test_num_parameters_of_mbart_50():
    # [cite: fairseq-4980]: MBartForConditionalGeneration.from_pretrained("facebook/mbart-large-50-one-to-many-mmt")
    # .num_parameters() prints 610879488; the many-to-many checkpoint bundled here has the same config sizes.
    assert registry.checkpoint("mbart-large-50-many-to-many-mmt", "MBartForConditionalGeneration").total == 610_879_488


def test_paper_and_paddlenlp_figures_reconciled():
    # [cite: liu2020, section 2.2]: "∼ 680M parameters"; [cite: paddlenlp-mbart]: "1123M parameters".
    for claim in mbart.FAMILY.miscounts:
        claim.check()
    assert mbart.paper_680m.claim == 680_000_000 and mbart.paddlenlp_1123m.claim == 1_123_000_000


def test_two_final_norms_over_bart():
    # The same layers (pre-LN moves the norms, it adds none), and a final LayerNorm on each stack.
    assert sympy.expand(mbart.ARCHITECTURES["MBartModel"].total - bart.ARCHITECTURES["BartModel"].total
                        - mbart.over_bart) == 0
    assert mbart.over_bart == 4 * D
