"""Mistral 7B: the published total, the paper's sizes, and the announced "7.3B".

That Mistral's classes hold LLaMA's tensors, and that the sliding window adds none, is checked against
transformers in tests/specs/mistral.py and tests/test_reference_mistral.py.
"""

from derivations import registry

from derivations.families import mistral


def test_published_total():
    # [cite: euroeval-188] prints "num_model_parameters": 7241732096 for mistralai/Mistral-7B-Instruct-v0.1,
    # which has Mistral-7B-v0.1's shapes; ollama's model_info for mistral prints the same
    # "general.parameter_count": 7241732096.
    assert registry.checkpoint("mistral-7b", "MistralForCausalLM").total == 7_241_732_096


def test_paper_table_1_sizes():
    # [cite: jiang2023, Table 1]: dim 4096, n_layers 32, head_dim 128, hidden_dim 14336, n_heads 32,
    # n_kv_heads 8, vocab 32000.
    values = {str(k): v for k, v in registry.checkpoint("mistral-7b").values.items()}
    assert {k: values[k] for k in ("D", "L", "d_h", "F", "H", "K", "V")} == {
        "D": 4096, "L": 32, "d_h": 128, "F": 14336, "H": 32, "K": 8, "V": 32000}


def test_announced_7_3b_does_not_round():
    # Mistral AI, "Announcing Mistral 7B": "Mistral 7B is a 7.3B parameter model". The exact count is 7.2
    # billion to a tenth.
    assert not mistral.announced.rounds()
    assert mistral.name.rounds()
