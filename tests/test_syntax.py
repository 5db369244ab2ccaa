"""What a page writes: the shortcode pattern and the formula anchors, shared by the hooks and the tests."""

import pytest

from derivations.site.syntax import SHORTCODE, SHORTCODE_LIKE, anchored, element_end, formula_anchor


def test_a_shortcode_is_a_name_and_a_reference():
    match = SHORTCODE.search("x <!-- num:bert.BertModel @ bert-base-chinese | fp32_mb --> y")
    assert (match[1], match[2].strip()) == ("num", "bert.BertModel @ bert-base-chinese | fp32_mb")
    assert SHORTCODE.search("<!-- a plain comment -->") is None
    assert SHORTCODE_LIKE.search("<!-- Num: a mistyped shortcode -->")  # the build fails on what is left


def test_a_displayed_formula_gets_an_anchor_and_a_link():
    assert formula_anchor("bert.layer @ bert-base-uncased") == "eq-bert-layer-bert-base-uncased"
    out = anchored('<div class="dv-eq" data-ref="bert.layer"><span>N</span></div>', "eq-bert-layer")
    assert out == ('<div class="dv-eq" id="eq-bert-layer" data-ref="bert.layer"><span>N</span>'
                   '<a class="headerlink" href="#eq-bert-layer" title="Permanent link">&para;</a></div>')


def test_element_end_counts_the_same_tags_nested_inside():
    text = 'x<div a><div>1</div><p></p><div>2</div></div>y</div>'
    assert text[element_end(text, 1, "div"):] == "y</div>"
    assert element_end("<span><span></span></span>", 0, "span") == len("<span><span></span></span>")
    with pytest.raises(ValueError):
        element_end("<div><div></div>", 0, "div")
