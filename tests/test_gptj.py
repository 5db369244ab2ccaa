"""GPT-J-6B: the published totals, and the card's figure reconciled.

Expected values come from outside the project: the model card [cite: gpt-j-card], mesh-transformer-jax's layers
[cite: mesh-transformer-jax], a printout of transformers' count; every class is checked against transformers on the
meta device by the reference harness (tests/specs/gptj.py).
"""

from derivations import registry

from derivations.families import gptj

# GPT-J-6B's sizes, as its card's table gives them: 28 layers, d_model 4096, d_ff 16384, 16 heads, n_vocab 50400.
L, D, F, V = 28, 4096, 16384, 50400
CARD = 6_053_381_344  # [cite: gpt-j-card], n_parameters


def test_transformers_count():
    # The gpt-j-6B-LoRA README (found with the code search) prints transformers' GPTJForCausalLM on
    # EleutherAI/gpt-j-6B: "# of params: 6050882784".
    assert registry.checkpoint("gpt-j-6b").total == 6_050_882_784


def test_the_card_counts_the_eight_shards():
    # mesh-transformer-jax [cite: mesh-transformer-jax] trains GPT-J on cores_per_replica = 8 shards: each keeps a
    # ReplicatedLayerNorm (scale and offset) per layer and at the end, the full-width bias of dense_proj_o, and its
    # EmbeddingShard's hk.Linear bias (transformers keeps one of the first two, none of the last).
    shards = 8
    extra = (shards - 1) * (2 * D * (L + 1) + D * L) + shards * D
    assert registry.checkpoint("gpt-j-6b").total + extra == CARD
    gptj.sharded.check()
    assert not gptj.sharded.right


def test_card_sizes():
    values = {str(k): v for k, v in registry.checkpoint("gpt-j-6b").values.items()}
    assert {k: values[k] for k in ("L", "D", "F", "V", "H", "d_h")} == {"L": L, "D": D, "F": F, "V": V, "H": 16,
                                                                        "d_h": 256}


def test_the_head_bias_stays_when_tied():
    # GPTJForCausalLM: lm_head = nn.Linear(n_embd, vocab_size) (a bias), _tied_weights_keys ties lm_head.weight only.
    untied = registry.resolve({"model_type": "gptj", "n_layer": 1}, "GPTJForCausalLM").total
    tied = registry.resolve({"model_type": "gptj", "n_layer": 1, "tie_word_embeddings": True}, "GPTJForCausalLM").total
    assert untied - tied == D * V
