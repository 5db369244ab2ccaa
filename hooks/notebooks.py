"""MkDocs hook for the notebooks that mkdocs-jupyter executes and renders (docs/notebooks/*.py, jupytext
percent format).

- Their formulas are typeset here, at build time, with the site's KaTeX: a cell shows a formula by
  displaying an expression of the package (``display(Math(...))``), and nbconvert leaves its LaTeX
  for MathJax, which this site does not load.
- The plugin's page also carries a MathJax script and a Mermaid loader, both from a CDN: removed, so
  that the page makes no request outside the site (no notebook here draws Mermaid diagrams).
- Each notebook is offered as an .ipynb, converted from its text source by jupytext at build time.
- The plugin inlines its stylesheets (JupyterLab's theme and the code colours, about 590 KB) into every
  notebook page; they are moved into one shared file, ``css/notebook-HASH.css``, which a browser
  fetches once for all notebooks, and a page weighs its content.
- The notebooks are executed side by side, as soon as the files are known: mkdocs-jupyter runs them
  one after another, each in a kernel of its own, and they were most of the build's time. The plugin
  still converts each page; it gets the result computed ahead, for the same arguments.
- A converted notebook is kept under ``.cache/notebooks/``, named by a key that covers everything its
  output can depend on: the notebook's text, every file of the ``derivations`` package it runs, the
  arguments it is converted with and the versions of the converting packages. A rebuild with none of
  them changed executes nothing; a change to a derivation executes every notebook again (the plugin's
  own cache is keyed by the notebook alone, and would have shown stale numbers).
- Kernels start with their log at ERROR (``jupyter/jupyter_nbconvert_config.json``): each one warned at
  every build that it talks over TCP without encryption, which is how every local kernel talks (over
  the loopback interface only), and a user would have had to learn to ignore it.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import importlib.metadata
import logging
import multiprocessing
import os
import posixpath
import re
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path, PurePath

from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url
from mkdocs_jupyter import convert, nbconvert2

import build_cache  # sibling modules: MkDocs puts this folder on sys.path while loading a hook
from derivations.site.syntax import anchored  # no SymPy
import katex_render

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "derivations"
# Read by nbconvert beside the user's own Jupyter configuration: the kernels' log level.
JUPYTER_CONFIG = Path(__file__).resolve().parent / "jupyter"

SOURCES = "notebooks/"
MATHJAX = re.compile(r'<script src="[^"]*">\s*</script>\s*<!-- MathJax configuration -->.*?'
                     r"<!-- End of mathjax configuration -->", re.S)
MERMAID = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*</script>', re.S)
LATEX = re.compile(r'(<div class="jp-RenderedLatex[^"]*"[^>]*>)\s*(.*?)\s*(</div>)', re.S)
# A link from a notebook's text to a page of the site, written as in the docs: ../NAME.md#anchor.
PAGE_LINK = re.compile(r'href="([^":#?]+\.md)(#[^"]*)?"')
STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)
_stylesheets: dict[str, str] = {}  # site path -> CSS, written at the end of the build


def is_notebook(file) -> bool:
    return file.src_uri.startswith(SOURCES) and file.src_uri.endswith(".py")


def ipynb_uri(file) -> str:
    return file.src_uri.removesuffix(".py") + ".ipynb"


def _ipynb(text: str) -> str:
    import jupytext  # on a rebuild, only for a notebook whose text changed

    return jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="ipynb")


def on_files(files: Files, config) -> Files:
    notebooks = [f for f in files if is_notebook(f)]
    converted = build_cache.Memo("ipynb", build_cache.digest([], importlib.metadata.version("jupytext")))
    for file in notebooks:
        text = Path(file.abs_src_path).read_text(encoding="utf-8")
        content = converted.get(hashlib.sha256(text.encode()).hexdigest(), lambda: _ipynb(text))
        files.append(File.generated(config, ipynb_uri(file), content=content))
    converted.save()
    _execute_ahead([f.abs_src_path for f in notebooks], config)
    return files


# ---------------------------------------------------------------------------------------------
# The cache of converted notebooks
# ---------------------------------------------------------------------------------------------

# What else a converted notebook depends on: the converting code, whose output an upgrade may change.
CONVERTERS = ("mkdocs-jupyter", "nbconvert", "nbclient", "ipykernel", "jupytext", "sympy")


def _cache_dir(config) -> Path:
    return Path(config.config_file_path).resolve().parent / ".cache" / "notebooks"


def _cache_path(config, path: str, arguments: dict, package: str) -> Path:
    digest = hashlib.sha256()
    for part in (Path(path).read_bytes(), package.encode(), repr(sorted(arguments.items())).encode(),
                 *(f"{name}=={importlib.metadata.version(name)}".encode() for name in CONVERTERS)):
        digest.update(part + b"\0")
    return _cache_dir(config) / f"{Path(path).stem}-{digest.hexdigest()[:20]}.html"


def _store(cache: Path, future: Future) -> None:
    """Keep a successful conversion (a failing notebook is never cached), dropping the notebook's older
    entries, so that the cache holds one file per notebook."""
    if future.cancelled() or future.exception() is not None:
        return
    stem = re.escape(cache.name.rsplit("-", 1)[0])
    for old in cache.parent.glob("*.html"):
        if re.fullmatch(stem + r"-[0-9a-f]{20}\.html", old.name):
            old.unlink(missing_ok=True)
    build_cache.write_whole(cache, future.result())


# ---------------------------------------------------------------------------------------------
# Executing the notebooks side by side
# ---------------------------------------------------------------------------------------------

# The plugin calls convert.nb2html(path, **arguments); the function itself lives in nbconvert2 (which
# convert re-exports), and the workers import convert first, so that they convert exactly as the plugin does.
_CONVERT = nbconvert2.nb2html
_AHEAD: dict[str, tuple[dict, Future, Path]] = {}  # a notebook -> its arguments, its conversion, its cache
_POOL: ProcessPoolExecutor | None = None
log = logging.getLogger("mkdocs.hooks.notebooks")


def _arguments(config, path: str) -> dict:
    """The arguments mkdocs-jupyter 0.26 passes to nb2html for ``path`` (plugin.py, on_pre_page)."""
    options = config["plugins"]["mkdocs-jupyter"].config
    names = ("kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt", "remove_tag_config",
             "highlight_extra_classes", "include_requirejs", "custom_mathjax_url")
    ignored = any(PurePath(path).match(pattern) for pattern in options["execute_ignore"] or ())
    return {"execute": options["execute"] and not ignored, **{name: options[name] for name in names}}


def _pool(workers: int) -> ProcessPoolExecutor:
    global _POOL
    if _POOL is None:
        # The workers (and so their nbconvert) inherit this process's environment.
        if str(JUPYTER_CONFIG) not in os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep):
            os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
                filter(None, [str(JUPYTER_CONFIG), os.environ.get("JUPYTER_CONFIG_PATH")]))
        # Spawned, not forked: a kernel client is not safe to fork or to share between threads.
        _POOL = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                    initializer=importlib.import_module, initargs=("mkdocs_jupyter.convert",))
    return _POOL


def _forget() -> None:
    """Cancel what a previous build started and did not use (after a failed build, under mkdocs serve)."""
    for _, future, _ in _AHEAD.values():
        future.cancel()
    _AHEAD.clear()


def _execute_ahead(paths: list[str], config) -> None:
    """Start converting (and executing) every notebook whose conversion is not cached, one worker per
    core this process may use; a cached one is read at once."""
    global _POOL
    _forget()
    package = build_cache.digest([PACKAGE])  # every file a notebook can read: modules and bundled configs
    missing = []
    for path in paths:
        arguments = _arguments(config, path)
        cache = _cache_path(config, path, arguments, package)
        if cache.is_file():
            future = Future()
            future.set_result(cache.read_text(encoding="utf-8"))
            _AHEAD[path] = (arguments, future, cache)
        else:
            missing.append((path, arguments, cache))
    workers = min(len(missing), len(os.sched_getaffinity(0)))
    for path, arguments, cache in missing:
        try:
            future = _pool(workers).submit(_CONVERT, path, **arguments)
        except BrokenProcessPool:  # a worker died in an earlier build: start afresh
            _POOL = None
            future = _pool(workers).submit(_CONVERT, path, **arguments)
        future.add_done_callback(lambda done, cache=cache: _store(cache, done))
        _AHEAD[path] = (arguments, future, cache)


# What jupyter_client raises when a kernel exits before it answers: it ran none of the notebook. It happens when the
# kernel loses a port: jupyter_client picks free ports and closes them, and the kernel binds them a moment later, when
# another process's kernel (another build beside this one, as in the tests) may have bound one first ("Address already
# in use"). Such a notebook is converted again, here, once; an error of the notebook's own fails the build at once.
KERNEL_LOST = "Kernel died before replying to kernel_info"


def _converted_ahead(nb_path, **arguments):
    """convert.nb2html for the plugin: the result computed ahead (a failing notebook raises here, and
    fails the build). Other arguments than those it was computed with mean that the plugin changed how
    it calls the converter: say so (a warning, which fails the strict build), and convert here."""
    ahead = _AHEAD.pop(nb_path, None)
    if ahead is not None and ahead[0] == arguments:
        try:
            return ahead[1].result()
        except RuntimeError as error:
            if KERNEL_LOST not in str(error):
                raise
        log.info(f"notebooks hook: the kernel of {nb_path} died before it started (a port taken): converting it again")
        done = Future()
        done.set_result(_CONVERT(nb_path, **arguments))
        _store(ahead[2], done)
        return done.result()
    if ahead is not None:
        ahead[1].cancel()
        differ = sorted(k for k in set(arguments) | set(ahead[0]) if arguments.get(k, ...) != ahead[0].get(k, ...))
        log.warning(f"notebooks hook: mkdocs-jupyter converted {nb_path} with other arguments than expected "
                    f"({', '.join(differ)}): update _arguments")
    return _CONVERT(nb_path, **arguments)


convert.nb2html = _converted_ahead

# The plugin also converts each notebook to Markdown at every build, for its table of contents only
# (unexecuted: the result depends on the notebook's text and the converters alone). That is kept too.
_MARKDOWN = convert.nb2md
_markdown: build_cache.Memo | None = None


def _markdown_kept(nb_path, **arguments):
    text = Path(nb_path).read_bytes()
    key = hashlib.sha256(text + repr(sorted(arguments.items())).encode()).hexdigest()
    return _markdown.get(key, lambda: _MARKDOWN(nb_path, **arguments))


convert.nb2md = _markdown_kept


def on_config(config):
    global _markdown
    _markdown = build_cache.Memo("nb2md", build_cache.digest(
        [], *(f"{name}=={importlib.metadata.version(name)}" for name in CONVERTERS)))
    return config


def on_post_build(config) -> None:
    _markdown.save()
    for name, css in _stylesheets.items():
        target = Path(config.site_dir) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    _stylesheets.clear()


def on_build_error(error) -> None:
    _forget()


def _shared_stylesheet(content: str, page) -> str:
    """The page's inline stylesheets, moved into one file named by its content and linked in their place."""
    css = "\n".join(block.strip() for block in STYLE.findall(content))
    if not css:
        return content
    name = f"css/notebook-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    _stylesheets[name] = css
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page.url)}">'
    return link + STYLE.sub("", content)


def on_shutdown() -> None:
    global _POOL
    _forget()
    if _POOL is not None:
        _POOL.shutdown(cancel_futures=True)
        _POOL = None


def _typeset(match: re.Match, number: int) -> str:
    """A LaTeX output, typeset, with a permanent anchor as every displayed formula of the site has."""
    tex = html.unescape(match[2]).strip()
    tex = tex[2:-2] if tex.startswith("$$") and tex.endswith("$$") else tex.strip("$")
    tex = tex.removeprefix(r"\displaystyle").strip()
    formula = anchored(f'<div class="dv-eq">{katex_render.render(tex, True)}</div>', f"eq-output-{number}")
    return f"{match[1]}{formula}{match[3]}"


def _page_links(content: str, page, files) -> str:
    """Links to docs pages (../NAME.md) made into the pages' URLs, as MkDocs does for Markdown pages
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
    content = _shared_stylesheet(content, page)
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
