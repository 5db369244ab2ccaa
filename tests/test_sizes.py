"""Sizes and lengths as a person writes them (derivations.storage.parse_bytes, parse_tokens): the expected values
are the units' definitions (SI's powers of 1000, IEC's powers of 1024; k as 1024 for a length in tokens)."""

import pytest

from derivations.reading import ConfigError
from derivations.storage import parse_bytes, parse_tokens


@pytest.mark.parametrize(("text", "expected"), [
    ("24GB", 24 * 10**9), ("24GiB", 24 * 2**30), ("80G", 80 * 10**9), ("4096", 4096), ("0", 0), ("512B", 512),
    ("1.5TB", 1_500_000_000_000), ("2TiB", 2 * 2**40), ("300MB", 300 * 10**6), ("300MiB", 300 * 2**20),
    ("2kB", 2000), ("2KiB", 2048), ("24gb", 24 * 10**9), ("24gib", 24 * 2**30), (" 40 GB ", 40 * 10**9),
    ("0.5GiB", 2**29), ("1.25kB", 1250),
])
def test_a_size_is_read_exactly(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "GB", "24 GX", "-1GB", "1.5", "0.1B", "1.0001kB", "24 G B", "1e9", "1,000"])
def test_a_size_that_is_not_one_is_refused_on_one_line(text):
    with pytest.raises(ConfigError) as refused:
        parse_bytes(text)
    assert "\n" not in str(refused.value) and repr(text) in str(refused.value)


def test_the_refusal_names_what_is_accepted():
    with pytest.raises(ConfigError, match=r"G alone means GB\), KiB, MiB, GiB"):
        parse_bytes("24 parsecs")
    with pytest.raises(ConfigError, match="whole number of bytes"):
        parse_bytes("1.5")


@pytest.mark.parametrize(("text", "expected"), [
    ("32k", 32 * 1024), ("128K", 128 * 1024), ("8k", 8 * 1024), ("100k", 100 * 1024), ("32768", 32768),
    ("1M", 1024**2), ("1.5k", 1536), ("1", 1),
])
def test_a_length_is_read_with_k_as_1024(text, expected):
    assert parse_tokens(text) == expected


@pytest.mark.parametrize("text", ["", "0", "0k", "32kB", "1.0001k", "32 tokens", "-8k", "2.5"])
def test_a_length_that_is_not_one_is_refused_on_one_line(text):
    with pytest.raises(ConfigError) as refused:
        parse_tokens(text)
    assert "\n" not in str(refused.value)
