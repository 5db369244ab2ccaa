"""gpt-oss: the model card's Table 1 line by line, the active count and its convention, identities.

Expected values come from outside the project: the model card [cite: openai2025gptoss, Table 1], the released
configs [cite: hub-openai-gpt-oss], and transformers (tests/specs/gpt_oss.py, run by tests/test_reference_families.py).
"""

import sympy

from derivations import registry
from derivations.families import gpt_oss
from derivations.symbols import D, F, L, X, X_a

# Table 1, billions to the hundredth: MLP, attention, embed + unembed, active, total.
TABLE_1 = {"gpt-oss-120b": (114.71, 0.96, 1.16, 5.13, 116.83), "gpt-oss-20b": (19.12, 0.64, 1.16, 3.61, 20.91)}


def test_every_line_of_the_card():
    for name, figures in TABLE_1.items():
        values = registry.checkpoint(name).values
        parts = (gpt_oss.mlp_parameters, gpt_oss.attention_parameters, gpt_oss.embed_unembed,
                 gpt_oss.active_without_embedding, gpt_oss.ARCHITECTURES["GptOssForCausalLM"])
        assert [round(p.count(values) / 10**7) / 100 for p in parts] == list(figures), name


def test_the_card_leaves_the_input_embedding_out_of_the_active_count():
    values = registry.checkpoint("gpt-oss-120b").values
    with_embedding = gpt_oss.ACTIVE["GptOssForCausalLM"].count(values)
    assert round(with_embedding / 10**7) / 100 != 5.13
    assert with_embedding - gpt_oss.active_without_embedding.count(values) == 201_088 * 2_880


def test_idle_experts():
    gap = gpt_oss.ARCHITECTURES["GptOssForCausalLM"].total - gpt_oss.ACTIVE["GptOssForCausalLM"].total
    assert sympy.factor(gap - L * (X - X_a) * (3 * D * F + 2 * F + D)) == 0


def test_the_cards_checkpoint_size():
    # The model card's "Checkpoint Size": 60.8 GiB (120b) and 12.8 GiB (20b) [cite: openai2025gptoss]; the config's
    # quantization_config stores the experts in MXFP4 (4 bits and an 8-bit scale a block of 32), the rest in BF16.
    for name, gib in (("gpt-oss-120b", 60.8), ("gpt-oss-20b", 12.8)):
        values = registry.checkpoint(name).values
        assert round(gpt_oss.checkpoint_bytes.count(values) / 2**30, 1) == gib, name


def test_the_files_bytes_exactly():
    # The index of openai/gpt-oss-20b's files declares "total_size": 13761264768 [cite: hub-openai-gpt-oss]: the page's
    # figure to the byte (memory reads the same from the config's quantization_config: tests/test_quantization.py).
    assert gpt_oss.checkpoint_bytes.count(registry.checkpoint("gpt-oss-20b").values) == 13_761_264_768
