"""BLOOM: the model cards' exact counts, symbolic identities, and the names reconciled.

Expected values come from outside the project: the model cards named below, and transformers (tests/specs/bloom.py,
run by the reference harness, recomputes every total on the meta device).
"""

import pytest
import sympy

from derivations import registry
from derivations.families import bloom, gpt2
from derivations.symbols import D, L, V

# The BLOOM model cards, "Technical Specifications" ("176,247,271,424 parameters: 3,596,615,680 embedding
# parameters, 70 layers, 112 attention heads" on huggingface.co/bigscience/bloom, and the same lines on each
# smaller card) [cite: bloom-card]: checkpoint -> (total, embedding parameters), as printed.
CARD = {
    "bloom-560m": (559_214_592, 256_901_120),
    "bloom-1b1": (1_065_314_304, 385_351_680),
    "bloom-1b7": (1_722_408_960, 513_802_240),
    "bloom-3b": (3_002_557_440, 642_252_800),
    "bloom-7b1": (7_069_016_064, 1_027_604_480),
    "bloom": (176_247_271_424, 3_596_615_680),
}


def test_the_cards_cover_the_bundled_sizes():
    assert tuple(CARD) == bloom.CHECKPOINTS


# The class each config.json names: BloomForCausalLM, but for the 176B's file as bundled (its June 2022 revision,
# see bloom.CHECKPOINTS), which names none: the reader then counts the base model, as transformers' AutoModel builds.
NAMED = {"bloom": "BloomModel"}


@pytest.mark.parametrize("checkpoint", CARD)
def test_card_total(checkpoint):
    resolved = registry.checkpoint(checkpoint)
    assert resolved.architecture == NAMED.get(checkpoint, "BloomForCausalLM")
    assert resolved.total == CARD[checkpoint][0]


@pytest.mark.parametrize("checkpoint", CARD)
def test_card_embedding_parameters_are_the_token_table(checkpoint):
    # The cards' "embedding parameters" are the token table alone: the LayerNorm after it is not among them.
    values = registry.checkpoint(checkpoint).values
    assert bloom.word_embeddings.count(values) == CARD[checkpoint][1]
    assert bloom.embeddings.count(values) == CARD[checkpoint][1] + 2 * values[D]


# The same numbers in plain Python, from the architecture as described (not from the package): a V x D table and
# its LayerNorm (2D), L blocks of two LayerNorms (4D), fused Q/K/V (3D^2 + 3D), output (D^2 + D), a 4D-wide
# feed-forward (8D^2 + 5D), a final LayerNorm (2D); the head is the table.
def bloom_count(vocabulary: int, layers: int, width: int) -> int:
    return vocabulary * width + 2 * width + layers * (12 * width**2 + 13 * width) + 2 * width


@pytest.mark.parametrize("checkpoint", CARD)
def test_plain_python_agrees_with_the_card(checkpoint):
    values = registry.checkpoint(checkpoint).values
    assert bloom_count(values[V], values[L], values[D]) == CARD[checkpoint][0]


def test_block_is_gpt2s():
    # The same tensors per block as GPT-2 at F = 4D: 12D^2 + 13D.
    assert sympy.expand(bloom.block.total - gpt2.layer_standard.total) == 0
    assert sympy.expand(bloom.block.total) == 12 * D**2 + 13 * D


def test_no_position_table_and_no_feed_forward_size():
    # ALiBi learns nothing, and BloomMLP is always 4D wide: the count depends on V, D and L alone.
    total = bloom.ARCHITECTURES["BloomForCausalLM"].total
    assert total.free_symbols == {V, D, L}


def test_untying_adds_one_table():
    tied = bloom.ARCHITECTURES["BloomForCausalLM"].total
    untied = bloom.VARIANTS["untied"]["BloomForCausalLM"].total
    assert sympy.expand(untied - tied) == V * D


def test_names_round_from_the_totals():
    assert all(claim.rounds(0) for claim in bloom.NAMES)
    assert [c.printed for c in bloom.NAMES] == ["560M", "1.1B", "1.7B", "3B", "7.1B", "176B"]


# huplay/demo-gpt-java, README.md at b841265 (March 2023), the BLOOM table's "Size of params" column, as printed
# [cite: demo-gpt-java]: every row a learned position table of 2,048 rows ("Max. length") too large, truncated to
# whole millions.
README_MILLIONS = {"bloom-560m": 561, "bloom-1b1": 1_068, "bloom-1b7": 1_726, "bloom-3b": 3_007, "bloom-7b1": 7_077,
                   "bloom": 176_276}


@pytest.mark.parametrize("checkpoint", README_MILLIONS)
def test_the_readme_counted_a_position_table(checkpoint):
    values = registry.checkpoint(checkpoint).values
    with_positions = CARD[checkpoint][0] + 2048 * values[D]
    assert with_positions // 10**6 == README_MILLIONS[checkpoint]
    assert CARD[checkpoint][0] // 10**6 != README_MILLIONS[checkpoint]


@pytest.mark.parametrize("claim", bloom.FAMILY.miscounts, ids=lambda m: m.name)
def test_miscounts_reconcile_exactly(claim):
    claim.check()
    assert claim.claim // 10**6 == README_MILLIONS[claim.checkpoint]
