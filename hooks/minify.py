"""MkDocs hook: every page written minified, with minify-html, as the last step of its build.

The theme's templates indent every line of the navigation, and the pages hold thousands of KaTeX
spans: minified, the heaviest page weighs about a tenth less, which keeps every page under the site's
200 KB (``tests/test_site.py``). The settings are the conservative ones: closing tags and the
``<html>``/``<head>`` tags stay, so the HTML still reads as a tree to any parser, and scripts are left
as the theme wrote them. Whitespace inside ``<pre>`` and ``<code>`` is kept as it is.
"""

from __future__ import annotations

import re

import minify_html
from mkdocs.plugins import event_priority

# KaTeX writes each kern as an inline style on a glyph or a space: style="margin-right:0.2222em;", thousands
# of times a page. The values it uses most are classes of docs/css/site.css instead (.katex .k2222 and so on),
# some twenty bytes shorter each; a value not listed keeps its style.
KERNS = ("0.2222", "0.0278", "0.1389", "0.0813", "0.2778", "0.1667", "0.0715", "0.0785", "0.109", "0.0139",
         "0.0077", "0.0576", "0.0778", "0.0502")
_KERN = re.compile(r'<span class="([^"]+)" style="margin-right:(0\.\d+)em;">')


def kern_class(value: str) -> str:
    return "k" + value[2:]


def _kerned(match: re.Match) -> str:
    classes, value = match.groups()
    return f'<span class="{classes} {kern_class(value)}">' if value in KERNS else match[0]


@event_priority(-100)  # after every other hook and plugin has written its part of the page
def on_post_page(output: str, page, config) -> str:
    return minify_html.minify(_KERN.sub(_kerned, output), keep_closing_tags=True,
                              keep_html_and_head_opening_tags=True, minify_css=True, minify_js=False)
