"""Llama 4's language model (model_type ``llama4_text``): config.json -> sizes, as Llama4TextConfig reads them, which
layers hold experts, which attend to chunks of the tokens and which rotate their queries and keys."""

from __future__ import annotations

from collections.abc import Mapping

from ..reading import ConfigError, Fields, Layout, Reader, padding_index, shown, switch
from .. import validation
from .llama import DECODER_CHECKS, EVEN_HEAD, KV_HEADS_DIVIDE_HEADS, SYMBOL_FIELDS, TIED, explicit_heads
from .mixtral import TOP_K
from .qwen2_moe import DENSE_LAYERS

# transformers' Llama4TextConfig defaults (configuration_llama4.py, 5.23): Llama 4 Scout's sizes. intermediate_size is
# each expert's width (and the shared expert's), intermediate_size_mlp the dense layers'. head_dim and
# num_key_value_heads are typed int: the strict config refuses null for them. No attribute_map.
FIELDS = Fields({"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
                 "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
                 "num_local_experts": 16, "num_experts_per_tok": 1, "interleave_moe_layer_step": 1,
                 "no_rope_layer_interval": 4, "attention_chunk_size": 8192})

CHUNKED, FULL = "chunked_attention", "full_attention"


def _layer_list(config: Mapping, field: str) -> list[int] | None:
    value = config.get(field)
    if value is None:
        return None
    if not isinstance(value, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in value):
        raise ConfigError(f"{field} must be a list of integers, got {shown(value)}")
    return value


def moe_layers(config: Mapping, layers: int) -> list[int]:
    """Llama4TextConfig.__post_init__: moe_layers as given, else every interleave_moe_layer_step-th layer counted from
    the step's own (range(step - 1, L, step): Scout's step 1 gives every layer, Maverick's 2 the odd ones)."""
    given = _layer_list(config, "moe_layers")
    if given is not None:
        return given
    step = config.get("interleave_moe_layer_step", FIELDS.defaults["interleave_moe_layer_step"])
    if isinstance(step, bool) or not isinstance(step, int) or step == 0:
        # range() refuses a step of 0 (ValueError as the config is made).
        raise ConfigError(f"interleave_moe_layer_step must be a non-zero integer, got {shown(step)}")
    return list(range(step - 1, layers, step))


def no_rope_layers(config: Mapping, layers: int) -> list[int]:
    """1 where layer i rotates its queries and keys, 0 where it does not (NoPE): no_rope_layers when given and not
    empty (the config keeps it only when truthy), else a NoPE layer every no_rope_layer_interval layers."""
    given = _layer_list(config, "no_rope_layers")
    if given:
        if len(given) < layers:
            # The attention of layer i reads no_rope_layers[i]; the config checks the layer types it derives from it.
            raise ConfigError(f"no_rope_layers must list {layers} entries (one per layer), got {len(given)}")
        return given
    every = FIELDS.size(config, "no_rope_layer_interval")
    return [int((i + 1) % every != 0) for i in range(layers)]


def layer_types(config: Mapping, layers: int) -> list[str]:
    """Each layer's attention: layer_types where given, else chunked where the layer rotates (no_rope_layers), full
    where it does not."""
    types = config.get("layer_types")
    if types is None:
        return [CHUNKED if rope else FULL for rope in no_rope_layers(config, layers)]
    if not isinstance(types, list) or len(types) != layers or not all(t in (CHUNKED, FULL) for t in types):
        raise ConfigError(f"layer_types must list {layers} entries, each {CHUNKED!r} or {FULL!r}")
    return types


def chunk_size(config: Mapping) -> int:
    if config.get("attention_chunk_size", 0) is None:
        # Llama4TextModel builds the chunked mask on every forward, whichever layers use it: it cannot run without one.
        raise ConfigError("attention_chunk_size must be set: the model builds a chunked attention mask on every forward")
    return FIELDS.size(config, "attention_chunk_size")


def read(config: Mapping) -> dict[str, int]:
    def get(field: str, minimum: int = 1) -> int:
        return FIELDS.size(config, field, minimum)

    heads, kv_heads, head = explicit_heads(FIELDS, config)
    experts, active = get("num_local_experts"), get("num_experts_per_tok", minimum=0)  # top-0 runs: experts add nothing
    TOP_K.check({"X_a": active, "X": experts}, {"X_a": "num_experts_per_tok", "X": "num_local_experts"})
    vocabulary, layers = get("vocab_size"), get("num_hidden_layers")
    padding_index(config, vocabulary, default=None)
    # A layer holds experts when its number is in moe_layers (numbers outside 0 .. L - 1 and repeats change nothing).
    sparse = set(moe_layers(config, layers)) & set(range(layers))
    layer_types(config, layers)
    chunk_size(config)
    return {"V": vocabulary, "D": get("hidden_size"), "H": heads, "K": kv_heads, "d_h": head,
            "F": get("intermediate_size_mlp"), "F_e": get("intermediate_size"), "L": layers, "L_f": layers - len(sparse),
            "X": experts, "X_a": active}


def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
    """transformers' cache keeps a chunked layer as a sliding-window one of attention_chunk_size tokens
    (cache_utils.get_layer_types_and_kwargs: "sliding and chunked are the same" to the cache), a full one whole."""
    chunk = chunk_size(config)
    return tuple(chunk if t == CHUNKED else None for t in layer_types(config, layers))


def rotary(config: Mapping, layers: int) -> tuple[bool, ...]:
    """Llama4TextAttention.use_rope: no_rope_layers[i]."""
    return tuple(bool(rope) for rope in no_rope_layers(config, layers))


# Biases on q, k, v and o (attention_bias, false in both releases); a head tied to the embeddings (false in both).
LAYOUT = Layout((switch("attention_bias", "attention_bias"), TIED))

# Llama4TextConfig's fields that set no size (configuration_llama4.py, 5.23). Both releases write
# attn_temperature_tuning 4, which 5.23's strict config refuses (typed bool): the bundled configs leave it out.
CHECKS = validation.fields(DECODER_CHECKS, use_qk_norm="bool", output_router_logits="bool",
                           router_aux_loss_coef="float", router_jitter_noise="float", attn_temperature_tuning="bool",
                           floor_scale="int", attn_scale="float", attention_bias="bool",
                           no_rope_layer_interval="int")

# No classification head: no num_labels.
READER = Reader("llama4_text", read, LAYOUT, {s: f for s, f in SYMBOL_FIELDS.items() if s != "C"} | {
    "F": "intermediate_size_mlp", "F_e": "intermediate_size", "X": "num_local_experts", "X_a": "num_experts_per_tok",
    "L_f": "moe_layers"}, (KV_HEADS_DIVIDE_HEADS, EVEN_HEAD, TOP_K, DENSE_LAYERS),
    zero=frozenset({"L_f"}), windows=windows, checks=CHECKS, rotary=rotary)
