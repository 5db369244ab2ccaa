"""What only GPT-1 has, against transformers (the checks every family shares are tests/specs/gpt1.py's): the double
heads model ties the other way."""

from __future__ import annotations

import reference  # skips this module without torch/transformers (fails under CI)
from derivations import configs


def test_double_heads_tie_the_other_way() -> None:
    # OpenAIGPTDoubleHeadsModel declares the tie from the embedding to the head; parameters() still
    # yields the one tensor once, under the name met first.
    model = reference.build("OpenAIGPTDoubleHeadsModel", configs.load("openai-gpt"))
    assert model.lm_head.weight is model.transformer.tokens_embed.weight
    reference.check("OpenAIGPTDoubleHeadsModel", configs.load("openai-gpt"))
