"""GPT-3: what the reference harness checks (tests/test_reference_families.py). Its rows are GPT-2's layout at
other sizes, GPT-2 configs (derivations/families/gpt3.py): GPT2LMHeadModel, the class each config lists, builds
each of them (175B too: the meta device holds shapes, not weights). Its sizes, defaults and random configs are
GPT-2's (tests/specs/gpt2.py)."""

from spec import Spec

SPEC = Spec(
    family="gpt3",
    defaults=None,  # a config without sizes is GPT-2's (tests/specs/gpt2.py)
)
