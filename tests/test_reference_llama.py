"""The LLaMA derivation against transformers' Llama classes: total and every node, on the meta device.

The expected numbers are transformers' own (see reference.py); the derivation is evaluated on the same
config dict, through ``derivations.configs.resolve``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference  # skips this module without torch/transformers (fails under CI)
from strategies import maybe_flags, maybe_labels
from derivations import configs, registry
from derivations.families import llama

check = reference.check
torch, transformers = reference.torch, reference.transformers
SMALL = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 2, "num_attention_heads": 8}


@pytest.mark.parametrize("checkpoint", llama.FAMILY.checkpoints)
def test_checkpoint(checkpoint: str) -> None:
    check("LlamaForCausalLM", configs.load(checkpoint))


@pytest.mark.parametrize("architecture", llama.ARCHITECTURES)
def test_every_class_on_a_real_config(architecture: str) -> None:
    # Every class on Llama-3.2-1B's config (GQA, head_dim set, tied), with two layers to keep it quick.
    check(architecture, configs.load("llama-3.2-1b") | {"num_hidden_layers": 2})


@pytest.mark.parametrize("architecture", llama.ARCHITECTURES)
def test_defaults(architecture: str) -> None:
    check(architecture, {"model_type": "llama", "num_hidden_layers": 1})


@pytest.mark.parametrize("flags", [
    {"attention_bias": True}, {"mlp_bias": True}, {"tie_word_embeddings": True},
    {"token_classification_bias": False},
    {"attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True, "token_classification_bias": False},
], ids=["attention-bias", "mlp-bias", "tied", "no-token-bias", "all"])
@pytest.mark.parametrize("architecture", llama.ARCHITECTURES)
def test_layouts(flags: dict, architecture: str) -> None:
    check(architecture, SMALL | flags)


def test_head_dim_that_is_not_hidden_over_heads() -> None:
    check("LlamaForCausalLM", SMALL | {"head_dim": 24, "num_key_value_heads": 2})


def test_tying_is_real() -> None:
    model = reference.build("LlamaForCausalLM", configs.load("llama-3.2-1b") | {"num_hidden_layers": 1})
    assert model.lm_head.weight is model.model.embed_tokens.weight


def runs(config: dict) -> bool:
    """Whether transformers builds the causal LM of a small config (real weights, on the CPU) and runs
    one forward pass on it: what a reader must accept."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
            with torch.no_grad():
                model(torch.tensor([[1, 2, 3]]))
    except Exception:  # the config class, the constructor or the forward pass refuses it
        return False
    return True


# Each refused config, with the words of the reader's one-line message; transformers 5.23 refuses each
# (config class or constructor) or builds a model whose forward pass fails.
REFUSED = [
    ({"hidden_size": 66}, "not a multiple of num_attention_heads"),  # LlamaConfig.validate_architecture
    ({"num_key_value_heads": 3}, "num_key_value_heads"),  # builds; repeat_kv cannot pair the heads
    ({"head_dim": 0}, "head_dim"),  # LlamaAttention takes 0 as it is: the rotary embedding divides by it
    ({"head_dim": 7}, "head size"),  # RoPE rotates pairs of coordinates (the config's RoPE check)
    ({"hidden_size": 56}, "head size"),  # 56 / 8 = 7, the same
    ({"hidden_size": 24}, "head size"),  # 24 / 8 = 3: the RoPE check lets it through, the forward fails
    ({"attention_bias": 1}, "attention_bias"),  # LlamaConfig is strict about bools
    ({"pad_token_id": 1000}, "pad_token_id"),  # nn.Embedding's padding_idx assertion
]


@pytest.mark.parametrize("config, message", REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_refused_by_both(config: dict, message: str) -> None:
    with pytest.raises(configs.ConfigError, match=message):
        registry.resolve(SMALL | config)
    assert not runs(SMALL | config)


# Edges the reader accepts because transformers builds and runs them.
ACCEPTED = [{"num_key_value_heads": None}, {"hidden_size": 8}, {"num_labels": 0},
            {"head_dim": 1}]  # a head of 1: the rotary embedding's width 2 broadcasts over it


@pytest.mark.parametrize("config", ACCEPTED, ids=str)
def test_accepted_by_both(config: dict) -> None:
    assert runs(SMALL | config)
    check("LlamaForCausalLM", SMALL | config)


def test_quantized_modules_are_the_seven_projections() -> None:
    # [cite: bitsandbytes-834]: transformers quantizes every nn.Linear but the ones get_keys_to_not_convert names
    # (the output embedding); the miscount halves exactly those.
    from transformers.quantizers.base import get_keys_to_not_convert

    config = configs.load("llama-2-7b") | {"num_hidden_layers": 2}
    model = reference.build("LlamaForCausalLM", config)
    skipped = set(get_keys_to_not_convert(model))
    quantized = sum(m.weight.numel() for name, m in model.named_modules()
                    if isinstance(m, reference.torch.nn.Linear) and name not in skipped)
    assert skipped == {"lm_head"}
    assert quantized == llama.quantized_weights.subs(registry.resolve(config).values)


# RoPE needs an even head size (or 1, which runs by broadcasting).
head_sizes = st.integers(1, 32).filter(lambda size: size == 1 or size % 2 == 0)


@st.composite
def llama_configs(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))  # K divides H
    config = {"model_type": "llama", "vocab_size": draw(st.integers(1, 5000)), "num_attention_heads": heads,
              "hidden_size": heads * draw(head_sizes), "intermediate_size": draw(st.integers(1, 256)),
              "num_hidden_layers": draw(st.integers(1, 3))}
    if draw(st.booleans()) or kv_heads != heads:
        config["num_key_value_heads"] = kv_heads
    if draw(st.booleans()):
        config["head_dim"] = draw(head_sizes)
    maybe_flags(draw, config, "attention_bias", "mlp_bias", "tie_word_embeddings", "token_classification_bias")
    maybe_labels(draw, config)
    return config


@settings(max_examples=50, deadline=None)
@given(architecture=st.sampled_from(sorted(llama.ARCHITECTURES)), config=llama_configs())
def test_random_configs(architecture: str, config: dict) -> None:
    check(architecture, config)


@pytest.mark.parametrize("checkpoint", llama.TIED_CHECKPOINTS)
def test_the_page_counts_a_class_as_its_checkpoint_builds_it(checkpoint: str) -> None:
    # `num:llama.LlamaForCausalLM @ llama-3.2-1b` (and the checkpoint table) must be the tied model that
    # config builds in transformers, not the plain (untied) layout evaluated on its sizes.
    from derivations.site import references

    model = reference.build("LlamaForCausalLM", configs.load(checkpoint))
    shown = references.number_text(f"llama.LlamaForCausalLM @ {checkpoint}")
    assert shown == f"{reference.total(model):,}"
