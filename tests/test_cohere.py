"""Command R: the model cards' 35, 32 and 104 billion.

Expected values come from outside the project: the model cards and released configs [cite: hub-cohereforai], and
transformers (tests/specs/cohere.py).
"""

from derivations import registry
from derivations.families import cohere


def _billions(checkpoint: str) -> int:
    return round(registry.checkpoint(checkpoint).total / 10**9)


def test_the_model_cards():
    # "a 35 billion parameter" (c4ai-command-r-v01), "a 32 billion parameter" (c4ai-command-r-08-2024),
    # "104 billion parameters" (c4ai-command-r-plus).
    assert _billions("command-r-v01") == 35
    assert _billions("command-r-08-2024") == 32
    assert _billions("command-r-plus") == 104


def test_the_head_is_the_embeddings():
    # tie_word_embeddings true in every release: an untied head would add V D = 256,000 x 8,192 to Command R.
    values = registry.checkpoint("command-r-v01").values
    untied = cohere.VARIANTS["untied"]["CohereForCausalLM"].count(values)
    assert untied - registry.checkpoint("command-r-v01").total == 256_000 * 8_192


def test_command_r_plus_norms_each_head():
    # use_qk_norm: a LayerNorm scale of (heads, head_dim) for the queries and (kv heads, head_dim) for the keys in
    # each of the 64 layers: 96 x 128 + 8 x 128 a layer.
    values = registry.checkpoint("command-r-plus").values
    plain = cohere.VARIANTS[""]["CohereForCausalLM"].count(values)
    assert registry.checkpoint("command-r-plus").total - plain == 64 * (96 * 128 + 8 * 128)
