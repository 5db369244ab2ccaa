"""The built site in a real browser, served from 127.0.0.1 and opened from disk (file://): every page loads
with no request leaving the host, no failed request and no console error, every formula typeset; search,
instant navigation, dark mode and the addresses of earlier versions work."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import browser  # skips this module without Chromium or Playwright (fails under CI)
import in_process
import profiles
from derivations import answers, configs, registry
from site_build import DOCS, LOCAL_HOSTS, RAW_TEX, html_files, page_url


@pytest.fixture(scope="module")
def chromium() -> Iterator[browser.Browser]:
    with browser.sync_playwright() as playwright:
        instance = browser.launch(playwright)
        yield instance
        instance.close()


class Watched:
    """A page with everything it requested, every request that failed and every console error."""

    def __init__(self, page: browser.Page) -> None:
        self.page, self.requests, self.failures, self.errors = page, [], [], []
        page.on("request", lambda request: self.requests.append(request.url))
        # A request the next navigation cuts short (the favicon, fetched after the load) is ERR_ABORTED,
        # no fault of the site; a file that is not there is its status, below.
        page.on("requestfailed", lambda request: request.failure == "net::ERR_ABORTED" or self.failures.append(
            f"{request.url} ({request.failure})"))
        page.on("response", lambda response: response.status >= 400 and self.failures.append(
            f"{response.url} ({response.status})"))
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def forget(self) -> Watched:
        """Forget what was requested, what failed and the errors so far: what follows is a new test's own."""
        for seen in (self.requests, self.failures, self.errors):
            seen.clear()
        return self

    def foreign(self) -> list[str]:
        return [url for url in self.requests
                if urlsplit(url).scheme not in ("data", "blob", "file") and urlsplit(url).hostname not in LOCAL_HOSTS]


def opened(chromium, url: str | None = None, wait_until: str = "load") -> Iterator[Watched]:
    """A tab of its own context (its own cache), ``url`` loaded in it if given; closed when the generator is."""
    context = chromium.new_context()
    page = Watched(context.new_page())
    if url is not None:
        page.page.goto(url, wait_until=wait_until)
    yield page
    context.close()


@pytest.fixture()
def watched(chromium) -> Iterator[Watched]:
    """A fresh tab: nothing cached, nothing requested yet."""
    yield from opened(chromium)


@pytest.fixture(scope="module")
def tab(chromium) -> Iterator[Watched]:
    """One tab for a series of page loads, its cache kept between them, as a reader's browser keeps it."""
    yield from opened(chromium)


# What the page shows is typeset: the wrappers hold KaTeX, KaTeX reported nothing, and no TeX is left
# in the visible text (KaTeX's MathML annotations are not visible).
TYPESET = """() => {
  const wrappers = [...document.querySelectorAll('.dv-eq, .dv-math')];
  const article = document.querySelector('article');
  const clone = article.cloneNode(true);
  clone.querySelectorAll('.katex-mathml, code, pre, script, style').forEach(el => el.remove());
  return {formulas: wrappers.length, untypeset: wrappers.filter(el => !el.querySelector('.katex-html')).length,
          errors: document.querySelectorAll('.katex-error').length, text: clone.innerText};
}"""


def pages(site) -> list[str]:
    return [path.relative_to(site).as_posix() for path in html_files(site)]


def source_pages() -> list[str]:
    """Every page of the site, from its sources (docs/*.md, docs/notebooks/*.py) and the theme (404)."""
    return sorted([page_url(md) or "index.html" for md in DOCS.rglob("*.md")]
                  + [page_url(f"notebooks/{nb.stem}") for nb in (DOCS / "notebooks").glob("*.py")] + ["404.html"])


def test_the_site_has_a_page_for_each_source(site):
    assert pages(site) == source_pages()


def load_sound(tab: Watched, url: str, wait_until: str = "load") -> None:
    """Load ``url`` in ``tab`` and check it: every formula typeset, no TeX showing, nothing but the site's
    own files requested, nothing failed, no console error."""
    tab.forget()
    response = tab.page.goto(url, wait_until=wait_until)
    assert response is not None and (response.ok or url.endswith("404.html")), url
    state = tab.page.evaluate(TYPESET)
    assert state["untypeset"] == 0 and state["errors"] == 0, (url, state)
    left = [tex for tex in RAW_TEX if tex in state["text"]]
    assert not left, f"{url}: raw TeX {left} in the visible text"
    assert not tab.foreign(), f"{url}: requests leaving the host: {tab.foreign()}"
    assert not tab.failures, f"{url}: failed requests: {tab.failures}"
    assert not tab.errors, f"{url}: console errors: {tab.errors}"


def kind(name: str) -> tuple[bool, ...]:
    """What sets a family page apart from another in a browser: its calculator shows an active count, derives a
    size from two others, shows the key/value cache, lists rules, reads a decoder's tokens besides an encoder's.
    Every family page comes from one template (its shortcodes and calculator script): a page of each kind is
    loaded in Chromium, and every page's HTML is checked without a browser (tests/test_site.py), every
    calculator's arithmetic in node (tests/test_calculator.py)."""
    from derivations import memory
    from derivations.site import calculator

    family = registry.families()[name]
    return (bool(family.active), bool(family.ratios),
            any(calculator.cache_elements(family, c) != 0 for c in family.architectures), bool(calculator.rules(family)),
            any(memory.per_token(part, cross=True) != 0 for part in family.architectures.values()))


def covering(kinds: dict[str, tuple[bool, ...]]) -> list[str]:
    """The fewest of ``kinds`` (the first such, in their order) among which each feature is seen present and absent,
    wherever some kind has it and some lacks it: the pages a light run loads to meet every branch of the template."""
    seen = [set(values) for values in zip(*kinds.values())]
    for size in range(1, len(kinds) + 1):
        for chosen in itertools.combinations(kinds, size):
            if all({kinds[name][i] for name in chosen} == values for i, values in enumerate(seen)):
                return list(chosen)
    raise AssertionError("unreachable: all the kinds cover themselves")


# The first family of each kind, in the navigation's order: every one in CI; in `make test`, the fewest that show each
# feature present and absent (a family page in Chromium is two seconds of CPU, its calculator's arithmetic is
# checked for every family in node, tests/test_calculator.py, and its HTML in tests/test_site.py).
ALL_KINDS = {kind(name): name for name in reversed(registry.families())}
ALL_KINDS = {name: features for features, name in reversed(ALL_KINDS.items())}
KINDS = profiles.cases(list(ALL_KINDS), covering(ALL_KINDS))
FAMILY_PAGES = {page_url(name) for name in registry.families()}
# Pages of one template beside the family pages: a notebook and a family's common mistakes, one of each kind.
# (The notebooks of every kind in CI, of two in `make test`: a notebook page has no script of its family's.)
TEMPLATED = {"notebooks/": {page_url(f"notebooks/{name}") for name in profiles.cases(KINDS, KINDS[:2])},
             "mistakes-": {"mistakes-bert.html"}}


def served_pages() -> list[str]:
    """The pages loaded in Chromium: every page but the family pages (loaded with their calculators) and, of the
    notebooks and the families' mistakes pages, those of :data:`TEMPLATED`; in `make test` one in two of them, the
    home page among them (each page's HTML is checked without a browser in tests/test_site.py, every one in CI)."""
    pages = [page for page in source_pages() if page not in FAMILY_PAGES and
             all(not page.startswith(prefix) or page in chosen for prefix, chosen in TEMPLATED.items())]
    return sorted(set(profiles.spread(pages, 2, group=lambda _: "page")) | {"index.html"})


def test_a_page_of_each_kind_is_served():
    assert len(ALL_KINDS) >= 4 and set(KINDS) <= set(ALL_KINDS) <= set(registry.families())
    # Each feature of a kind that some kinds have and some lack is, among the pages loaded, present and absent.
    assert all({ALL_KINDS[name][i] for name in KINDS} == set(values)
               for i, values in enumerate(zip(*ALL_KINDS.values())))
    assert all(chosen and chosen <= set(source_pages()) for chosen in TEMPLATED.values())


@pytest.mark.parametrize("page", served_pages())
def test_every_page_served(served, tab, page):
    # Each family page of a kind is checked where its calculator is (test_each_kind_of_family_page_and_its_...):
    # a page load each. What a page fetches after it has loaded (the sitemap, the search worker) is the same for
    # every page: the home page waits for it, the others for their own load.
    load_sound(tab, served + page, "networkidle" if page == "index.html" else "load")


def test_search_finds_the_pooler_on_the_bert_page(served, watched):
    watched.page.goto(served, wait_until="networkidle")
    field = watched.page.locator("input.md-search__input")
    field.click()
    field.press_sequentially("pooler", delay=20)  # the search listens to keys; fill() sends none
    results = watched.page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    targets = [urlsplit(results.nth(i).get_attribute("href")).path for i in range(results.count())]
    assert "/bert.html" in targets, targets  # the BERT page itself, not only a page whose path ends so
    previews = watched.page.locator(".md-search-result").inner_text()
    assert not [tex for tex in RAW_TEX if tex in previews], "raw TeX in the search results"
    assert not watched.errors and not watched.foreign()


