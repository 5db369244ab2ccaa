"""MkDocs hook: the families as the package has them, so that adding one touches no shared file.

A family is a record of ``derivations.registry`` with a page ``docs/<name>.md`` (its title is the page's first
heading) and a notebook ``docs/notebooks/<name>.py``. This hook fills the navigation's "Families" and "Notebooks"
sections with them (mkdocs.yml leaves both empty), grouped by kind and maker (``listing.grouped``), and opens every
family page with its answer: the at-a-glance box (``<!-- glance:NAME -->``, derivations/site/glance.py). The list
is ``listing.py``'s, which the other hooks share.
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError

import listing  # sibling module: MkDocs puts this folder on sys.path while loading a hook


def on_config(config):
    listing.refresh()
    for item in config.nav or ():
        if not (isinstance(item, dict) and len(item) == 1):
            continue
        (section, entries), = item.items()
        if section in listing.NAV_SECTIONS:
            if entries:
                raise PluginError(f"nav: {section!r} lists the families of derivations/families/ itself (see "
                                  "hooks/families.py); leave it empty in mkdocs.yml")
            item[section] = listing.grouped(listing.NAV_SECTIONS[section])
    return config


def on_page_markdown(markdown: str, page, config, files):
    # Every family page opens with its answer: the at-a-glance box, right under the title.
    if listing.example(page.file.src_uri) is None:
        return markdown
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n<!-- glance:{page.file.src_uri.removesuffix('.md')} -->\n{rest}"
