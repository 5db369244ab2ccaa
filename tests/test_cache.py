"""derivations.cache: a kept file is read only for the source state it was written for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from derivations import cache, configs

@pytest.fixture()
def package(tmp_path, monkeypatch) -> Path:
    """A package of two source files, with its own __pycache__."""
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("B = 2\n")
    monkeypatch.setattr(cache, "PACKAGE", str(tmp_path))
    monkeypatch.setattr(cache, "DIRECTORY", str(tmp_path / "__pycache__"))
    cache.stamp.cache_clear()
    yield tmp_path
    cache.stamp.cache_clear()


def test_a_kept_file_is_read_back(package):
    assert cache.read("thing") is None
    cache.write("thing", {"x": [1, 2]})
    assert cache.read("thing") == {"x": [1, 2]}


@pytest.mark.parametrize("change", ["edit", "add", "touch"])
def test_a_change_to_the_source_makes_the_kept_file_stale(package, change):
    cache.write("thing", 1)
    source = package / "sub" / "b.py"
    if change == "edit":
        source.write_text("B = 3  # longer\n")
    elif change == "add":
        (package / "c.py").write_text("")
    else:  # same size, later modification time: as Python's own .pyc check
        status = source.stat()
        os.utime(source, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    cache.stamp.cache_clear()
    assert cache.read("thing") is None
    cache.write("thing", 2)
    assert cache.read("thing") == 2
    # The file of the earlier state is gone: one file per name.
    assert len(list((package / "__pycache__").glob("thing-*.json"))) == 1


def test_a_file_whose_name_matches_but_whose_stamp_differs_is_not_read(package):
    # The file name holds a CRC of the stamp; the stamp inside decides.
    cache.write("thing", 1)
    kept = Path(cache.path("thing"))
    kept.write_text(kept.read_text().replace('"a.py ', '"a.py 9'))
    assert cache.read("thing") is None


def test_nothing_is_kept_where_nothing_can_be_written(package, monkeypatch):
    monkeypatch.setattr(cache, "DIRECTORY", str(package / "a.py" / "cannot"))  # under a file
    cache.write("thing", 1)
    assert cache.read("thing") is None


def test_the_kept_index_of_readers_is_what_importing_them_all_finds(monkeypatch):
    found = configs._find_readers()
    configs.READERS.modules()  # kept, if it was not
    # A fresh mapping must read the kept index: finding the readers again would fail.
    monkeypatch.setattr(configs, "_find_readers", lambda: pytest.fail("the kept index was not read"))
    fresh = configs._Readers()
    assert fresh.modules() == {model_type: r.module for model_type, r in found.items()}
    assert all(fresh[model_type] == reader for model_type, reader in found.items())
