"""CamemBERT: what the reference harness checks (tests/test_reference_families.py). RoBERTa's tree under other class
names, as XLM-R's: the same spec, with the model_type's own defaults (a vocabulary of 30,522, not RoBERTa's 50,265)."""

from specs.xlm_roberta import renamed

SPEC = renamed("camembert", "camembert")
