"""MkDocs hook: every page written minified, with minify-html, as the last step of its build.

The theme's templates indent every line of the navigation, and the pages hold thousands of KaTeX
spans: minified, the heaviest page weighs about a tenth less, which keeps every page under the site's
200 KB (``tests/test_site.py``). The settings are the conservative ones: closing tags and the
``<html>``/``<head>`` tags stay, so the HTML still reads as a tree to any parser, and scripts are left
as the theme wrote them. Whitespace inside ``<pre>`` and ``<code>`` is kept as it is.
"""

from __future__ import annotations

import minify_html
from mkdocs.plugins import event_priority


@event_priority(-100)  # after every other hook and plugin has written its part of the page
def on_post_page(output: str, page, config) -> str:
    return minify_html.minify(output, keep_closing_tags=True, keep_html_and_head_opening_tags=True,
                              minify_css=True, minify_js=False)
