"""The built site in a real browser, served from 127.0.0.1 and opened from disk (file://): every page loads
with no request leaving the host, no failed request and no console error, every formula typeset; search,
instant navigation, dark mode and the addresses of earlier versions work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import browser  # skips this module without Chromium or Playwright (fails under CI)
from derivations import configs
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

    def foreign(self) -> list[str]:
        return [url for url in self.requests
                if urlsplit(url).scheme not in ("data", "blob", "file") and urlsplit(url).hostname not in LOCAL_HOSTS]


@pytest.fixture()
def watched(chromium) -> Iterator[Watched]:
    context = chromium.new_context()
    page = Watched(context.new_page())
    yield page
    context.close()


@pytest.fixture(scope="module")
def tab(chromium) -> Iterator[Watched]:
    """One tab for a series of page loads, its cache kept between them, as a reader's browser keeps it."""
    context = chromium.new_context()
    page = Watched(context.new_page())
    yield page
    context.close()


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


@pytest.mark.parametrize("page", source_pages())
def test_every_page_served(served, tab, page):
    # Every formula typeset, no TeX showing, nothing but the site's own files requested, nothing failed.
    # What a page fetches after it has loaded (the sitemap, the search index and its worker) is the same
    # for every page: the home page waits for it, the others for their own load.
    tab.requests.clear(), tab.failures.clear(), tab.errors.clear()
    url = served + page
    response = tab.page.goto(url, wait_until="networkidle" if page == "index.html" else "load")
    assert response is not None and (response.ok or page == "404.html"), url
    state = tab.page.evaluate(TYPESET)
    assert state["untypeset"] == 0 and state["errors"] == 0, (url, state)
    left = [tex for tex in RAW_TEX if tex in state["text"]]
    assert not left, f"{url}: raw TeX {left} in the visible text"
    assert not tab.foreign(), f"{url}: requests leaving the host: {tab.foreign()}"
    assert not tab.failures, f"{url}: failed requests: {tab.failures}"
    assert not tab.errors, f"{url}: console errors: {tab.errors}"


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
    page.goto(served, wait_until="networkidle")
    page.evaluate("() => { window.__loaded_once = true; }")  # survives an instant navigation, not a reload
    page.locator("nav.md-nav--primary a.md-nav__link[href$='gpt2.html']").first.click()
    page.wait_for_url("**/gpt2.html")
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

READ = """(form) => ({
  rows: [...form.querySelectorAll('.dv-calc-result tbody tr')].map(tr => [tr.cells[0].innerText, tr.cells[1].innerText]),
  total: form.querySelector('.dv-calc-total').innerText,
  message: form.querySelector('.dv-calc-message').hidden ? '' : form.querySelector('.dv-calc-message').innerText,
})"""


def expected(family, architecture: str, values: dict) -> tuple[list[list[str]], str]:
    """The rows and total the package gives (the command line's rows), formatted as the page does."""
    from derivations import calculator, render, symbols
    from derivations.components import evaluate

    part = family.ARCHITECTURES[architecture]
    at = {getattr(symbols, k): v for k, v in values.items()}
    for size, (numerator, denominator) in calculator.ratios(family).items():  # BERT's d_h = D / H
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


