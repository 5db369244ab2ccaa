"""One spec per family (``SPEC``, a tests/spec.py Spec): what the reference harness checks of it."""
