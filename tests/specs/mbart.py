"""mBART: BART's spec (tests/specs/bart.py) with its model_type and classes."""

from specs.bart import spec

SPEC = spec("mbart", "MBart")
