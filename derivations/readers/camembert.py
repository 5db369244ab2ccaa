"""CamemBERT (model_type ``camembert``): config.json -> {symbol name: value}, and the layout it asks for.

CamembertConfig is XLMRobertaConfig under another name (configuration_camembert.py, 5.23: the same fields, the same
defaults: BERT's vocabulary of 30522, pad_token_id 1), and CamembertModel holds RobertaModel's tensors: XLM-R's
reading, unchanged.
"""

from __future__ import annotations

from ..reading import Reader
from . import bert, roberta, xlm_roberta

# CamembertConfig's defaults where they differ from BertConfig's: the padding token only.
DEFAULTS = {"pad_token_id": 1}

READER = Reader("camembert", xlm_roberta.reading(DEFAULTS), bert.LAYOUT, bert.READER.fields, bert.READER.rules,
                checks=roberta.CHECKS)