@pytest.mark.parametrize("name", sorted(configs.family_modules()))
def test_calculators_give_the_packages_counts(served, tab, name):
    import random

    from derivations import calculator

    watched = tab  # the tab the pages are checked in: its cache holds the site's scripts and fonts
    watched.errors.clear()
    family = configs.family_modules()[name]
    generator = random.Random(f"20261123-{name}")
    watched.page.goto(served + page_url(name), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    presets = calculator.presets(family)
    offered = form.locator("select[name='preset'] option").evaluate_all("options => options.map(o => o.value)")
    assert offered == list(presets), name  # the checkpoints of the layout the calculator counts
    for checkpoint in presets:  # every one, in the class the form starts with
        form.locator("select[name='preset']").select_option(checkpoint)
        architecture = form.locator("select[name='class']").input_value()
        shown = form.evaluate(READ)
        assert (shown["rows"], shown["total"]) == expected(family, architecture, presets[checkpoint]), (name, checkpoint)
    for architecture in family.ARCHITECTURES:  # every class, on random sizes up to totals past 10^15
        form.locator("select[name='class']").select_option(architecture)
        values = {str(s): generator.choice([generator.randint(1, 64), generator.randint(1, 10**6)])
                  for s in calculator.sizes(family)}
        for numerator, denominator in calculator.ratios(family).values():  # widths the heads divide
            values[str(numerator)] = values[str(denominator)] * generator.randint(1, 256)
        set_sizes(watched.page, form, values)
        shown = form.evaluate(READ)
        used = {str(s) for s in family.ARCHITECTURES[architecture].total.free_symbols}
        assert (shown["rows"], shown["total"]) == expected(family, architecture,
                                                           {k: v for k, v in values.items() if k in used})
    assert not watched.errors


def test_calculator_refuses_bad_sizes(served, watched):
    watched.page.goto(served + page_url("gpt2"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    for text in ["abc", "0", "-3", "1.5", "", "9223372036854775808"]:  # each after a good size
        form.locator("input[name='D']").fill(text)
        shown = form.evaluate(READ)
        assert shown["message"] and "D" in shown["message"], (text, shown)
        assert shown["rows"] == [] and shown["total"] == "", f"a number shown for D = {text!r}"
        form.locator("input[name='D']").fill("768")
        assert form.evaluate(READ)["total"] == "124,439,808"  # GPT2LMHeadModel on gpt2: [cite: transformers-14960]


def test_bert_calculator_takes_the_head_size_from_the_width(served, watched):
    # BertConfig(hidden_size=1536): 12 heads of 128, 276,730,368 parameters in BertModel (the command
    # line, and transformers on the meta device, give the same); 1000 is no multiple of 12 heads.
    from derivations import configs

    watched.page.goto(served + page_url("bert"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    form.locator("select[name='class']").select_option("BertModel")
    form.locator("input[name='D']").fill("1536")
    assert form.evaluate(READ)["total"] == f"{configs.resolve({'model_type': 'bert', 'hidden_size': 1536}).total:,}"
    form.locator("input[name='D']").fill("1000")
    shown = form.evaluate(READ)
    assert shown["total"] == "" and "multiple of H" in shown["message"], shown


def test_calculator_fits_a_phone(served, chromium):
    context = chromium.new_context(viewport={"width": 400, "height": 800})
    page = context.new_page()
    for name in ("transformer", "gpt2", "gpt3", "bert"):
        page.goto(served + page_url(name), wait_until="networkidle")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name}: the page scrolls sideways by {overflow} px at 400 px"
    context.close()


def test_calculator_is_exact_beyond_double_precision(served, watched):
    # Sizes whose total passes 2^53 (where a JavaScript Number would round): the page must show the
    # package's exact integer.
    from derivations import symbols
    from derivations.families import gpt2

    watched.page.goto(served + page_url("gpt2"), wait_until="load")
    form = watched.page.locator("form.dv-calculator")
    sizes = {"V": 1_000_003, "P": 999_983, "D": 1_000_033, "F": 4_000_037, "L": 999_979}
    set_sizes(watched.page, form, sizes)
    exact = gpt2.GPT2LMHeadModel.count({getattr(symbols, k): v for k, v in sizes.items()})
    assert exact > 2**53 and float(exact) != exact
    assert form.evaluate(READ)["total"] == f"{exact:,}"


# -- the addresses of 0.3.0, and the site from disk ---------------------------------------

def test_the_addresses_of_earlier_versions_lead_to_their_pages(served, watched):
    # 0.3.0 put each page at NAME/ (and NAME/#anchor is what its citations give); the page is now NAME.html.
    page = watched.page
    page.goto(served + "bert/#cite-this", wait_until="networkidle")
    assert page.url == served + "bert.html#cite-this"
    page.goto(served + "notebooks/gpt2/", wait_until="networkidle")
    assert page.url == served + "notebooks/gpt2.html" and page.locator(".jp-OutputArea-output").count()
    assert not watched.errors and not watched.foreign()


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
                 "MQA": "components.html", "MLA": "notation.html"}


def test_search_lists_first_the_page_that_explains_an_abbreviation(served, watched):
    watched.page.goto(served, wait_until="networkidle")
    assert {text: (search(watched.page, text) or ["nothing"])[0] for text in ABBREVIATIONS} == ABBREVIATIONS
    assert not watched.errors and not watched.foreign()


def test_search_lists_a_family_page_before_its_notebook_and_the_mistakes_page(served, watched):
    # For the family's name (its page's title; its notebook's title starts with it too), and for a term
    # of its own that its notebook and the mistakes page also write (Mixtral's router).
    watched.page.goto(served, wait_until="networkidle")
    for name in sorted(configs.family_modules()):
        title = (DOCS / f"{name}.md").read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
        listed = search(watched.page, title)
        assert listed[0] == page_url(name) and page_url(f"notebooks/{name}") in listed, (title, listed)
    listed = search(watched.page, "router")
    assert listed[0] == "mixtral.html" and {"notebooks/mixtral.html", "mistakes.html"} <= set(listed), listed
    assert not watched.errors and not watched.foreign()


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
    assert "bert.html" in search(page, "pooler")
    assert "llama.html" in search(page, "grouped-query")
    assert search(page, "GQA")[0] == "llama.html"  # the index from disk is the served one (test_site)
    page.goto((site / "gpt2.html").as_uri(), wait_until="load")
    assert page.locator("figure.dv-figure svg").count() >= 1
    form = page.locator("form.dv-calculator")
    form.locator("input[name='D']").fill("768")
    assert form.evaluate(READ)["total"] == "124,439,808"  # GPT2LMHeadModel on gpt2: [cite: transformers-14960]
    assert not watched.errors, watched.errors
    assert not watched.foreign(), watched.foreign()
