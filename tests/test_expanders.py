"""The HTML of each shortcode: tables built from the package, and failure on anything unknown."""

import html
import importlib
import re

import pytest

from derivations import registry
from derivations.claims import Rounded
from derivations.site import expanders, references, shortcodes


def tex(source: str, display: bool) -> str:  # a stand-in for KaTeX: the TeX itself
    return source


@pytest.mark.parametrize("shortcode, ref", [
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
def test_unknown_references_raise_lookup_error(shortcode, ref):
    with pytest.raises(LookupError):
        shortcodes.expand(shortcode, ref, tex)


def test_numbers_carry_their_reference():
    out = shortcodes.expand("num", "bert.BertModel @ bert-base-chinese", tex)
    assert out == '<span class="dv-num" data-ref="bert.BertModel @ bert-base-chinese">102,267,648</span>'


def test_miscount_table_shows_the_published_reconciliation():
    # The numbers of the content audit's statement, from the blog post and transformers' count of
    # BertModel(add_pooling_layer=False), the body of the BertForMaskedLM its config names:
    # 101,677,056 - 75,641,856 = 26,035,200 = 25,952,256 + 36,864 + 46,080.
    out = shortcodes.expand("miscount", "bert.chinese_75m", tex)
    numbers = [text for _, text in re.findall(r'data-ref="([^"]+)">([\d,.-]+)<', out)]
    assert numbers == ["75,641,856", "101,677,056", "75,641,856",
                       "25,952,256", "36,864", "46,080", "26,035,200"]


def test_hypothesis_table_shows_the_papers_figures_and_the_window():
    out = shortcodes.expand("hypothesis", "gpt2.paper_counts", tex)
    numbers = dict(re.findall(r'data-ref="([^"]+)">([\d,.\u2212-]+)<', out))
    # Radford et al. 2019, Table 2 against the exact count and the count with GPT-1's 40,478 tokens.
    assert numbers["gpt2.paper_counts.claims.0.candidates.0 @ gpt2"] == "124,439,808"
    assert numbers["gpt2.paper_counts.claims.0.candidates.0 @ gpt2 V=40478"] == "116,929,536"
    assert "gpt2.paper_counts.common.0" in numbers and "gpt2.paper_counts.common.1" in numbers


@pytest.mark.parametrize("ref, shown", [
    # torchvision's vit_l_32 (306,535,400): the claim's 32-pixel patches, not its checkpoint's 16.
    ("vit.large_307m_patch32", "306,535,400"),
    # transformers' Dinov2Model of dinov2-base's sizes at 224 pixels (85,725,696), not the config's 518.
    ("dinov2.base_86m_224", "85,725,696"),
])
def test_a_rounded_table_counts_as_the_claim_does(ref, shown):
    # A claim that changes its checkpoint's sizes (overrides) is shown at those sizes, as it is reconciled.
    out = shortcodes.expand("rounded", ref, tex)
    assert shown in re.findall(r'data-ref="[^"]+">([\d,]+)<', out)


def test_published_table_marks_what_rounds():
    out = shortcodes.expand("published", "gpt3.TABLE_2_1", tex)
    assert out.count('class="dv-yes"') == 5 and out.count('class="dv-no"') == 3  # medium, 13B, 175B miss


def published_tables() -> list[str]:
    """Every table of rounded figures the family modules hold, as ``module.NAME``."""
    found = []
    for name in registry.families():
        module = importlib.import_module(f"derivations.families.{name}")
        found += [f"{name}.{key}" for key, value in vars(module).items()
                  if isinstance(value, tuple) and value and all(isinstance(c, Rounded) for c in value)]
    return found


@pytest.mark.parametrize("ref", published_tables())
def test_each_row_of_a_published_table_says_what_its_count_is(ref):
    # A count stands under its own label: in the heading when every row counts the same thing, else in its
    # cell (Qwen's non-embedding counts were shown under "with the language-model head", the first row's).
    out = shortcodes.expand("published", ref, tex)
    head = re.findall(r"<th>(.*?)</th>", out)
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", out.split("</thead>")[1])]
    claims = expanders._claims(references.Reference.parse(ref))
    assert len(rows) == len(claims)
    for cells, (_, claim) in zip(rows, claims, strict=True):
        for i, candidate in enumerate(claim.candidates):
            label = html.escape(candidate.label)
            assert head[2 + i] == label or label in cells[2 + i], (ref, claim.what, candidate.label, head[2 + i])
            assert head[2 + i] != html.escape(candidate.label) or all(
                c.candidates[i].label == candidate.label for _, c in claims), (ref, head[2 + i])


@pytest.mark.parametrize("shortcode, ref", [("published", "gpt2.layer"), ("hypothesis", "gpt2.RELEASED"),
                                       ("checkpoints", "gpt3.NO_SUCH_COLUMNS")])
def test_claim_shortcodes_refuse_other_objects(shortcode, ref):
    with pytest.raises(LookupError):
        shortcodes.expand(shortcode, ref, tex)


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_a_verdict_states_the_exact_count_against_the_claim():
    out = shortcodes.expand("verdict", "bert.chinese_75m", tex)
    assert out.startswith('<p class="dv-verdict"><strong>') and out.endswith("</strong></p>")
    numbers = dict(re.findall(r'data-ref="([^"]+)">([\d,]+)<', out))
    # BertModel(add_pooling_layer=False) on bert-base-chinese, against the blog post's sum.
    assert numbers == {"bert.chinese_75m.correct @ bert-base-chinese": "101,677,056", "bert.chinese_75m.claim": "75,641,856"}
    assert _text(out).startswith("The body of BertForMaskedLM on bert-base-chinese has 101,677,056 parameters, "
                                 "not 75,641,856: the attention weights")


def test_a_verdict_quotes_a_rounded_claim_and_keeps_a_right_number():
    assert "not “770M”:" in _text(shortcodes.expand("verdict", "t5.large_770m", tex))
    # BertForMaskedLM's 102,290,312 is right; the label is not.
    assert "has 102,290,312 parameters, as published, but the square map" in _text(
        shortcodes.expand("verdict", "bert.mlm_transform_as_pooler", tex))


@pytest.mark.parametrize("ref", ["bert.layer", "roberta.keras_base"])  # not a miscount; one without its verdict
def test_a_verdict_needs_a_miscount_with_model_and_cause(ref):
    with pytest.raises(LookupError):
        shortcodes.expand("verdict", ref, tex)


def test_the_summary_links_each_claim_to_its_entry():
    from derivations.site.references import Reference

    out = expanders.mistakes([(Reference.parse("gpt2.small_117m"), "mistakes-gpt2.html#117m-for-gpt-2-small",
                               "117m-for-gpt-2-small")])
    row = re.search(r'<tr id="117m-for-gpt-2-small">(.*?)</tr>', out)[1]
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert cells[0] == '<a href="mistakes-gpt2.html#117m-for-gpt-2-small">“117M”</a>'
    assert _text(cells[1]) == "GPT-2 small (gpt2)"
    assert cells[2] == '<span class="dv-num" data-ref="gpt2.small_117m.correct @ gpt2">124,439,808</span>'
    assert _text(cells[3]).startswith("that is the paper's retracted figure")
    with pytest.raises(LookupError):
        expanders.mistakes([(Reference.parse("roberta.keras_base"), "roberta.html", "x")])