def test_instant_navigation_keeps_formulas_typeset(served, watched):
    page = watched.page
    # From a page whose part of the navigation (navigation.prune) lists GPT-2: its kind's and maker's.
    page.goto(served + page_url("gpt1"), wait_until="networkidle")
    page.evaluate("() => { window.__loaded_once = true; }")  # survives an instant navigation, not a reload
    page.locator("nav.md-nav--primary a.md-nav__link[href$='gpt2.html']").first.click()
    page.wait_for_url("**/gpt2.html")
    page.locator("article h1#gpt-2").wait_for()  # the address changes before the content does
    page.locator("article .dv-eq .katex-html").first.wait_for()
    assert page.evaluate("() => window.__loaded_once === true"), "the click reloaded the page"
    state = page.evaluate(TYPESET)
    assert state["formulas"] > 10 and state["untypeset"] == 0 and state["errors"] == 0
    assert not [tex for tex in RAW_TEX if tex in state["text"]]
    assert not watched.errors and not watched.foreign()


LUMINANCE = """(selector) => {
  const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  const body = getComputedStyle(document.body), formula = getComputedStyle(document.querySelector(selector));
  return {scheme: document.body.getAttribute('data-md-color-scheme'),
          background: lum(rgb(body.backgroundColor)), formula: lum(rgb(formula.color))};
}"""


def test_dark_mode_switches_and_keeps_formulas_readable(served, watched):
    page = watched.page
    page.goto(served + page_url("bert"), wait_until="networkidle")
    light = page.evaluate(LUMINANCE, ".dv-eq .katex")
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark = page.evaluate(LUMINANCE, ".dv-eq .katex")
    assert light["scheme"] == "default" and dark["scheme"] == "slate"
    assert light["formula"] < light["background"] and dark["formula"] > dark["background"] + 0.4, (light, dark)
    assert not watched.errors


# -- the calculators ---------------------------------------------------------------------

# What a calculator shows: each row's name and count of all its copies, the total, the message over the
# result, whether the result is marked stale, and the words beside each field that has some.
# The page's address as the page has it: Playwright's page.url follows history.replaceState only once the
# browser has told it, some time after the keystroke that called it.
HREF = "() => location.href"
READ = """(form) => ({
  rows: [...form.querySelectorAll('.dv-calc-table tbody tr')].map(tr => [tr.cells[0].innerText,
                                                                         tr.querySelector('.dv-calc-all').innerText]),
  total: form.querySelector('.dv-calc-total').innerText,
  message: form.querySelector('.dv-calc-message').hidden ? '' : form.querySelector('.dv-calc-message').innerText,
  stale: form.querySelector('.dv-calc-result').classList.contains('dv-calc-stale'),
  notes: Object.fromEntries([...form.querySelectorAll('.dv-calc-error:not([hidden])')].map(
    note => [note.previousElementSibling.name, note.innerText])),
  preset: form.querySelector("select[name='preset']").selectedOptions[0].text,
})"""


def expected(family, architecture: str, values: dict) -> tuple[list[list[str]], str]:
    """The rows and total the package gives (the command line's rows), formatted as the page does."""
    from derivations import render, symbols
    from derivations.site import calculator
    from derivations.components import evaluate

    part = family.architectures[architecture]
    at = symbols.valued(values)
    for size, (numerator, denominator) in calculator.ratios(family).items():  # BERT's d_h = floor(D / H)
        if numerator in at and denominator in at:
            at[size] = at[numerator] // at[denominator]
    rows = [[q.split(".", 1)[1], render.number(evaluate(copies * leaf.expr, at))] for q, leaf, copies in part.leaves()]
    return rows, render.number(part.count(at))


SET_SIZES = """(form, values) => {
  for (const [name, value] of Object.entries(values)) {
    const field = form.querySelector(`input[name='${name}']`);
    if (field && !field.disabled) {
      field.value = String(value);
      field.dispatchEvent(new Event('input', {bubbles: true}));  // as typing into the field does
    }
  }
}"""


def set_sizes(page, form, values: dict) -> None:
    """Every size at once, each field given its input event (a round trip per field cost seconds a family)."""
    form.evaluate(SET_SIZES, values)


def obeying(family, architecture: str, values: dict, generator) -> dict:
    """The sizes, with the field of each rule they break drawn again (a power of two, or three times one)
    until no rule of the family refuses them: the page would show the last valid count instead."""
    from derivations import symbols
    from derivations.site import calculator

    values = dict(values)
    for _ in range(10_000):
        broken = calculator.refused(family, architecture, symbols.valued(values))
        if not broken:
            return values
        derived = {str(size): pair for size, pair in calculator.ratios(family).items()}
        for rule in broken:
            if str(rule.field) in derived:  # a derived size (ModernBERT's d_h = D / H): a width of other heads
                numerator, denominator = (str(s) for s in derived[str(rule.field)])
                values[numerator] = values[denominator] * generator.randint(1, 256)
            else:
                values[str(rule.field)] = generator.choice([1, 3]) * 2 ** generator.randint(0, 10)
    raise AssertionError(f"no sizes found that {family.__name__} accepts")


@pytest.mark.parametrize("name", KINDS)
def test_each_kind_of_family_page_and_its_calculator_on_desktop_and_phone(served, tab, name):
    import random

    from derivations.site import calculator

    watched = tab  # the tab the pages are checked in: its cache holds the site's scripts and fonts
    family = registry.families()[name]
    generator = random.Random(f"20261123-{name}")
    load_sound(watched, served + page_url(name))  # the page as test_every_page_served checks the others
    form = watched.page.locator("form.dv-calculator")
    presets = calculator.presets(family)
    offered = form.locator("select[name='preset'] option:not([disabled])").evaluate_all("options => options.map(o => o.value)")
    assert offered == list(presets), name  # the checkpoints of the layout the calculator counts
    # The wiring only: test_calculator.py checks the arithmetic of every class on every checkpoint and on
    # random sizes, in node, with the script the page runs. Here the first checkpoint in the class the form
    # starts with, then the last class on random sizes up to totals past 10^15 (a choice of class, and
    # every field set by hand).
    form.locator("select[name='preset']").select_option(next(iter(presets)))
    architecture = form.locator("select[name='class']").input_value()
    shown = form.evaluate(READ)
    assert (shown["rows"], shown["total"]) == expected(family, architecture, presets[next(iter(presets))]), name
    architecture = list(family.architectures)[-1]
    form.locator("select[name='class']").select_option(architecture)
    most = calculator.maximum(family)  # a switch (DeBERTa-v2's n_sh) is 0 or 1
    values = {str(s): generator.randint(0, most[str(s)]) if str(s) in most
              else generator.choice([generator.randint(1, 64), generator.randint(1, 10**6)])
              for s in calculator.sizes(family)}
    for numerator, denominator in calculator.ratios(family).values():  # widths the heads divide
        values[str(numerator)] = values[str(denominator)] * generator.randint(1, 256)
    values = obeying(family, architecture, values, generator)
    set_sizes(watched.page, form, values)
    shown = form.evaluate(READ)
    used = {str(s) for s in family.architectures[architecture].total.free_symbols}
    assert (shown["rows"], shown["total"]) == expected(family, architecture,
                                                       {k: v for k, v in values.items() if k in used})
    assert not watched.errors
    # The same page on a phone: the window narrowed to 390 px (the page is laid out again, as on a phone).
    desktop = watched.page.viewport_size
    watched.page.set_viewport_size(PHONE)
    try:
        works_on_a_phone(watched.page, name)
    finally:
        watched.page.set_viewport_size(desktop)


