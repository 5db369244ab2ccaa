"""MkDocs hook for the notebooks that mkdocs-jupyter executes and renders (docs/notebooks/*.py, jupytext
percent format).

- Their formulas are typeset here, at build time, with the site's KaTeX: a cell shows a formula by
  displaying an expression of the package (``display(Math(...))``), and nbconvert leaves its LaTeX
  for MathJax, which this site does not load.
- The plugin's page also carries a MathJax script and a Mermaid loader, both from a CDN: removed, so
  that the page makes no request outside the site (no notebook here draws Mermaid diagrams).
- Each notebook is offered as an .ipynb, converted from its text source by jupytext at build time.
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

import jupytext
from mkdocs.structure.files import File, Files

import katex_render  # sibling module: MkDocs puts this folder on sys.path while loading a hook

SOURCES = "notebooks/"
MATHJAX = re.compile(r'<script src="[^"]*">\s*</script>\s*<!-- MathJax configuration -->.*?'
                     r"<!-- End of mathjax configuration -->", re.S)
MERMAID = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*</script>', re.S)
LATEX = re.compile(r'(<div class="jp-RenderedLatex[^"]*"[^>]*>)\s*(.*?)\s*(</div>)', re.S)
# A link from a notebook's text to a page of the site, written as in the docs: ../gpt2.md#anchor.
PAGE_LINK = re.compile(r'href="([^":#?]+\.md)(#[^"]*)?"')


def is_notebook(file) -> bool:
    return file.src_uri.startswith(SOURCES) and file.src_uri.endswith(".py")


def ipynb_uri(file) -> str:
    return file.src_uri.removesuffix(".py") + ".ipynb"


def on_files(files: Files, config) -> Files:
    for file in [f for f in files if is_notebook(f)]:
        notebook = jupytext.read(file.abs_src_path, fmt="py:percent")
        files.append(File.generated(config, ipynb_uri(file), content=jupytext.writes(notebook, fmt="ipynb")))
    return files


def _typeset(match: re.Match, number: int) -> str:
    """A LaTeX output, typeset, with a permanent anchor as every displayed formula of the site has."""
    tex = html.unescape(match[2]).strip()
    tex = tex[2:-2] if tex.startswith("$$") and tex.endswith("$$") else tex.strip("$")
    tex = tex.removeprefix(r"\displaystyle").strip()
    anchor = f"eq-output-{number}"
    return (f'{match[1]}<div class="dv-eq" id="{anchor}">{katex_render.render(tex, True)}'
            f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a></div>{match[3]}')


def _page_links(content: str, page, files) -> str:
    """Links to docs pages (../gpt2.md) made into the pages' URLs, as MkDocs does for Markdown pages
    (mkdocs-jupyter leaves them as written); a link to no page fails the build."""
    from mkdocs.exceptions import PluginError

    def resolve(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), match[1]))
        file = files.get_file_from_path(target)
        if file is None:
            raise PluginError(f"{page.file.src_uri}: links to {match[1]}, which is no page of the site")
        return f'href="{file.url_relative_to(page.file)}{match[2] or ""}"'

    return PAGE_LINK.sub(resolve, content)


def on_page_content(content: str, page, config, files):
    if not is_notebook(page.file):
        return content
    content = _page_links(content, page, files)
    content = MATHJAX.sub("", content)
    content = MERMAID.sub("", content)
    numbers = iter(range(1, 10**6))
    content = LATEX.sub(lambda match: _typeset(match, next(numbers)), content)
    ipynb = files.get_file_from_path(ipynb_uri(page.file))
    link = ipynb.url_relative_to(page.file)
    name = Path(ipynb.src_uri).name
    return (f'<p class="dv-download"><a href="{link}" download="{name}">Download this notebook ({name})</a>: '
            "run it with the <code>derivations</code> package installed (<code>pip install -e .</code> in a "
            "clone of this repository).</p>\n" + content)
