"""Hugging Face model ids (``Qwen/Qwen2.5-7B``): their config.json from the local Hugging Face cache, without
network, or fetched alone (never the weights) where huggingface_hub is installed (the ``hub`` extra) and a
network is allowed.

The cache is laid out as huggingface_hub lays it out: ``$HF_HUB_CACHE`` (default ``$HF_HOME/hub``, and
``$HF_HOME`` defaults to ``$XDG_CACHE_HOME/huggingface`` or ``~/.cache/huggingface``), in it
``models--OWNER--NAME/refs/REVISION`` holding a commit, and the files of that commit under
``models--OWNER--NAME/snapshots/COMMIT/``. A revision is a branch or tag (``main`` by default) or a commit.

Plain Python (no SymPy, no huggingface_hub unless fetching): the command line answers from the cache at once.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .reading import ConfigError

# A model id as the hub spells one: a name, or an owner and a name (letters, digits, '-', '_', '.').
MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?")
COMMIT = re.compile(r"[0-9a-f]{40}")
DEFAULT_REVISION = "main"


def is_model_id(text: str) -> bool:
    return MODEL_ID.fullmatch(text) is not None and ".." not in text


def cache_dir() -> Path:
    """Where huggingface_hub keeps its cache, from the same environment variables."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):  # the older name, still read by huggingface_hub
        return Path(os.environ["HUGGINGFACE_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "huggingface" / "hub"


def cached(model_id: str, revision: str = DEFAULT_REVISION) -> Path | None:
    """The config.json of ``model_id`` at ``revision`` in the local cache, or None."""
    folder = cache_dir() / ("models--" + model_id.replace("/", "--"))
    if COMMIT.fullmatch(revision):
        commit = revision
    else:
        ref = folder / "refs" / revision
        try:
            commit = ref.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not COMMIT.fullmatch(commit):
            return None
    path = folder / "snapshots" / commit / "config.json"
    return path if path.is_file() else None


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").lower() not in ("", "0", "false", "no")


def locate(model_id: str, revision: str | None = None) -> Path:
    """The config.json of a model id: from the cache, else (an OWNER/NAME id) fetched, config.json alone, with
    huggingface_hub where it is installed and HF_HUB_OFFLINE is not set; else one line saying where it looked
    and what to do."""
    revision = revision or DEFAULT_REVISION
    path = cached(model_id, revision)
    if path is not None:
        return path
    where = f"no config.json for {model_id} (revision {revision}) in the Hugging Face cache at {cache_dir()}"
    if "/" not in model_id:
        # A bare name is looked for in the cache only: a mistyped bundled name should not go to the network.
        raise ConfigError(where)
    try:
        import logging

        from huggingface_hub import hf_hub_download
    except ImportError:
        raise ConfigError(f"{where}; install the hub extra (pip install 'derivations[hub]') to fetch it, "
                          "or download config.json and pass its path") from None
    if offline():
        raise ConfigError(f"{where}, and HF_HUB_OFFLINE is set: download config.json and pass its path")
    # huggingface_hub logs each retry of a failing request on its own line: the command says one line, at the end.
    logging.getLogger("huggingface_hub").setLevel(logging.CRITICAL)
    try:
        return Path(hf_hub_download(model_id, "config.json", revision=revision))
    except Exception as error:  # network, authorization, no such repository or file: one line, whichever
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ConfigError(f"{where}, and fetching it failed: {first[:200]}") from None
