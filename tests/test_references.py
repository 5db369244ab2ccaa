"""What a reference names and its value: resolution, numbers, and failure on anything unknown."""

import pytest

from derivations.site import references
from derivations.site.references import Reference


def test_part_on_a_checkpoint():
    # [cite: bert-656]: one bert-base layer has 7,087,872 parameters.
    assert references.number_text("bert.layer @ bert-base-uncased") == "7,087,872"


def test_part_reached_through_a_model_counts_every_copy():
    # ... and twelve of them make the 85,054,464 of the same breakdown.
    assert references.number_text("bert.BertModel.encoder.layer @ bert-base-uncased") == "85,054,464"
    assert references.number_text("bert.BertModel.encoder.layer.attention_norm @ bert-base-uncased") == f"{12 * 2 * 768:,}"


def test_overrides_and_units():
    # nn.MultiheadAttention(768) with any head count: 4*768^2 + 4*768 ([cite: pytorch-60853])
    assert references.number_text("bert.layer.attention @ bert-base-uncased H=1 d_h=768") == f"{4 * 768**2 + 4 * 768:,}"
    assert references.number_text("bert.chinese_75m.claim | mi") == "72.1"  # the derivation's own "72.1"


def test_ratio_unit_prints_a_fraction():
    # The stemgene notebook prints 0.21772649152958506 for embeddings / total on bert-base-uncased.
    assert references.number_text("bert.NOTES.bert_notebook.embedding_ratio @ bert-base-uncased | ratio") == "0.21772649"


def test_ratios_in_percent_and_layout_keys_with_plus():
    # Kaplan's N against GPT-3 Small's non-embedding count: 84,934,656 / 85,056,000 (hand-computed from [cite: brown2020, Table 2.1]).
    assert references.number_text("gpt3.kaplan_error @ gpt3-small | percent") == f"{100 * (1 - 84_934_656 / 85_056_000):.3f}"
    # A layout key holding "+": Marian with nothing shared and nothing tied.
    assert references.number_text("transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base") == f"{2 * 37000 * 512 + 44_138_496:,}"


def test_negative_numbers_have_a_minus_sign():
    assert references.number_text("gpt2.tied_head_counted_twice.difference @ gpt2") == "\u2212" + f"{50257 * 768 - 12 * 3 * 768:,}"


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


def test_a_reference_is_parsed_once_and_written_back_as_a_page_writes_it():
    text = "transformer.VARIANTS.unshared+untied.MarianModel @ transformer-base D=512 L=6 | millions"
    parsed = Reference.parse(text)
    assert parsed == Reference("transformer.VARIANTS.unshared+untied.MarianModel", "transformer-base",
                               (("D", 512), ("L", 6)), "millions")
    assert str(parsed) == text and Reference.parse(str(parsed)) == parsed
    assert str(parsed.child("encoder", 0)) == ("transformer.VARIANTS.unshared+untied.MarianModel.encoder.0"
                                               " @ transformer-base D=512 L=6 | millions")
    assert str(parsed.at(None)) == "transformer.VARIANTS.unshared+untied.MarianModel"
    with pytest.raises(LookupError, match="cannot parse"):
        Reference.parse("bert.layer @")
