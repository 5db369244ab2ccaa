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


def on_page_content(content: str, page, config, files):
    if not is_notebook(page.file):
        return content
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
