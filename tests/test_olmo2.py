"""OLMo 2: the published totals, and what its layer adds to LLaMA's.

Expected values come from outside the project: the released files' index, the names, and transformers
(tests/specs/olmo2.py: every total recomputed on the meta device).
"""

import sympy

from derivations import registry
from derivations.families import llama, olmo2
from derivations.symbols import D, H, K, d_h


def test_the_13b_weights_index():
    # [cite: hub-allenai-olmo2, OLMo-2-1124-13B's model.safetensors.index.json]: "total_size": 54864793600 bytes of
    # float32 weights ("torch_dtype": "float32" in its config.json), four bytes a parameter.
    assert registry.checkpoint("olmo-2-13b", "Olmo2ForCausalLM").total * 4 == 54_864_793_600


def test_two_names_round_from_the_exact_counts_and_13b_does_not():
    # The releases' names [cite: hub-allenai-olmo2]: 7B, 13B and 32B. OLMo 2 13B holds 13.7 billion: a name, not a
    # rounding (its width, depth and heads are LLaMA 2 13B's, and the vocabulary is three times LLaMA's).
    seven, thirteen, thirty_two = olmo2.NAMES
    assert seven.rounds() and thirty_two.rounds() and not thirteen.rounds()
    assert registry.checkpoint("olmo-2-13b").total // 10**8 == 137


def test_the_layer_is_llamas_with_the_norms_moved_and_two_width_norms():
    # LLaMA's layer has two norms of D (before the sublayers); OLMo 2's two of D after them, and two over the whole
    # query and key widths (Olmo2Attention: q_norm of num_attention_heads * head_dim, k_norm of num_key_value_heads *
    # head_dim).
    assert sympy.expand(olmo2.layer.total - llama.layer.total - (H + K) * d_h) == 0
    assert D in olmo2.layer.total.free_symbols
