"""What a page can name: resolution, numbers, and failure on anything unknown."""

import re

import pytest

from derivations import references


def tex(source: str, display: bool) -> str:  # a stand-in for KaTeX: the TeX itself
    return source


def test_part_on_a_checkpoint():
    # google-research/bert#656: one bert-base layer has 7,087,872 parameters.
    assert references.number_text("bert.layer @ bert-base-uncased") == "7,087,872"


def test_part_reached_through_a_model_counts_every_copy():
    # ... and twelve of them make the 85,054,464 of the same breakdown.
    assert references.number_text("bert.BertModel.encoder.layer @ bert-base-uncased") == "85,054,464"
    assert references.number_text("bert.BertModel.encoder.layer.attention_norm @ bert-base-uncased") == f"{12 * 2 * 768:,}"


def test_overrides_and_units():
    # nn.MultiheadAttention(768) with any head count: 4*768^2 + 4*768 (pytorch/pytorch#60853)
    assert references.number_text("bert.layer.attention @ bert-base-uncased H=1 d_h=768") == f"{4 * 768**2 + 4 * 768:,}"
    assert references.number_text("bert.chinese_75m.claim | mi") == "72.1"  # the derivation's own "72.1"


@pytest.mark.parametrize("kind, ref", [
    ("eq", "bert.no_such_part"),
    ("eq", "nosuchmodule.layer"),
    ("num", "bert.layer"),  # a count needs a checkpoint
    ("num", "bert.layer @ no-such-checkpoint"),
    ("num", "bert.layer @ bert-base-uncased Q=3"),
    ("num", "bert.layer @ bert-base-uncased | furlongs"),
    ("parts", "bert.pooler"),  # a leaf has no parts
    ("checkpoints", "render"),
    ("miscount", "bert.layer"),
    ("teleport", "bert.layer"),
])
def test_unknown_references_raise_lookup_error(kind, ref):
    with pytest.raises(LookupError):
        references.expand(kind, ref, tex)


def test_numbers_carry_their_reference():
    out = references.expand("num", "bert.BertModel @ bert-base-chinese", tex)
    assert out == '<span class="dv-num" data-ref="bert.BertModel @ bert-base-chinese">102,267,648</span>'


def test_miscount_table_shows_the_published_reconciliation():
    # The numbers of the content audit's statement, from the blog post and transformers' count of
    # BertModel(add_pooling_layer=False), the body of the BertForMaskedLM its config names:
    # 101,677,056 - 75,641,856 = 26,035,200 = 25,952,256 + 36,864 + 46,080.
    out = references.expand("miscount", "bert.chinese_75m", tex)
    numbers = [text for _, text in re.findall(r'data-ref="([^"]+)">([\d,.-]+)<', out)]
    assert numbers == ["75,641,856", "101,677,056", "75,641,856",
                       "25,952,256", "36,864", "46,080", "26,035,200"]


def test_ratio_unit_prints_a_fraction():
    # The stemgene notebook prints 0.21772649152958506 for embeddings / total on bert-base-uncased.
    assert references.number_text("bert.NOTES.bert_notebook.embedding_ratio @ bert-base-uncased | ratio") == "0.21772649"


def test_ratios_in_percent_and_layout_keys_with_plus():
    # Kaplan's N against GPT-3 Small's non-embedding count: 84,934,656 / 85,056,000 (shared reference A6).
    assert references.number_text("gpt3.kaplan_error @ gpt3-small | percent") == f"{100 * (1 - 84_934_656 / 85_056_000):.3f}"
    # A layout key holding "+": Marian with nothing shared and nothing tied.
    assert references.number_text("transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base") == f"{2 * 37000 * 512 + 44_138_496:,}"


def test_negative_numbers_have_a_minus_sign():
    assert references.number_text("gpt2.tied_head_counted_twice.difference @ gpt2") == "\u2212" + f"{50257 * 768 - 12 * 3 * 768:,}"


def test_hypothesis_table_shows_the_papers_figures_and_the_window():
    out = references.expand("hypothesis", "gpt2.paper_counts", tex)
    numbers = dict(re.findall(r'data-ref="([^"]+)">([\d,.\u2212-]+)<', out))
    # Radford et al. 2019, Table 2 against the exact count and the count with GPT-1's 40,478 tokens.
    assert numbers["gpt2.paper_counts.claims.0.candidates.0 @ gpt2"] == "124,439,808"
    assert numbers["gpt2.paper_counts.claims.0.candidates.0 @ gpt2 V=40478"] == "116,929,536"
    assert "gpt2.paper_counts.common.0" in numbers and "gpt2.paper_counts.common.1" in numbers


def test_published_table_marks_what_rounds():
    out = references.expand("published", "gpt3.TABLE_2_1", tex)
    assert out.count('class="dv-yes"') == 5 and out.count('class="dv-no"') == 3  # medium, 13B, 175B miss


@pytest.mark.parametrize("kind, ref", [("published", "gpt2.layer"), ("hypothesis", "gpt2.RELEASED"),
                                       ("checkpoints", "gpt3.NO_SUCH_COLUMNS")])
def test_claim_kinds_refuse_other_objects(kind, ref):
    with pytest.raises(LookupError):
        references.expand(kind, ref, tex)


def test_a_class_on_a_checkpoint_is_counted_as_its_config_builds_it():
    # Llama 3.2 1B ties its head: 1,235,814,400 as transformers builds it on the meta device
    # (tests/test_reference_llama.py measures it), not the untied plain layout on its sizes.
    assert references.number_text("llama.LlamaForCausalLM @ llama-3.2-1b") == "1,235,814,400"
    # Any other name of the family on such a checkpoint would be evaluated in the plain layout: refused.
    with pytest.raises(LookupError, match="builds the layout 'tied'.*VARIANTS.tied"):
        references.resolve("llama.layer @ llama-3.2-1b")
    assert references.number_text("llama.VARIANTS.tied.LlamaForCausalLM @ llama-3.2-1b") == "1,235,814,400"
    # An unknown checkpoint names the reference at fault first, as every other reference error does.
    with pytest.raises(LookupError, match=r"^llama\.LlamaForCausalLM @ nope: nope: no such file"):
        references.resolve("llama.LlamaForCausalLM @ nope")