def test_calculator_refuses_bad_sizes(served, watched):
    # A bad size keeps the last count, marked stale, and says what is wrong beside the field.
    watched.page.goto(served + page_url("gpt2"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    good = form.evaluate(READ)
    assert good["total"] == "124,439,808" and not good["stale"] and not good["message"] and not good["notes"]
    for text in ["abc", "0", "-3", "1.5", "", "9223372036854775808"]:  # each after a good size
        form.locator("input[name='D']").fill(text)
        shown = form.evaluate(READ)
        assert shown["stale"] and shown["message"].startswith("Stale"), (text, shown)
        assert (shown["rows"], shown["total"]) == (good["rows"], good["total"]), f"D = {text!r}"
        assert list(shown["notes"]) == ["D"] and "whole number" in shown["notes"]["D"], (text, shown)
        assert form.locator("input[name='D']").get_attribute("aria-invalid") == "true"
        form.locator("input[name='D']").fill("768")
        assert form.evaluate(READ) == good  # GPT2LMHeadModel on gpt2: 124,439,808 [cite: transformers-14960]
        assert form.locator("input[name='D']").get_attribute("aria-invalid") == "false"


def test_bert_calculator_takes_the_head_size_from_the_width(served, watched):
    # BertConfig(hidden_size=1536): 12 heads of 128, 276,730,368 parameters in BertModel (the command
    # line, and transformers on the meta device, give the same). 1000 is no multiple of 12 heads: the page
    # says transformers builds it when the config sets embedding_size (heads of 83), so the calculator counts
    # it, with that note beside the field; 13 heads on a width of 12 are heads of size 0, which fail.

    watched.page.goto(served + page_url("bert"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    form.locator("select[name='class']").select_option("BertModel")
    form.locator("input[name='D']").fill("1536")
    assert form.evaluate(READ)["total"] == f"{registry.resolve({'model_type': 'bert', 'hidden_size': 1536}).total:,}"
    form.locator("input[name='D']").fill("1000")
    shown = form.evaluate(READ)
    config = {"model_type": "bert", "hidden_size": 1000, "embedding_size": 1000}
    assert shown["total"] == f"{registry.resolve(config).total:,}" and not shown["stale"], shown
    assert list(shown["notes"]) == ["D"] and "embedding_size" in shown["notes"]["D"], shown  # beside the field typed in
    assert form.locator("input[name='D']").get_attribute("aria-invalid") == "false"  # a note, not an error
    form.locator("input[name='D']").fill("12")
    form.locator("input[name='H']").fill("13")
    shown = form.evaluate(READ)
    assert shown["stale"] and "size 0" in shown["notes"]["H"], shown


def test_calculator_is_exact_beyond_double_precision(served, watched):
    # Sizes whose total passes 2^53 (where a JavaScript Number would round): the page must show the
    # package's exact integer.
    from derivations import symbols
    from derivations.families import gpt2

    watched.page.goto(served + page_url("gpt2"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    sizes = {"V": 1_000_003, "P": 999_983, "D": 1_000_033, "F": 4_000_037, "L": 999_979}
    set_sizes(watched.page, form, sizes)
    exact = gpt2.ARCHITECTURES["GPT2LMHeadModel"].count(symbols.valued(sizes))
    assert exact > 2**53 and float(exact) != exact
    assert form.evaluate(READ)["total"] == f"{exact:,}"


PHONE = {"width": 390, "height": 844}

# The words beside a field (its aria-describedby) against the field: where each sits, and the colours.
BESIDE = """(input) => {
  const note = document.getElementById(input.getAttribute('aria-describedby'));
  const a = input.getBoundingClientRect(), b = note.getBoundingClientRect();
  return {field: {left: a.left, bottom: a.bottom}, note: {left: b.left, top: b.top, right: b.right},
          width: document.documentElement.clientWidth, color: getComputedStyle(note).color,
          text: getComputedStyle(document.body).color, background: getComputedStyle(document.body).backgroundColor};
}"""


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two CSS rgb() colours."""
    def luminance(css: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", css)[:3]]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted([luminance(one), luminance(other)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_calculator_keeps_its_last_result_after_a_bad_keystroke_on_a_phone(served, chromium):
    # At 390 px: a letter typed after the width keeps the last count, marked stale, and puts the error
    # right under the field, in a colour that is not the text's and reads on both palettes.
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(served + page_url("llama"), wait_until="load")
    form = page.locator("form.dv-calculator")
    good = form.evaluate(READ)
    field = form.locator("input[name='D']")
    field.click()
    field.press("End")
    field.press("x")  # 4096x
    shown = form.evaluate(READ)
    assert shown["stale"] and shown["message"].startswith("Stale"), shown
    assert (shown["rows"], shown["total"]) == (good["rows"], good["total"])
    assert list(shown["notes"]) == ["D"] and field.get_attribute("aria-invalid") == "true"
    for scheme in ("default", "slate"):
        if scheme == "slate":
            page.locator("form[data-md-component='palette'] label:visible").first.click()
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
        where = field.evaluate(BESIDE)
        assert 0 <= where["note"]["top"] - where["field"]["bottom"] < 24, where  # under the field
        assert abs(where["note"]["left"] - where["field"]["left"]) < 60 and where["note"]["right"] <= where["width"], where
        red, green, blue = (int(c) for c in re.findall(r"\d+", where["color"])[:3])
        assert red > green + 80 and red > blue + 80, where  # an error colour, not the text's
        assert contrast(where["color"], where["background"]) >= 4.5, (scheme, where)
    field.press("End")  # focuses the field again (the palette's switch had it)
    field.press("Backspace")
    assert form.evaluate(READ) == good
    context.close()


CALCULATOR_GEOMETRY = """(form) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const fields = [...form.querySelectorAll('input, select')].filter(el => el.offsetParent !== null);
  return {form: box(form), width: document.documentElement.clientWidth,
          total: box(form.querySelector('.dv-calc-total')), table: box(form.querySelector('.dv-calc-table')),
          active: form.querySelector('.dv-calc-active') && box(form.querySelector('.dv-calc-active')),
          fields: fields.map(el => [el.name, parseFloat(getComputedStyle(el).fontSize), el.getBoundingClientRect().height])};
}"""


def test_the_address_carries_the_sizes(served, watched):
    # Typing writes the class and the sizes into the address (no history entry); that address, opened
    # anew, shows the same count, and "start from" names no checkpoint once the sizes are no checkpoint's.
    from derivations.families import llama

    page = watched.page
    page.goto(served + page_url("llama"), wait_until="load")
    form = page.locator("form.dv-calculator")
    length = page.evaluate("() => history.length")
    form.locator("select[name='preset']").select_option("llama-2-70b")
    form.locator("input[name='L']").fill("100")
    shown = form.evaluate(READ)
    assert shown["preset"] == "custom sizes", shown
    values = {k: v for k, v in calculator_presets("llama")["llama-2-70b"].items() if k != "C"} | {"L": 100}
    assert (shown["rows"], shown["total"]) == expected(llama.FAMILY, "LlamaForCausalLM", values)
    href = page.evaluate(HREF)
    url = urlsplit(href)
    assert url.fragment == "calc-llama" and "L=100" in url.query.split("&") and "class=LlamaForCausalLM" in url.query
    assert page.evaluate("() => history.length") == length  # replaced, not pushed
    other = watched.page.context.new_page()
    other.goto(href, wait_until="load")
    assert other.locator("form.dv-calculator").evaluate(READ) == shown
    assert other.evaluate("() => window.scrollY") > 0  # opened at the calculator (#calc-llama)
    other.close()
    form.locator("input[name='L']").fill("80")
    assert form.evaluate(READ)["preset"] == "llama-2-70b"  # its sizes again
    assert not watched.errors


def calculator_presets(name: str) -> dict:
    from derivations.site import calculator

    return calculator.presets(registry.families()[name])


# What each page says of the heads and the width, and what its calculator does with a width the heads do
# not divide: refuse it (marked beside the heads), or count it.
PAGE_RULES = [
    ("llama", "LlamaConfig requires the heads to divide the width", {"D": 4096, "H": 40}, False),
    ("mistral", "Mistral's does not require the heads to divide the width", {"D": 4096, "H": 40}, True),
    ("bert", "transformers also accepts a hidden size that the heads do not divide", {"D": 1000, "H": 12}, True),
    ("distilbert", "The heads must divide dim", {"D": 1000, "H": 12}, False),
    ("albert", "never requires the heads to divide the width", {"D": 1000, "H": 12}, True),
]


# A calculator that refuses and one that counts in `make test`; each page's in CI.
RULES_LOADED = profiles.cases(PAGE_RULES, PAGE_RULES[:2])


@pytest.mark.parametrize("name, says, sizes, counts", RULES_LOADED, ids=[p[0] for p in RULES_LOADED])
def test_calculators_apply_the_rules_their_pages_state(served, watched, name, says, sizes, counts):
    page = watched.page
    page.goto(served + page_url(name), wait_until="load")
    assert says in " ".join(page.locator("article").inner_text().split()), name
    form = page.locator("form.dv-calculator")
    good = form.evaluate(READ)
    form.locator("input[name='H']").fill(str(sizes["H"]))
    form.locator("input[name='D']").fill(str(sizes["D"]))
    shown = form.evaluate(READ)
    if counts:
        family = registry.families()[name]
        values = {k: v for k, v in calculator_presets(name)[next(iter(calculator_presets(name)))].items()} | sizes
        architecture = form.locator("select[name='class']").input_value()
        used = {str(s) for s in family.architectures[architecture].total.free_symbols} | {"D", "H"}
        assert not shown["stale"] and (shown["rows"], shown["total"]) == expected(
            family, architecture, {k: v for k, v in values.items() if k in used}), shown
    else:
        assert shown["stale"] and shown["total"] == good["total"] and "divide" in shown["notes"]["D"], shown
    assert not watched.errors


def test_calculator_address_under_instant_navigation(served, watched):
    # Reached by instant navigation (no page load), the calculator writes its address as well; back and
    # forward bring the page at that address, with its sizes.
    page = watched.page
    page.goto(served + page_url("gpt1"), wait_until="networkidle")  # its navigation lists its maker's GPT-2
    page.evaluate("() => { window.__loaded_once = true; }")
    page.locator("nav.md-nav--primary a.md-nav__link[href$='gpt2.html']").first.click()
    page.wait_for_url(lambda url: urlsplit(url).path.endswith("/gpt2.html"))  # its query may follow
    page.locator("article h1#gpt-2").wait_for()  # the address changes before the content: GPT-1's form is there
    form = page.locator("form.dv-calculator")
    page.locator("form.dv-calculator[data-ready]").wait_for()  # wired once its arithmetic has loaded
    form.locator("input[name='L']").fill("3")
    shown = form.evaluate(READ)
    assert page.evaluate("() => window.__loaded_once === true"), "the click reloaded the page"
    assert "L=3" in urlsplit(page.evaluate(HREF)).query.split("&") and not shown["stale"]
    page.go_back()
    page.wait_for_url(lambda url: urlsplit(url).path.endswith("/gpt1.html"))
    page.go_forward()
    page.wait_for_url("**/gpt2.html?*")
    page.locator("article h1#gpt-2").wait_for()
    form.locator(".dv-calc-total:not(:empty)").wait_for()
    # The page swapped in by instant navigation sets its sizes from the address once its script has run.
    page.wait_for_function("() => document.querySelector(\"form.dv-calculator input[name='L']\")?.value === '3'",
                           timeout=20_000)
    assert form.locator("input[name='L']").input_value() == "3" and form.evaluate(READ) == shown
    assert not watched.errors and not watched.foreign()


def test_the_address_carries_the_sizes_from_disk(site, watched):
    # Opened from a file manager (file://, no instant navigation): an address with sizes gives their
    # count, and typing rewrites it.
    from derivations.families import gpt2

    page = watched.page
    values = {"V": 50257, "P": 1024, "D": 1600, "F": 6400, "L": 48}
    address = (site / "gpt2.html").as_uri() + "?class=GPT2LMHeadModel&" + "&".join(f"{k}={v}" for k, v in values.items())
    page.goto(address + "#calc-gpt2", wait_until="load")
    form = page.locator("form.dv-calculator")
    shown = form.evaluate(READ)
    assert (shown["rows"], shown["total"]) == expected(gpt2.FAMILY, "GPT2LMHeadModel", values)  # gpt2-xl's sizes
    assert shown["preset"] == "gpt2-xl"
    form.locator("input[name='L']").fill("47")
    href = page.evaluate(HREF)
    assert "L=47" in urlsplit(href).query.split("&") and href.startswith("file://")
    assert not watched.errors, watched.errors


# -- the addresses of 0.3.0, and the site from disk ---------------------------------------

def test_the_addresses_of_earlier_versions_lead_to_their_pages(served, watched):
    # 0.3.0 put each page at NAME/ (and NAME/#anchor is what its citations give); the page is now NAME.html.
    page = watched.page
    page.goto(served + "bert/#cite-this", wait_until="networkidle")
    assert page.url == served + "bert.html#cite-this"
    page.goto(served + "notebooks/gpt2/", wait_until="networkidle")
    assert page.url == served + "notebooks/gpt2.html" and page.locator(".jp-OutputArea-output").count()
    assert not watched.errors and not watched.foreign()


@pytest.fixture(scope="module")
def search_tab(served, chromium) -> Iterator[Watched]:
    """The home page, loaded once with its search index for the tests that search on it, as a reader searches one
    word after another (each search clears the box: :func:`search`)."""
    yield from opened(chromium, served, "networkidle")


@pytest.fixture()
def searching(search_tab) -> Watched:
    """The search tab with what it requested, what failed and its errors forgotten: this test's own."""
    return search_tab.forget()


SEARCH_RESULTS = ".md-search-result__item a"
# Each result's page, from the site's root ("notebooks/bert.html"), served or from disk alike.
RESULT_PAGES = """links => {
  const root = new URL(JSON.parse(document.querySelector('#__config').textContent).base, location.href).href;
  return links.map(a => a.href.startsWith(root) ? a.href.slice(root.length).split(/[?#]/)[0] : a.href);
}"""


# Material's line above the results: "Type to start searching", then "No matching documents" or
# "N matching documents".
SEARCH_META = ".md-search-result__meta"
SEARCH_ANSWERED = f"answered => /matching/.test(document.querySelector('{SEARCH_META}').textContent) === answered"


def search(page, text: str) -> list[str]:
    """The pages the search box lists for ``text``, in its order (each page once). The text goes into the
    box whole, then a key is released: Material reads the box at every key, and a text typed letter by
    letter could be read while the list shown is still that of the letters before."""
    field = page.locator("input.md-search__input")
    field.click()
    field.fill("")
    field.press("End")
    page.wait_for_function(SEARCH_ANSWERED, arg=False, timeout=20_000)  # the last text's answer is gone
    field.fill(text)
    field.press("End")
    page.wait_for_function(SEARCH_ANSWERED, arg=True, timeout=20_000)
    if page.locator(SEARCH_META).inner_text().startswith("No "):
        return []
    page.locator(SEARCH_RESULTS).first.wait_for(timeout=20_000)
    return list(dict.fromkeys(page.locator(SEARCH_RESULTS).evaluate_all(RESULT_PAGES)))


# Abbreviations readers type, each with the page that explains it: the search lists that page first.
ABBREVIATIONS = {"GQA": "llama.html", "MoE": "mixtral.html", "RoPE": "gpt_neox.html", "NSP": "bert.html",
                 "MQA": "components.html", "MLA": "deepseek_v2.html"}


# Abbreviations that are also in pages' titles, or in a config field a page names throughout (Llama 4's moe_layers):
# those pages may come first, the explanation right after them.
IN_TITLES = {"MoE": {f"{folder}{name}.html" for folder in ("", "notebooks/")
                     for name in ("qwen2_moe", "qwen3_moe", "llama4_text")}}


def test_search_lists_first_the_page_that_explains_an_abbreviation(searching):
    first = {}
    for text in ABBREVIATIONS:
        listed = [page for page in search(searching.page, text) if page not in IN_TITLES.get(text, set())]
        first[text] = (listed or ["nothing"])[0]
    assert first == ABBREVIATIONS
    assert not searching.errors and not searching.foreign()


# Words that many pages write, each with the page that explains it: every family page's Memory section repeats "bf16"
# and "int4" (hooks/search.py takes the family's boost off those sections); and a model no family derives, which the
# coverage page names.
EXPLAINED = {"bf16": "memory.html", "int4": "memory.html", "mamba": "coverage.html"}


def test_search_lists_first_the_page_that_explains_a_term_that_many_pages_repeat(searching):
    first = {text: (search(searching.page, text) or ["nothing"])[0] for text in EXPLAINED}
    assert first == EXPLAINED
    assert not searching.errors and not searching.foreign()


# The text each result shows under its page's or section's title, by the page it leads to.
SNIPPETS = """() => [...document.querySelectorAll('.md-search-result__link')].map(link => {
  const article = link.querySelector('article').cloneNode(true);
  article.querySelectorAll('h1, h2, .md-search-result__icon').forEach(el => el.remove());
  return [new URL(link.href).pathname.split('/').pop(), article.textContent.trim()];
})"""


def test_a_search_result_shows_the_list_item_or_the_table_row_that_matched(searching):
    # Not the whole list of sources, nor a run of the notation table cut where its code starts (hooks/search.py).
    page = searching.page
    search(page, "devlin2019")
    shown = [text for where, text in page.evaluate(SNIPPETS) if where == "sources.html" and text]
    assert len(shown) == 1 and shown[0].startswith("devlin2019") and "vaswani2017" not in shown[0], shown
    search(page, "ffn_dim_multiplier")
    shown = [text for where, text in page.evaluate(SNIPPETS) if where == "notation.html" and text]
    # The row of r, the factor; not the row before it, of M (multiple_of, 256).
    assert len(shown) == 1 and "ffn_dim_multiplier" in shown[0] and "multiple_of" not in shown[0], shown
    assert not searching.errors and not searching.foreign()


def test_search_lists_a_family_page_before_its_notebook_and_the_mistakes_page(searching):
    # For the family's name (its page's title; its notebook's title starts with it too), and for a term
    # of its own that its notebook and its page of common mistakes also write (Mixtral's router).
    # Every family in CI; one in four in `make test` (a search is a fifth of a second in Chromium).
    for name in profiles.spread(sorted(registry.families()), 4, group=lambda _: "family"):
        title = (DOCS / f"{name}.md").read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
        listed = search(searching.page, title)
        # Its page first (a title may also be another's start: "Gemma" lists Gemma 2 and 3 too), then its notebook
        # where the list reaches it (a short title, "GPT-3", also matches other families' pages).
        assert page_url(name) in listed[:3], (title, listed)
        if page_url(f"notebooks/{name}") in listed:
            assert listed.index(page_url(name)) < listed.index(page_url(f"notebooks/{name}")), (title, listed)
    listed = search(searching.page, "router")  # every mixture's page writes it: Mixtral's before its own others
    # (its notebook and mistakes page, where the results listed reach them: the memory pages and seven mixtures write
    # "router" too)
    assert all(listed.index("mixtral.html") < listed.index(other)
               for other in ("notebooks/mixtral.html", "mistakes-mixtral.html") if other in listed), listed
    assert not searching.errors and not searching.foreign()


def test_the_search_index_loads_when_search_is_opened(served, watched):
    # The index is the site's heaviest file: a page loads without it (js/search-on-open.js holds Material's request
    # until search opens), and opening search loads it, once.
    page = watched.page

    def index() -> list[str]:
        return [urlsplit(url).path for url in watched.requests if "/search/search_index" in url]

    page.goto(served + page_url("notation"), wait_until="networkidle")
    assert not index()
    assert search(page, "mamba")[0] == "coverage.html"
    assert index() == ["/search/search_index.json"]
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_only_a_page_with_a_calculator_requests_its_arithmetic(served, watched):
    # js/calculators.js, a page with a calculator's alone, also under instant navigation: not on the way through
    # pages without one, and on arriving at one, whose calculator then counts.
    page = watched.page

    def arithmetic() -> list[str]:
        return [url for url in watched.requests if urlsplit(url).path.endswith("/js/calculators.js")]

    page.goto(served + page_url("notation"), wait_until="networkidle")
    page.locator("nav.md-nav--primary a.md-nav__link[href$='memory.html']").first.click()
    page.wait_for_url("**/memory.html")
    page.locator("article h1#memory").wait_for()
    assert not arithmetic(), arithmetic()
    # The decoders' first page (the pruned navigation's link for the section), then GPT-2 from its navigation:
    # the arithmetic loads on arriving at the first calculator, once.
    page.locator("nav.md-nav--primary a.md-nav__link[href$='gpt1.html']").first.click()
    page.wait_for_url("**/gpt1.html")
    page.locator("form.dv-calculator[data-ready]").wait_for()
    assert len(arithmetic()) == 1
    page.locator("nav.md-nav--primary a.md-nav__link[href$='gpt2.html']").first.click()
    page.wait_for_url("**/gpt2.html")
    page.locator("article h1#gpt-2").wait_for()  # the address changes before the content: GPT-1's form was still there
    page.locator("form.dv-calculator[data-ready]").wait_for()
    assert len(arithmetic()) == 1
    assert page.locator("form.dv-calculator").evaluate(READ)["total"] == "124,439,808"  # [cite: transformers-14960]
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_the_site_works_from_disk(site, watched):
    # Opened from a file manager: every link of the navigation opens a page (not a folder listing); each
    # kind of page has its formulas typeset (the same files as served, every page checked above); search
    # works without a server; pictures and calculators are there.
    page = watched.page
    home = (site / "index.html").as_uri()
    page.goto(home, wait_until="load")
    links = page.locator("nav.md-nav--primary a.md-nav__link[href]").evaluate_all("links => links.map(a => a.href)")
    assert len(links) > 20, links
    for link in sorted(set(links)):  # each a page file (every page is loaded from disk above)
        assert link.startswith("file://") and Path(urlsplit(link).path).is_file(), link
    page.locator("nav.md-nav--primary a.md-nav__link[href='bert.html']").first.click()
    page.wait_for_url("**/bert.html")
    for kind in ("index.html", "bert.html", "notebooks/bert.html", "mistakes.html"):  # each kind of page
        page.goto((site / kind).as_uri(), wait_until="load")
        state = page.evaluate(TYPESET)
        assert state["formulas"] and state["untypeset"] == 0 and state["errors"] == 0, (kind, state)
        assert not [tex for tex in RAW_TEX if tex in state["text"]], kind
    page.goto(home, wait_until="load")
    # The index loads when search opens (Material's way from disk), as a script.
    assert not [url for url in watched.requests if "/search/search_index" in url]
    assert "bert.html" in search(page, "pooler")
    assert [url for url in watched.requests if "/search/search_index" in url][-1].endswith("/search/search_index.js")
    assert "llama.html" in search(page, "grouped-query")
    assert search(page, "GQA")[0] == "llama.html"  # the index from disk is the served one (test_site)
    page.goto((site / "gpt2.html").as_uri(), wait_until="load")
    assert page.locator("figure.dv-figure .dv-bar").count() >= 1
    form = page.locator("form.dv-calculator")
    form.locator("input[name='D']").fill("768")
    assert form.evaluate(READ)["total"] == "124,439,808"  # GPT2LMHeadModel on gpt2: [cite: transformers-14960]
    assert not watched.errors, watched.errors
    assert not watched.foreign(), watched.foreign()


# -- answer first, on a phone ---------------------------------------------------------------


def works_on_a_phone(page, name: str) -> None:
    """At 390 px: the count of the at-a-glance box is on the first screen, whole, without scrolling
    sideways, and no text of the box or of the pictures is under 12 px. The calculator fits the
    screen's width (its table scrolls inside it), the total (and a mixture's active count) is above the
    table and on screen, and every field has text of 16 px at least (a phone zooms in on smaller) and
    is at least 44 px tall, a target a thumb can hit."""
    page.evaluate("() => window.scrollTo(0, 0)")
    shape = page.locator("form.dv-calculator").evaluate(CALCULATOR_GEOMETRY)
    assert 0 <= shape["form"]["left"] and shape["form"]["right"] <= shape["width"], (name, shape)
    for count in filter(None, [shape["total"], shape["active"]]):
        assert 0 <= count["left"] and count["right"] <= shape["width"] and count["bottom"] <= shape["table"]["top"], (name, shape)
    assert shape["fields"], name
    for field, size, height in shape["fields"]:
        assert size >= 16 and height >= 43.5, (name, field, size, height)
    assert (shape["active"] is not None) == bool(registry.families()[name].active), name
    box = page.locator("#at-a-glance .dv-glance-number .dv-num").first.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (name, box)
    assert box["y"] + box["height"] <= PHONE["height"], f"{name}: the answer is below the first screen ({box})"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{name}: the page scrolls sideways by {overflow} px"
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        '#at-a-glance p, #at-a-glance li, .dv-bar span span, .dv-bar-label')].map(
        el => parseFloat(getComputedStyle(el).fontSize)))""")
    assert smallest >= 12, f"{name}: text of {smallest} px"


# The size on screen of each text of an SVG picture: its font size times the picture's scale (a rotated
# label's too).
SVG_TEXT = """() => [...document.querySelectorAll('figure.dv-figure svg tspan, figure.dv-figure svg text:not(:has(tspan))')].map(
    el => ({size: parseFloat(getComputedStyle(el).fontSize) * Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b),
           fill: getComputedStyle(el).fill,
           text: el.textContent})).filter(t => t.text.trim())"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_home_picture_reads_on_a_phone_in_either_scheme(served, chromium, scheme):
    context = chromium.new_context(viewport=PHONE, color_scheme=scheme)
    page = context.new_page()
    page.goto(served + page_url("index"), wait_until="load")
    texts = page.evaluate(SVG_TEXT)
    colour = page.evaluate("() => getComputedStyle(document.querySelector('article')).color")
    assert texts and min(t["size"] for t in texts) >= 12, sorted(t["size"] for t in texts)[:3]
    assert {t["fill"] for t in texts} == {colour}, "the picture's text is not in the page's text colour"
    context.close()


def test_a_wide_table_keeps_its_key_column_on_a_phone(served, chromium):
    # The checkpoint table is wider than a phone: it scrolls within itself, and its first column stays put.
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(served + page_url("llama"), wait_until="load")
    table = page.locator("table:has(tr#checkpoint-llama-7b)")
    table.scroll_into_view_if_needed()
    scroller = table.locator("xpath=ancestor::div[contains(@class, 'md-typeset__scrollwrap')]")
    assert scroller.evaluate("s => s.scrollWidth > s.clientWidth"), "the table fits: nothing to check"
    cell = table.locator("tr#checkpoint-llama-7b td").first
    before = cell.bounding_box()["x"]
    scroller.evaluate("s => { s.scrollLeft = s.scrollWidth; }")
    assert abs(cell.bounding_box()["x"] - before) <= 1, "the key column scrolled away"
    assert 0 <= before and cell.bounding_box()["width"] < PHONE["width"] / 2
    context.close()


# Where a linked row and its table's headings are, against the sticky header and the window.
LINKED_ROW = """(id) => {
  const row = document.getElementById(id), head = row.closest('table').tHead.getBoundingClientRect();
  const box = row.getBoundingClientRect();
  return {header: document.querySelector('.md-header').getBoundingClientRect().bottom, head_top: head.top,
          head_bottom: head.bottom, row_top: box.top, row_bottom: box.bottom, height: window.innerHeight};
}"""


# A phone's window in `make test` (the tighter one); a desktop's too in CI.
@pytest.mark.parametrize("viewport", profiles.cases([PHONE, {"width": 1280, "height": 800}], [PHONE]),
                         ids=profiles.cases(["phone", "desktop"], ["phone"]))
def test_a_link_to_a_checkpoint_shows_the_row_and_its_tables_headings(served, chromium, viewport):
    # A cited row (#checkpoint-llama-3-70b, far down its table) lands on screen with its table's headings above
    # it, not under the sticky header; a link to the citation opens its box, from the address or from the page.
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(served + page_url("llama") + "#checkpoint-llama-3-70b", wait_until="load")
    page.wait_for_timeout(200)  # the script runs after the browser's own scroll to the row
    seen = page.evaluate(LINKED_ROW, "checkpoint-llama-3-70b")
    assert seen["header"] <= seen["head_top"] < seen["head_bottom"] <= seen["row_top"], seen
    assert seen["row_bottom"] <= seen["height"], seen
    page.goto(served + page_url("deepseek_v3") + "#cite-this", wait_until="load")
    page.wait_for_timeout(200)
    assert page.locator("details#cite-this").evaluate("d => d.open")
    page.goto(served + page_url("gpt2"), wait_until="load")
    assert not page.locator("details#cite-this").evaluate("d => d.open")
    page.locator("#at-a-glance a[href$='#cite-this']").click()
    page.wait_for_timeout(200)
    assert page.locator("details#cite-this").evaluate("d => d.open")
    context.close()


# Each key cell of a table (its sticky first column) whose text is longer than a few characters: how wide
# it is, in characters of its own font.
KEY_CELLS = """() => [...document.querySelectorAll('article table:not([class]) tbody td:first-child')]
  .filter(td => td.textContent.trim().length > 6)
  .map(td => ({text: td.textContent.trim(),
               chars: td.getBoundingClientRect().width / parseFloat(getComputedStyle(td).fontSize)}))"""


def test_a_tables_key_column_reads_across_on_a_phone(served, chromium):
    # At 390 px the key column (a checkpoint's or a family's name) keeps several characters a line: a cell
    # squeezed to one letter a line ("l l a m a") is narrower than 4 of its font's em.
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    squeezed, wide = {}, {}
    for name in ("index", "llama", "gpt_oss", "deepseek_v3", "memory", "compute", "mistakes"):
        page.goto(served + page_url(name), wait_until="load")
        cells = page.evaluate(KEY_CELLS)
        assert cells, f"{name}: no table with a key column"
        squeezed[name] = [cell["text"] for cell in cells if cell["chars"] < 4]
        # ... and the page itself keeps the phone's width (a line kept whole once widened the memory page to 637 px).
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[name] = width
    context.close()
    assert not any(squeezed.values()), squeezed
    assert not wide, wide


# ---------------------------------------------------------------------------------------------
# The page for a config of one's own (config.html): Pyodide runs derivations/pasted.py
# ---------------------------------------------------------------------------------------------

PASTED = """form => ({
  status: form.querySelector('.dv-paste-status').textContent,
  message: form.querySelector('.dv-paste-message').hidden ? null : form.querySelector('.dv-paste-message').textContent,
  architecture: form.querySelector('.dv-paste-architecture').textContent,
  total: form.querySelector('.dv-paste-total').textContent,
  active: form.querySelector('.dv-paste-active').hidden ? null : form.querySelector('.dv-paste-active strong').textContent,
  rows: [...form.querySelector('tbody').rows].map(tr => [tr.cells[0].textContent, tr.cells[2].textContent]),
  foot: [...form.querySelector('tfoot').rows].map(tr => [tr.cells[0].textContent, tr.cells[2].textContent]),
  classes: [...form.querySelectorAll('select[name=architecture] option')].map(o => o.value).filter(Boolean),
})"""


def command_line_json(*args: str) -> tuple[int, str, str]:
    """``derivations count ARGS``, run in this process: exit status, stdout, stderr."""
    return in_process.derivations("count", *args)


@pytest.fixture(scope="module")
def config_tab(served, chromium) -> Iterator[Watched]:
    """The config page, loaded once for the tests that count on it, as a reader counts one config after another:
    its first count loads Python (Pyodide), seconds of CPU that every fresh page would spend again."""
    yield from opened(chromium, served + "config.html")


@pytest.fixture()
def config_page(config_tab) -> Watched:
    """The config page with what it requested, what failed and its errors forgotten: this test's own."""
    return config_tab.forget()


def counted(form) -> dict:
    """What the form shows once its count is done (the button is enabled again)."""
    form.page.wait_for_function("() => !document.querySelector('.dv-paste-count').disabled", timeout=120_000)
    return form.evaluate(PASTED)


def expected_on_page(printed: str) -> dict:
    """What the page must show for the command line's --json: its numbers as the command's table writes them."""
    result = json.loads(printed)
    foot = [["total", f"{result['total']:,}"]] + (
        [["active per token", f"{result['active']:,}"]] if "active" in result else [])
    return {"architecture": result["architecture"], "total": f"{result['total']:,}",
            "active": f"{result['active']:,}" if "active" in result else None,
            "rows": [[c["name"], f"{c['count']:,}"] for c in result["components"]], "foot": foot}


def test_a_pasted_config_of_each_kind_counts_as_the_command_line(config_page):
    # The page runs the command line's own code (derivations/pasted.py, in Pyodide), which tests/test_pasted.py
    # runs on every bundled config without SymPy; here the page's wiring, on the checkpoints of a family of each
    # kind (a dense encoder and decoder, an encoder-decoder, a mixture with its active count, a tied head).
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    families = registry.families()
    # Each kind's example (and in CI its first checkpoint too: a count in Pyodide takes a second).
    for name in sorted({checkpoint for kind_of in KINDS for checkpoint in
                        profiles.cases([families[kind_of].checkpoints[0], families[kind_of].example],
                                       [families[kind_of].example])} | {"llama-3.2-1b"}):
        path = Path(configs.CHECKPOINTS_DIR) / f"{name}.json"
        form.locator("textarea").fill(path.read_text())
        form.locator(".dv-paste-count").click()
        shown = counted(form)
        status, printed, _ = command_line_json(str(path), "--json")
        assert status == 0 and shown["message"] is None and shown["status"] == "", (name, shown)
        assert {k: shown[k] for k in ("architecture", "total", "active", "rows", "foot")} == expected_on_page(printed), name
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_a_chosen_class_a_chosen_file_and_a_refused_config_on_the_config_page(config_page, tmp_path, monkeypatch):
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    path = Path(configs.CHECKPOINTS_DIR) / "t5-small.json"
    form.locator("input[type=file]").set_input_files(str(path))  # a file chosen counts at once
    shown = counted(form)
    assert shown["classes"] and shown["architecture"] == json.loads(command_line_json(str(path), "--json")[1])["architecture"]
    other = shown["classes"][-1]
    form.locator("select[name=architecture]").select_option(other)  # the command line's --arch
    assert {k: v for k, v in counted(form).items() if k in ("architecture", "total", "active", "rows", "foot")} == \
        expected_on_page(command_line_json(str(path), "--arch", other, "--json")[1])
    # Configs the command line refuses: its line (the file it names is config.json), and no table. The readers'
    # words are the same everywhere; a JSON syntax error is worded by the json module of the Python that runs
    # (the page's is Pyodide's, 3.14: "Illegal trailing comma" where 3.11 expects a property name).
    monkeypatch.chdir(tmp_path)
    for text, exact in (('{"model_type": "llama", "hidden_size": 12.0}', True), ('{"model_type": "gpt2",}', False)):
        Path("config.json").write_text(text)
        form.locator("textarea").fill(text)
        form.locator(".dv-paste-count").click()
        shown = counted(form)
        status, _, error = command_line_json("config.json")
        assert status == 2, error
        if exact:
            assert shown["message"] == error.strip()
        else:
            prefix = "error: config.json: invalid JSON ("
            assert shown["message"].startswith(prefix) and error.startswith(prefix), (shown["message"], error)
    assert form.locator(".dv-paste-result").is_hidden()
    # A model_type not derived: the command line's line, and this page (which runs no torch) links the list.
    form.locator("textarea").fill('{"model_type": "mamba"}')
    form.locator(".dv-paste-count").click()
    assert "not derived" in counted(form)["message"]
    assert form.locator(".dv-paste-message a").get_attribute("href") == "coverage.html"
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_a_config_transformers_would_refuse_counts_with_the_command_lines_note(config_page, tmp_path, monkeypatch):
    # A dropout of 2.5 sets no size (derivations.validation): the page counts the config as the command line does,
    # and shows the line the command prints on stderr beside its answer.
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    monkeypatch.chdir(tmp_path)
    text = json.dumps(json.loads((Path(configs.CHECKPOINTS_DIR) / "gpt2.json").read_text()) | {"attn_pdrop": 2.5})
    Path("config.json").write_text(text)
    form.locator("textarea").fill(text)
    form.locator(".dv-paste-count").click()
    shown = counted(form)
    status, printed, note = command_line_json("config.json", "--json")
    assert status == 0 and note.startswith("note: ") and shown["message"] == note.strip()
    assert {k: shown[k] for k in ("architecture", "total", "active", "rows", "foot")} == expected_on_page(printed)
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_a_chosen_file_that_is_not_utf8_gets_the_command_lines_line(config_page, tmp_path, monkeypatch):
    # The page counts the bytes of the chosen file, as the command line reads a file, not the text it shows.
    monkeypatch.chdir(tmp_path)
    Path("config.json").write_bytes('{"model_type": "gpt2", "note": "caf\u00e9"}'.encode("latin-1"))
    status, _, error = command_line_json("config.json")
    assert status == 2 and "not a UTF-8 text file" in error
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    form.locator("input[type=file]").set_input_files(str(tmp_path / "config.json"))
    assert counted(form)["message"] == error.strip()
    # Edited, the text shown is what counts: the replacement character is text like any other.
    form.locator("textarea").fill(form.locator("textarea").input_value() + " ")
    form.locator(".dv-paste-count").click()
    assert counted(form)["message"] is None
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_the_config_page_from_disk_says_to_serve_the_site(site, watched):
    page = watched.page
    page.goto((site / "config.html").as_uri())
    form = page.locator("form.dv-paste")
    form.locator("textarea").fill('{"model_type": "gpt2"}')
    form.locator(".dv-paste-count").click()
    page.wait_for_function("() => !document.querySelector('.dv-paste-count').disabled", timeout=60_000)
    assert "serve the site" in form.locator(".dv-paste-status").inner_text()


def test_the_config_page_fits_a_phone_after_a_count(config_page):
    # A class's name is long and the table wide: the page keeps the phone's width (the table scrolls in its box).
    page = config_page.page
    desktop = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        form = page.locator("form.dv-paste")
        form.locator("textarea").fill((Path(configs.CHECKPOINTS_DIR) / "mixtral-8x7b.json").read_text())
        form.locator(".dv-paste-count").click()
        shown = counted(form)
        assert shown["active"] is not None
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        select = form.locator("select[name=architecture]").bounding_box()
    finally:
        page.set_viewport_size(desktop)
    assert overflow <= 0 and select["x"] + select["width"] <= PHONE["width"], (overflow, select)


DESKTOP = {"width": 1280, "height": 800}

# Where the config page's boxes of output sit: the page's width and the window's, the article's column, the
# table of contents' left edge where it shows, and each box (the count's table, its text and JSON, FLOPs and
# memory): its edges, its width and its content's, and whether it scrolls sideways.
FITS = """() => {
  const edges = (element) => { const r = element.getBoundingClientRect(); return {left: r.left, right: r.right}; };
  const toc = document.querySelector('.md-sidebar--secondary');
  const shown = toc && toc.getBoundingClientRect().width > 0 && getComputedStyle(toc).visibility !== 'hidden';
  const form = document.querySelector('form.dv-paste');
  const boxes = {count: form.querySelector('.dv-paste-result > .dv-calc-scroll'),
                 'count text': form.querySelector('pre.dv-paste-table'),
                 'count json': form.querySelector('pre.dv-paste-json'),
                 memory: form.querySelector('.dv-paste-memory'), flops: form.querySelector('.dv-paste-flops')};
  for (const name of ['memory', 'flops']) boxes[name] = boxes[name].closest('.dv-calc-scroll') || boxes[name];
  return {page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,
          article: edges(document.querySelector('article')), toc: shown ? toc.getBoundingClientRect().left : null,
          boxes: Object.entries(boxes).filter(([, box]) => box).map(([name, box]) => ({
            name, ...edges(box), width: box.clientWidth, content: box.scrollWidth,
            scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX)}))};
}"""


def test_flops_and_memory_on_the_config_page_fit_a_desktop_and_a_phone(config_page):
    # What the command line prints is wider than a phone, and than the column beside the table of contents. Each
    # table sits in a box of its own within the article's column, and what is wider than its box scrolls in it:
    # the page never scrolls sideways. The count's text and JSON too (their <details>, opened). DeepSeek-V3 has
    # the longest names and, at its context, among the longest numbers.
    page = config_page.page
    before = page.viewport_size
    measured = {}
    try:
        for viewport in (DESKTOP, PHONE):
            page.set_viewport_size(viewport)
            form = page.locator("form.dv-paste")
            form.locator("textarea").fill((Path(configs.CHECKPOINTS_DIR) / "deepseek-v3.json").read_text())
            form.locator(".dv-paste-count").click()
            counted(form)
            form.locator("input[name=seq]").fill("")
            form.locator(".dv-paste-run").click()
            assert computed(form)["shown"]
            form.evaluate("form => form.querySelectorAll('details').forEach(d => { d.open = true; })")
            measured[viewport["width"]] = page.evaluate(FITS)
    finally:
        page.set_viewport_size(before)
    for width, fits in measured.items():
        assert fits["page"] <= fits["window"], (width, fits)
        assert [box["name"] for box in fits["boxes"]] == ["count", "count text", "count json", "memory", "flops"], fits
        column = fits["article"]
        for box in fits["boxes"]:
            assert column["left"] <= box["left"] and box["right"] <= column["right"], (width, box, column)
            assert fits["toc"] is None or box["right"] <= fits["toc"], (width, box, fits["toc"])
            # What is wider than its box scrolls in it (it is not drawn past it).
            assert box["content"] <= box["width"] or box["scrolls"], (width, box)
    # On a desktop, the FLOPs and memory fit their boxes whole: every column in view, GB and GiB included.
    desktop = measured[DESKTOP["width"]]
    assert desktop["toc"] is not None, "the table of contents is not beside the article: nothing to check"
    assert all(box["content"] <= box["width"] for box in desktop["boxes"] if box["name"] in ("memory", "flops")), desktop


def command_line_output(*argv: str) -> str:
    """What ``derivations ARGV`` prints, in this process: stdout, or else stderr."""
    return in_process.printed(*argv)[1]


def computed(form) -> dict:
    """What the form shows once FLOPs and memory are computed: for each, the command line shown and the cells of
    its table (its caption, heads, body and foot, as ``answers.table`` takes them)."""
    form.page.wait_for_function("() => !document.querySelector('.dv-paste-run').disabled", timeout=60_000)
    return form.evaluate("""form => {
      const message = form.querySelector('.dv-paste-compute-message');
      const text = (selector) => form.querySelector(selector).textContent;
      const rows = (section) => section ? [...section.rows].map(tr => [...tr.cells].map(td => td.textContent)) : [];
      const cells = (table) => table && [table.caption ? table.caption.textContent : null,
                                         ...rows(table.tHead), rows(table.tBodies[0]), rows(table.tFoot)];
      return {message: message.hidden ? null : message.textContent,
              shown: !form.querySelector('.dv-paste-outputs').hidden,
              memory: [text('.dv-paste-memory-command'), cells(form.querySelector('table.dv-paste-memory'))],
              flops: [text('.dv-paste-flops-command'), cells(form.querySelector('table.dv-paste-flops'))]};
    }""")


# A decoder at its own context, an encoder-decoder with a batch and a 4-bit format, a mixture at a long context.
RUNS = [("gpt2", "", "1", "bf16"), ("t5-small", "512", "2", "int4"), ("mixtral-8x7b", "32768", "1", "nf4")]


def test_flops_and_memory_on_the_config_page_are_the_command_lines(config_page, tmp_path, monkeypatch):
    # Each config pasted in turn, as a reader would.
    monkeypatch.chdir(tmp_path)
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    for name, seq, batch, dtype in RUNS:
        text = (Path(configs.CHECKPOINTS_DIR) / f"{name}.json").read_text()
        Path("config.json").write_text(text)
        form.locator("textarea").fill(text)
        form.locator(".dv-paste-count").click()
        counted(form)
        form.locator("input[name=seq]").fill(seq)
        form.locator("input[name=batch]").fill(batch)
        form.locator("select[name=dtype]").select_option(dtype)
        form.locator(".dv-paste-run").click()
        shown = computed(form)
        assert shown["message"] is None and shown["shown"], (name, shown)
        for command in ("memory", "flops"):
            line, table = shown[command]
            assert line.startswith(f"$ derivations {command} config.json ") and table, (name, command, table)
            title, head, body, foot = table
            # The tables' cells, laid out as the command line lays them out, are what it prints ...
            printed = command_line_output(*line.split()[2:])
            assert answers.table(title, head, body, foot) == printed, (name, command, line)
            # ... and their numbers are its --json's.
            result = json.loads(command_line_output(*line.split()[2:], "--json"))
            if command == "memory":
                assert foot == [["parameters", "each tensor once", f"{result['parameters']:,}"]], name
                assert [cells[2].split(" bytes")[0] for cells in body[:len(result["weights_bytes_by_dtype"])]] == [
                    f"{value:,}" for value in result["weights_bytes_by_dtype"].values()], name
            else:
                assert [[cells[0], cells[2]] for cells in body] == [
                    [c["name"], f"{c['flops']:,}"] for c in result["components"]], name
                assert foot[0][2] == f"{result['forward']:,}", name
        # The command lines are the form's: its tokens (else the config's context), batch and data type.
        tokens = seq or str(configs.load("config.json").get("n_positions", ""))
        assert f"--seq {tokens} --batch {batch}" in shown["flops"][0] and f"--dtype {dtype}" in shown["memory"][0]
        if name == "mixtral-8x7b":
            # Past its 32,768 positions (rotary): answered, with the command line's note beside the tables.
            form.locator("input[name=seq]").fill("40000")
            form.locator(".dv-paste-run").click()
            shown = computed(form)
            assert shown["shown"] and shown["message"] == in_process.derivations(
                "memory", "config.json", "--seq", "40000")[2].strip(), shown["message"]
        # Sizes the command line refuses: its line, and no stale output.
        form.locator("input[name=seq]").fill("100000000")
        form.locator(".dv-paste-run").click()
        shown = computed(form)
        assert shown["message"] == command_line_output("memory", "config.json", "--seq", "100000000"), name
        assert not shown["shown"], name
    assert not watched.errors and not watched.foreign() and not watched.failures


def fits_on(form) -> dict:
    """What the form shows under its count of what fits (the count done): the message, whether the table shows, the
    command line shown and the cells of its table (its caption, heads, body and foot, as ``answers.table`` takes
    them)."""
    return form.evaluate("""form => {
      const message = form.querySelector('.dv-paste-fits-message');
      const table = form.querySelector('table.dv-paste-fits-table');
      const rows = (section) => section ? [...section.rows].map(tr => [...tr.cells].map(td => td.textContent)) : [];
      return {message: message.hidden ? null : message.textContent,
              shown: !form.querySelector('.dv-paste-fits-output').hidden,
              command: form.querySelector('.dv-paste-fits-command').textContent,
              table: [table.caption ? table.caption.textContent : null, ...rows(table.tHead), rows(table.tBodies[0]),
                      rows(table.tFoot)],
              link: form.querySelector('.dv-paste-fits a').getAttribute('href')};
    }""")


def test_the_fits_on_table_is_the_command_lines(config_page, site, tmp_path, monkeypatch):
    # Under the count, `fit config.json`: the longest context and the largest batch on every accelerator. Its
    # table's cells, laid out as the command line lays them out, are what it prints, and its names and numbers are
    # its --json's; with a class chosen, the command line's --arch; beside its answer, the lines it adds on stderr
    # (a field transformers would refuse); a class without an inference total (a sequence classifier), its one line,
    # no table.
    monkeypatch.chdir(tmp_path)
    watched = config_page
    form = watched.page.locator("form.dv-paste")
    gpt2 = json.loads((Path(configs.CHECKPOINTS_DIR) / "gpt2.json").read_text())
    llama = json.loads((Path(configs.CHECKPOINTS_DIR) / "llama-2-7b.json").read_text())
    pasted = [("qwen2.5-7b", None), ("gpt2 with attn_pdrop 2.5", json.dumps(gpt2 | {"attn_pdrop": 2.5})),
              ("mixtral-8x7b", None),
              ("llama-2-7b classifier", json.dumps(llama | {"architectures": ["LlamaForSequenceClassification"]}))]
    for name, text in pasted:
        text = text or (Path(configs.CHECKPOINTS_DIR) / f"{name}.json").read_text()
        Path("config.json").write_text(text)
        form.locator("textarea").fill(text)
        form.locator(".dv-paste-count").click()
        counted(form)
        classes = [None] if name != "qwen2.5-7b" else [None, counted(form)["classes"][-1]]
        for architecture in classes:
            if architecture is not None:  # the class chosen: counted again, and fit with its --arch
                form.locator("select[name=architecture]").select_option(architecture)
                counted(form)
            shown = fits_on(form)
            argv = ["fit", "config.json"] + ([] if architecture is None else ["--arch", architecture])
            status, printed, error = in_process.derivations(*argv)
            if status != 0:
                # The command line's line, as the page shows its errors; no table.
                assert "no inference total" in error and shown["message"] == error.strip(), (name, shown)
                assert not shown["shown"], name
                continue
            assert shown["shown"] and shown["command"] == "$ derivations " + " ".join(argv), (name, shown)
            assert shown["message"] == (error.strip() or None), (name, shown["message"], error)
            title, head, body, foot = shown["table"]
            assert answers.table(title, head, body, foot) + "\n" == printed, (name, architecture)
            result = json.loads(in_process.derivations(*argv, "--json")[1])
            assert title == result["architecture"] and len(body) == len(result["accelerators"]), name
            for cells, card in zip(body, result["accelerators"]):
                # Each accelerator's name, its largest batch at the config's context and its longest context at
                # batch 1, as --json has them.
                assert cells[0] == card["name"], (name, cells)
                assert cells[1].endswith(f"batch {'none' if card['max_batch'] is None else format(card['max_batch'], ',')}")
                assert cells[2].split(" ")[0] == ("none" if card["max_tokens"] is None else f"{card['max_tokens']:,}")
    assert name == "llama-2-7b classifier" and error, "the last config pasted has no inference total"
    # The one sentence above the table links the Memory page's section that explains it.
    link = urlsplit(shown["link"])  # made absolute by instant navigation where the page is served
    target = (site / link.path.lstrip("/")).read_text(encoding="utf-8")
    assert re.search(rf'\bid="?{re.escape(link.fragment)}[" >]', target), shown["link"]  # quoted or not (minified)
    assert not watched.errors and not watched.foreign() and not watched.failures


def test_the_fits_on_table_fits_a_desktop_and_a_phone(config_page):
    # The table sits in a box of its own within the article's column (beside the table of contents where it
    # shows); what is wider than the box scrolls in it, and the page never scrolls sideways.
    page = config_page.page
    before = page.viewport_size
    measured = {}
    try:
        for viewport in (DESKTOP, PHONE):
            page.set_viewport_size(viewport)
            form = page.locator("form.dv-paste")
            form.locator("textarea").fill((Path(configs.CHECKPOINTS_DIR) / "qwen2.5-72b.json").read_text())
            form.locator(".dv-paste-count").click()
            counted(form)
            assert fits_on(form)["shown"]
            measured[viewport["width"]] = page.evaluate("""() => {
              const edges = (element) => { const r = element.getBoundingClientRect(); return {left: r.left, right: r.right}; };
              const toc = document.querySelector('.md-sidebar--secondary');
              const shown = toc && toc.getBoundingClientRect().width > 0 && getComputedStyle(toc).visibility !== 'hidden';
              const box = document.querySelector('.dv-paste-fits-table').closest('.dv-calc-scroll');
              return {page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,
                      article: edges(document.querySelector('article')), toc: shown ? toc.getBoundingClientRect().left : null,
                      box: {...edges(box), width: box.clientWidth, content: box.scrollWidth,
                            scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX)}};
            }""")
    finally:
        page.set_viewport_size(before)
    for width, fits in measured.items():
        box, column = fits["box"], fits["article"]
        assert fits["page"] <= fits["window"], (width, fits)
        assert column["left"] <= box["left"] and box["right"] <= column["right"], (width, fits)
        assert fits["toc"] is None or box["right"] <= fits["toc"], (width, fits)
        assert box["content"] <= box["width"] or box["scrolls"], (width, fits)
    # On a desktop, the whole table is in view.
    desktop = measured[DESKTOP["width"]]
    assert desktop["toc"] is not None and desktop["box"]["content"] <= desktop["box"]["width"], desktop


def test_the_calculators_tables_fit_a_phone(served, chromium):
    # The tables beside the calculators: at 390 px, each is whole within the page's width (none scrolls
    # sideways, within itself or with the page), its figures legible.
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(served + page_url("calculators"), wait_until="load")
    tables = page.locator("xpath=//article//table")
    assert tables.count() == 3
    for i in range(tables.count()):
        table = tables.nth(i)
        table.scroll_into_view_if_needed()
        box = table.bounding_box()
        assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"], (i, box)
        assert table.evaluate("t => { const s = t.closest('.md-typeset__scrollwrap') || t;"
                              " return s.scrollWidth <= s.clientWidth + 1; }"), f"table {i} scrolls sideways"
        assert min(table.evaluate("t => [...t.querySelectorAll('td small')].map(e => parseFloat("
                                  "getComputedStyle(e).fontSize))")) >= 10
    assert page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    context.close()
