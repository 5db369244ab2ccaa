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
    # The numbers of the issue's statement, from the derivation note and transformers' counts:
    # 102,267,648 - 75,641,856 = 26,625,792 = 25,952,256 + 36,864 + 46,080 + 590,592.
    out = references.expand("miscount", "bert.chinese_75m", tex)
    numbers = [text for _, text in re.findall(r'data-ref="([^"]+)">([\d,.-]+)<', out)]
    assert numbers == ["75,641,856", "102,267,648", "75,641,856",
                       "25,952,256", "36,864", "46,080", "590,592", "26,625,792"]
