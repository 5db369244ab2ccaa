r"""Beside the calculators: what three public calculators say a model holds, by their own published formulas, set
beside the package's figures, each difference taken apart into named causes, exact in bytes.

The peers' formulas are exhibits, not a derivation: each is written here as its code publishes it, with the line it
comes from quoted in a comment, at the version cited. They read what a ``config.json`` gives them and no more:

* llm-analysis, as ``pip install llm-analysis`` installs it (0.2.2) [cite: llm-analysis-0.2.2]: its reader takes
  layers, heads, key/value heads, width and vocabulary, and nothing of the feed-forward. (Its repository's later,
  unreleased reader [cite: llm-analysis] takes ``intermediate_size`` and sets ``mlp_gated_linear_units`` only where
  it is 3.5 times the width, leaving the name unbound otherwise: it raises for five of the six models below.)
* gpu_poor ("Can my GPU run this LLM?") [cite: gpu-poor]: five fields of the config, in JavaScript.
* LLM-Viewer [cite: llm-viewer], with its LLaMA layout (``configs/Llama.py``), the one its command line takes for a
  decoder of this shape.

Our figures are the package's (:func:`derivations.answers.memory`, as the command line prints them); the tests
check them against transformers (``tests/test_reference_memory.py``). A difference is a chain: from the peer's
figure, one cause at a time, in the order listed, to ours; each step is a formula in the config's sizes, or, where a
peer has no term for a whole structure (experts it does not read, a latent it does not know), the rest of that
group. A chain that does not land exactly on the package's figure stops the build.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from .. import answers, configs, registry, render, sources, storage
from ..components import evaluate
from ..memory import QUANTIZED_KINDS, ROUTING
from ..symbols import R_kv, D, F, L, d_h, d_n, d_r, d_v

# The models and lengths the page compares (one sequence, bf16 unless a table says otherwise).
MODELS = (("mistral-7b", 8 * 1024), ("gemma-2-9b", 8 * 1024), ("deepseek-v3", 4 * 1024), ("gpt-oss-20b", 8 * 1024),
          ("llama-2-7b", 4 * 1024), ("qwen2.5-7b", 32 * 1024))
# The totals table: a short context and a long one.
TOTALS = (("llama-2-7b", 4 * 1024), ("qwen2.5-7b", 32 * 1024))
# The 4-bit table.
FOUR_BIT = (("llama-2-7b", 4 * 1024), ("gpt-oss-20b", 8 * 1024))
MIB = 2**20


def _exact(value: Fraction | int) -> Fraction | int:
    """A peer's figure in bytes: its arithmetic is in floats, exact for these sizes; a whole number of bytes but
    for gpu_poor's 6 %, which leaves hundredths (shown as such)."""
    value = Fraction(value)
    assert 100 % value.denominator == 0, value
    return int(value) if value.denominator == 1 else value


# ---------------------------------------------------------------------------------------------
# What a peer reads of a config
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Read:
    """The sizes a peer takes from ``config.json``: layers, width, heads, key/value heads, vocabulary, and the
    feed-forward's width as the peer takes it (llm-analysis: 4 times the width)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    vocab: int
    ffn: int


def llm_analysis_read(config: Mapping) -> Read:
    """llm_analysis/config.py at 0.2.2, get_model_config_from_hf (lines 175-213) and ModelConfig.__post_init__."""
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    # l.70: "self.ffn_embed_dim = self.hidden_dim * 4" (the reader passes no ffn_embed_dim; no moe_num_experts either:
    # l.65 "moe_num_experts: int = 1")
    # l.79: "self.num_key_value_heads = self.n_head" where the config has none
    return Read(config["num_hidden_layers"], hidden, heads, config.get("num_key_value_heads") or heads,
                config["vocab_size"], 4 * hidden)


def gpu_poor_read(config: Mapping) -> Read:
    """src/App.js, sanityUploadedConfig (l.597-662): vocab_size, hidden_size, num_attention_heads,
    intermediate_size, num_hidden_layers; nothing else (its key/value heads are its heads)."""
    heads = config["num_attention_heads"]
    return Read(config["num_hidden_layers"], config["hidden_size"], heads, heads, config["vocab_size"],
                config["intermediate_size"])


def llm_viewer_read(config: Mapping) -> Read:
    """configs/Llama.py: getattr of num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads,
    intermediate_size, vocab_size on transformers' config (a missing num_key_value_heads is transformers' default,
    the heads)."""
    heads = config["num_attention_heads"]
    return Read(config["num_hidden_layers"], config["hidden_size"], heads, config.get("num_key_value_heads", heads),
                config["vocab_size"], config["intermediate_size"])


# ---------------------------------------------------------------------------------------------
# Their formulas, as published (bytes; one sequence of `tokens`; `bits` a weight)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Groups:
    """Parameters by where they sit (the peers' terms, and the package's leaves by kind): the embedding, the output
    head, the norms, attention's matrices, the feed-forward's matrices (a router's too), and the rest of attention
    and the feed-forward (biases, gpt-oss' sinks)."""

    embedding: Fraction = Fraction(0)
    head: Fraction = Fraction(0)
    norms: Fraction = Fraction(0)
    attention: Fraction = Fraction(0)
    feed_forward: Fraction = Fraction(0)
    biases: Fraction = Fraction(0)

    def total(self) -> Fraction:
        return self.embedding + self.head + self.norms + self.attention + self.feed_forward + self.biases


def llm_analysis_parameters(r: Read) -> Groups:
    """llm_analysis/analysis.py at 0.2.2, the terms its inference() adds up for the weights (l.1473-1483)."""
    h, n, kv = Fraction(r.hidden), r.heads, r.kv_heads
    return Groups(
        # l.254: "num_params_input_embedding = (self.model_config.hidden_dim * self.model_config.vocab_size)"; l.258:
        # the output embedding "if not shared_embedding else 0", and get_memory_embedding calls it with the default,
        # shared_embedding=True
        embedding=h * r.vocab,
        # l.294: "return 2 * self.model_config.hidden_dim" a layer; l.297: "return self.model_config.hidden_dim" last
        norms=r.layers * 2 * h + h,
        # l.274: "return 2 * self.model_config.hidden_dim**2 + 2 * self.model_config.hidden_dim * (
        #     self.model_config.hidden_dim * num_key_value_heads / self.model_config.n_head)"
        attention=r.layers * (2 * h**2 + 2 * h * (h * kv / n)),
        # l.285: "return 2 * self.model_config.hidden_dim * self.model_config.ffn_embed_dim *
        #     self.model_config.moe_num_experts"
        feed_forward=r.layers * 2 * h * r.ffn * 1)


def llm_analysis_weights(r: Read, bits: int = 16, embedding_bits: int = 16) -> Fraction:
    """Weights (l.1481: "weight_memory_per_gpu = (weight_memory_layers_per_gpu + weight_memory_embedding_per_gpu +
    weight_memory_last_layernorm)"): the layers and the last norm at weight_bits, the embedding at embedding_bits
    (the dtype configs w16a16e16, w4a16e16)."""
    p = llm_analysis_parameters(r)
    return (p.total() - p.embedding) * bits / 8 + p.embedding * embedding_bits / 8


def llm_analysis_cache(r: Read, tokens: int, kv_bytes: int = 2) -> Fraction:
    """l.866: "head_dim = self.model_config.hidden_dim / self.model_config.n_head"; l.872: "memory_kv_cache_per_layer
    = (2 * batch_size * seq_len * head_dim * num_heads_per_gpu) * kv_cache_dtype_bytes"; times num_layers
    (l.1565-1568); batch 1."""
    head_dim = Fraction(r.hidden, r.heads)
    return (2 * 1 * tokens * head_dim * r.kv_heads) * kv_bytes * r.layers


def llm_analysis_number(count: Fraction | int) -> str:
    """llm_analysis/utils.py at 0.2.2, _num_to_string (l.16: "divisor=1024"): "162.58 G", counts and bytes alike."""
    for power, prefix in ((4, "T"), (3, "G"), (2, "M"), (1, "K")):
        if count // 1024**power > 0:
            return f"{round(float(count) / 1024**power, 2)} {prefix}"
    return str(count)


def llm_analysis_printed(count: Fraction | int) -> str:
    """Bytes as its summary prints them, with the "B" it adds: binary units under decimal names."""
    return llm_analysis_number(count) + "B"


def gpu_poor_parameters(r: Read) -> Groups:
    """src/App.js, computeModelSize (l.213-216): "vocab * hiddenDim * 2 + numLayers * 4 * hiddenDim * hiddenDim +
    numLayers * 3 * interDim * hiddenDim"."""
    h = Fraction(r.hidden)
    return Groups(embedding=r.vocab * h, head=r.vocab * h, attention=r.layers * 4 * h * h,
                  feed_forward=r.layers * 3 * r.ffn * h)


# l.775: "extra = 0.06 * size" (for bitsandbytes' 4 and 8 bits, and QLoRA)
GPU_POOR_EXTRA_PERCENT = 6


def gpu_poor_weights(r: Read, four_bit: bool = False) -> Fraction:
    """convertToMBModelSize (l.770-790): "let size = (value * fB) / (1024 * 1024)" with fB = 2; for "bnb_q4", "extra
    = 0.06 * size" and "size = size / 4", then "size + extra". In bytes (the MiB times 2^20)."""
    size = gpu_poor_parameters(r).total() * 2
    return size / 4 + Fraction(GPU_POOR_EXTRA_PERCENT, 100) * size if four_bit else size


def gpu_poor_cache(r: Read, tokens: int) -> Fraction:
    """l.916-922, inference in transformers ("inf"): "convertToMB(2 * contextLen * 2 * 2 * parsedConfig["hiddenDim"] *
    parsedConfig["num_layers"])", whatever the quantization; batch 1."""
    return Fraction(2 * tokens * 2 * 2 * r.hidden * r.layers)


def gpu_poor_activations(r: Read, tokens: int) -> Fraction:
    """computeInferenceOnlyActivationMemory (l.77-86): "(contextLen * hiddenDim * 5 * 2 + contextLen * contextLen *
    heads * 2) / (1024 * 1024)"."""
    return Fraction(tokens * r.hidden * 5 * 2 + tokens * tokens * r.heads * 2)


# l.825: "let overHead = 650;" (MiB, "cuda + other overhead")
GPU_POOR_OVERHEAD = 650 * MIB

# Its README: "with sequence length 1000 on llama-2-7b it takes 1GB of extra memory (using hugginface
# LlamaForCausalLM ...)": what its formula gives there, in MiB.
GPU_POOR_README_TOKENS = 1000
GPU_POOR_README_MIB = _exact(gpu_poor_cache(gpu_poor_read(configs.load("llama-2-7b")), GPU_POOR_README_TOKENS) / MIB)


def gpu_poor_total(r: Read, tokens: int) -> Fraction:
    """l.956: "inferenceMemory + modelSizeinMB + overHead + activationMemory"."""
    return gpu_poor_cache(r, tokens) + gpu_poor_weights(r) + GPU_POOR_OVERHEAD + gpu_poor_activations(r, tokens)


def gpu_poor_printed(count: Fraction | int) -> str:
    """l.1013-1015: "Math.ceil(...)" of the MiB, shown as "{value} MB" (l.2742)."""
    return f"{-(-Fraction(count) // MIB)} MB"


def llm_viewer_parameters(r: Read) -> Groups:
    """configs/Llama.py, get_linear_layers (l.46-52): q_proj and out_proj [hidden, hidden], k_proj and v_proj
    [hidden, hidden*key_value_heads/attention_heads], gate_proj and up_proj [hidden, intermediate], down_proj
    [intermediate, hidden]; model_analyzer.py l.216 (the prefill) "load_weight=ic * oc * w_byte", times
    num_hidden_layers (l.425).
    memory_consumption_weight is taken (l.441) before the lm_head is added (l.444-452): no embedding, no head."""
    h = Fraction(r.hidden)
    return Groups(attention=r.layers * (2 * h * h + 2 * h * (h * r.kv_heads / r.heads)),
                  feed_forward=r.layers * 3 * h * r.ffn)


def llm_viewer_weights(r: Read, bits: int = 16) -> Fraction:
    return llm_viewer_parameters(r).total() * bits / 8


def llm_viewer_cache(r: Read, tokens: int) -> Fraction:
    """model_analyzer.py l.220, prefill: "store_kv_cache=(0 if is_normal_proj else oc * batchsize * seqlen *
    kv_byte)" for k_proj and v_proj (oc = hidden*key_value_heads/attention_heads), times num_hidden_layers."""
    return r.layers * 2 * (Fraction(r.hidden * r.kv_heads, r.heads) * 1 * tokens * 2)


def llm_viewer_activations(r: Read, tokens: int) -> Fraction:
    """The prefill's "tmp_act" (l.436-439): the store_act of each operation of one layer, added once: the outputs
    of q_proj, out_proj, gate_proj, up_proj, down_proj (l.218: not k_proj, v_proj), qk_matmul and softmax
    (seqlen * seqlen * heads), sv_matmul (seqlen * head_size * heads, head_size = hidden // heads), two norms, two
    residual adds and mlp_act (each hidden * seqlen: its act is written on hidden_size), at 2 bytes."""
    t, h, n = tokens, r.hidden, r.heads
    linear = t * (3 * h + 2 * r.ffn)
    attention = 2 * t * t * n + t * (h // n) * n
    return Fraction(2 * (linear + attention + 2 * h * t + 2 * h * t + h * t))


def llm_viewer_total(r: Read, tokens: int) -> Fraction:
    """l.439: "memory_consumption = prefill_tmp_act + weight_kv_footprint" (l.428: weights and the cache)."""
    return llm_viewer_weights(r) + llm_viewer_cache(r, tokens) + llm_viewer_activations(r, tokens)


def llm_viewer_printed(count: Fraction | int) -> str:
    """frontend/src/utils.js, strNumber (l.1-21): decimal prefixes, "14.0G", "283M"."""
    value = float(count)
    for above, unit, prefix, places in ((1e14, 1e12, "T", 0), (1e12, 1e12, "T", 1), (1e11, 1e9, "G", 0),
                                        (1e9, 1e9, "G", 1), (1e8, 1e6, "M", 0), (1e6, 1e6, "M", 1)):
        if value > above:
            return f"{value / unit:.{places}f}{prefix}"
    raise ValueError(count)


# ---------------------------------------------------------------------------------------------
# Ours: the package's figures, and its leaves by kind
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ours:
    checkpoint: str
    tokens: int
    config: Mapping
    values: Mapping  # the package's sizes (symbols -> int)
    weights: int  # bf16 bytes, as `memory` prints them
    cache: int
    parameters: Groups
    kept: Mapping[str, tuple[int, int]]  # a format's bytes by group, (without scales, scales)

    @property
    def latent(self) -> bool:
        return R_kv in self.values

    @property
    def moe(self) -> bool:
        return self.parameters.feed_forward != 3 * self.values[L] * self.values[D] * self.values[F]


def _groups(part, values, fmt: storage.Format) -> tuple[Groups, dict[str, tuple[int, int]]]:
    """The package's tensors by group: parameters, and in ``fmt`` bytes without scales and the scales' bytes."""
    params: dict[str, int] = {}
    held: dict[str, list[int]] = {}
    for kind, leaf, copies in part.kinds():
        for i, size in enumerate(leaf.tensor_sizes):
            matrix = i == 0 and leaf.matrix != 0
            group = {"embeddings": "embedding", "heads": "head", "norms": "norms"}.get(kind)
            if group is None:
                assert kind in QUANTIZED_KINDS, kind
                group = ("attention" if kind == "attention" else "feed_forward") if matrix else "biases"
            n, c = evaluate(size, values), evaluate(copies, values)
            quantizable = matrix and kind in QUANTIZED_KINDS and leaf.name not in ROUTING  # as derivations.memory
            whole = c * fmt.tensor_bytes(n, quantizable)
            plain = c * n * (fmt.bits if quantizable or fmt.block is None else fmt.kept_bits) // 8
            params[group] = params.get(group, 0) + n * c
            kept = held.setdefault(group, [0, 0])
            kept[0] += plain
            kept[1] += whole - plain
    return Groups(**{k: Fraction(v) for k, v in params.items()}), {k: (v[0], v[1]) for k, v in held.items()}


@cache
def ours(checkpoint: str, tokens: int, dtype: str = "bf16") -> Ours:
    config = configs.load(checkpoint)
    answer = answers.memory(config, None, tokens, dtype=dtype)
    resolved = registry.checkpoint(checkpoint)
    groups, kept = _groups(resolved.part, resolved.values, storage.FORMATS[dtype])
    return Ours(checkpoint, tokens, config, dict(resolved.values), answer["weights_bytes"], answer["kv_cache_bytes"],
                groups, kept)


# ---------------------------------------------------------------------------------------------
# The causes, and the chains from a peer's figure to ours
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cause:
    label: str  # as the table names it
    why: str  # what the peer's formula does, against what transformers holds (HTML)


CAUSES = {
    # the key/value cache
    "twice": Cause("×2", "gpu_poor counts 2 × 2 × tokens × hidden elements a layer for transformers, twice what its "
                   "README gives other engines; transformers' cache holds each key and value once"),
    "all-heads": Cause("all heads", "keys and values for every query head: gpu_poor does not read "
                       "<code>num_key_value_heads</code>"),
    "head-size": Cause("head size", "heads of hidden ÷ heads, where the config gives heads of their own: {sizes}"),
    "window": Cause("window", "every layer keeps every token; a sliding-window layer keeps its last window − 1 "
                    "(Mistral 7B: all its layers; Gemma 2 and gpt-oss: every other one)"),
    "latent": Cause("latent", "DeepSeek's multi-head latent attention counted as multi-head attention: its layers "
                    "cache a {latent}-wide latent and one {rope}-wide rotary key a token, and their weights are "
                    "low-rank projections"),
    # the weights
    "embedding": Cause("embedding", "LLM-Viewer does not count the token embedding"),
    "output-head": Cause("output head", "llm-analysis and LLM-Viewer do not count an untied output head"),
    "tied-head": Cause("tied head", "gpu_poor counts a tied output head (Gemma 2's) again"),
    "norms": Cause("norms", "gpu_poor and LLM-Viewer do not count the norms"),
    "two-norms": Cause("2 norms a layer", "llm-analysis counts two norms a layer and a final one (Gemma 2 has four a "
                       "layer; DeepSeek's latent attention two more)"),
    "width": Cause("FFN 4 × hidden", "llm-analysis 0.2.2 takes a feed-forward of two matrices 4 × hidden wide: "
                   "<code>intermediate_size</code> is not read, nor the third matrix of a gated unit counted"),
    "experts": Cause("experts", "one dense feed-forward a layer: the experts are not read (nor DeepSeek-V3's dense "
                     "first layers, nor the routers)"),
    "biases": Cause("biases", "biases (Qwen2's query, key and value; all of gpt-oss', with its attention sinks) are not "
                    "counted"),
    # 4 bits
    "bnb-extra": Cause(f"+{GPU_POOR_EXTRA_PERCENT} %", f"gpu_poor adds {GPU_POOR_EXTRA_PERCENT} % of the 16-bit size "
                       "for bitsandbytes' 4 bits"),
    "at-16-bits": Cause("16 bits", "the quantizers keep these at 16 bits (embedding, norms, biases, routers, the "
                        "output head), where the peer puts them at 4"),
    "scales": Cause("scales", "the 4-bit format's scales (and zero points) are not counted"),
    # totals
    "weights": Cause("weights", "the weights' difference, as the first table takes it apart"),
    "cache": Cause("cache", "the cache's difference, as the first table takes it apart"),
    "overhead": Cause(f"{GPU_POOR_OVERHEAD // MIB} MiB", f"gpu_poor's flat “cuda + other overhead” of "
                      f"{GPU_POOR_OVERHEAD // MIB} MiB"),
    "activations": Cause("activations", "gpu_poor: 10 × tokens × hidden + 2 × tokens² × heads bytes (the attention "
                         "scores of one layer, at 16 bits); LLM-Viewer: the outputs of one layer's operations in the "
                         "prefill, the scores twice"),
}


Steps = list[tuple[str, Fraction]]


def _attention_steps(ours_: Ours, r: Read, peer: Groups, all_heads: bool) -> Steps:
    """From the peer's attention matrices to the package's: its key/value heads, its heads' sizes, or a latent."""
    v, h = ours_.values, Fraction(r.hidden)
    kv = ours_.config["num_key_value_heads"]
    steps: Steps = []
    here = peer.attention
    if all_heads:
        # k and v for the heads, not the key/value heads (both at the peer's head size, hidden ÷ heads)
        step = r.layers * 2 * h * (h - h * kv / r.heads)
        steps.append(("all-heads", step))
        here -= step
    if ours_.latent:
        steps.append(("latent", here - ours_.parameters.attention))
        return steps
    # q and o: hidden x heads·head; k and v: hidden x kv_heads·head; at hidden ÷ heads, then at the config's head
    step = r.layers * 2 * h * (r.heads + kv) * (h / r.heads - v[d_h])
    steps.append(("head-size", step))
    assert here - step == ours_.parameters.attention, (ours_.checkpoint, here - step, ours_.parameters.attention)
    return steps


def _feed_forward_steps(ours_: Ours, r: Read, peer: Groups, width: bool) -> Steps:
    v = ours_.values
    steps: Steps = []
    here = peer.feed_forward
    if width:
        # two matrices of 4·hidden, not three of intermediate_size (the dense width, where the config gives one)
        step = r.layers * (2 * r.hidden * r.ffn - 3 * r.hidden * v[F])
        steps.append(("width", step))
        here -= step
    if ours_.moe:
        steps.append(("experts", here - ours_.parameters.feed_forward))
        return steps
    assert here == ours_.parameters.feed_forward, (ours_.checkpoint, here, ours_.parameters.feed_forward)
    return steps


# The group a cause of the weights changes.
GROUP = {"embedding": "embedding", "output-head": "head", "tied-head": "head", "norms": "norms", "two-norms": "norms",
         "all-heads": "attention", "head-size": "attention", "latent": "attention", "width": "feed_forward",
         "experts": "feed_forward", "biases": "biases"}


def parameter_steps(peer_name: str, ours_: Ours) -> Steps:
    """The chain from a peer's parameters to the package's, group by group."""
    r = READ[peer_name](ours_.config)
    p, o = PARAMETERS[peer_name](r), ours_.parameters
    steps: Steps = []
    if p.embedding != o.embedding:
        assert p.embedding == 0
        steps.append(("embedding", -o.embedding))
    if p.head != o.head:
        steps.append(("output-head" if p.head == 0 else "tied-head", p.head - o.head))
    if p.norms != o.norms:
        steps.append(("norms" if p.norms == 0 else "two-norms", p.norms - o.norms))
    steps += _attention_steps(ours_, r, p, all_heads=peer_name == "gpu-poor")
    steps += _feed_forward_steps(ours_, r, p, width=peer_name == "llm-analysis-0.2.2")
    if o.biases:
        steps.append(("biases", -o.biases))
    return [(k, s) for k, s in steps if s]


def weight_steps(peer_name: str, ours_: Ours, fmt: str = "bf16") -> Steps:
    """The chain from a peer's weights to ours in ``fmt``: each parameter step at the peer's width for its group
    (where the peer has no term for the group at all, at ours); then, in 4 bits, what the quantizers keep at 16
    bits and the scales."""
    widths = WIDTHS[peer_name][fmt != "bf16"]
    p = PARAMETERS[peer_name](READ[peer_name](ours_.config))
    o = ours(ours_.checkpoint, ours_.tokens, FORMAT[peer_name] if fmt != "bf16" else "bf16")
    kept = {g: Fraction(o.kept.get(g, (0, 0))[0]) for g in GROUP.values()}
    steps: Steps = []
    if peer_name == "gpu-poor" and fmt != "bf16":
        steps.append(("bnb-extra", Fraction(GPU_POOR_EXTRA_PERCENT, 100) * 2 * p.total()))
    for key, step in parameter_steps(peer_name, o):
        group = GROUP[key]
        counted = getattr(p, group) != 0
        steps.append((key, step * (widths[group] if counted else kept[group] / getattr(o.parameters, group))))
    counted = [g for g in kept if getattr(p, g) != 0]
    steps.append(("at-16-bits", sum(getattr(o.parameters, g) * widths[g] - kept[g] for g in counted)))
    steps.append(("scales", -sum(Fraction(o.kept.get(g, (0, 0))[1]) for g in kept)))
    return [(k, s) for k, s in steps if s]


def cache_steps(peer_name: str, ours_: Ours) -> Steps:
    """The chain from a peer's key/value cache to ours (bf16, one sequence)."""
    r, v, t = READ[peer_name](ours_.config), ours_.values, ours_.tokens
    steps: Steps = []
    here = CACHE[peer_name](r, t)
    if peer_name == "gpu-poor":
        steps.append(("twice", here / 2))
        here /= 2
        step = 2 * t * r.layers * 2 * (r.hidden - Fraction(r.hidden * ours_.config["num_key_value_heads"], r.heads))
        steps.append(("all-heads", step))
        here -= step
    kv = ours_.config["num_key_value_heads"]
    # a token's keys and values in a layer, with the config's own heads (DeepSeek: keys of d_n + d_r, values of d_v)
    own = kv * (v[d_n] + v[d_r] + v[d_v]) if ours_.latent else kv * 2 * v[d_h]
    step = here - r.layers * own * t * 2
    steps.append(("head-size", step))
    here -= step
    reader = configs.READERS[configs.read_model_type(ours_.config)]
    windows = reader.windows(ours_.config, v[L])
    step = sum(own * (t - storage.kept(t, w)) * 2 for w in windows if w is not None)
    steps.append(("window", step))
    here -= step
    if ours_.latent:
        steps.append(("latent", here - ours_.cache))
    else:
        assert here == ours_.cache, (ours_.checkpoint, here, ours_.cache)
    return [(k, s) for k, s in steps if s]


READ: dict[str, Callable[[Mapping], Read]] = {
    "llm-analysis-0.2.2": llm_analysis_read, "gpu-poor": gpu_poor_read, "llm-viewer": llm_viewer_read}
PARAMETERS: dict[str, Callable[[Read], Groups]] = {
    "llm-analysis-0.2.2": llm_analysis_parameters, "gpu-poor": gpu_poor_parameters, "llm-viewer": llm_viewer_parameters}
WEIGHTS: dict[str, Callable[[Read], Fraction]] = {
    "llm-analysis-0.2.2": llm_analysis_weights, "gpu-poor": gpu_poor_weights, "llm-viewer": llm_viewer_weights}
CACHE: dict[str, Callable[[Read, int], Fraction]] = {
    "llm-analysis-0.2.2": llm_analysis_cache, "gpu-poor": gpu_poor_cache, "llm-viewer": llm_viewer_cache}
PRINTED: dict[str, Callable[[Fraction | int], str]] = {
    "llm-analysis-0.2.2": llm_analysis_printed, "gpu-poor": gpu_poor_printed, "llm-viewer": llm_viewer_printed}
PEERS = tuple(READ)
# The peers that give a total for inference (llm-analysis gives weights, cache and activations apart).
TOTAL: dict[str, Callable[[Read, int], Fraction]] = {"gpu-poor": gpu_poor_total, "llm-viewer": llm_viewer_total}

# Bytes a parameter of each group, as each peer prices it: in 16 bits, and in its 4-bit setting (llm-analysis'
# w4a16e16: the layers and the last norm at weight_bits, the embedding at embedding_bits; gpu_poor's "bnb_q4": a
# quarter of the 16-bit size, its 6 % apart; LLM-Viewer's w_bit = 4: every linear layer).
_ALL = tuple(GROUP[k] for k in GROUP)
WIDTHS: dict[str, tuple[dict[str, Fraction], dict[str, Fraction]]] = {
    peer: ({g: Fraction(2) for g in _ALL}, {g: Fraction(2 if (peer, g) == ("llm-analysis-0.2.2", "embedding") else
                                                         Fraction(1, 2)) for g in _ALL})
    for peer in PEERS}
# The format of ours a peer's 4 bits stand for: bitsandbytes' NF4 for gpu_poor's "bnb_q4", else GPTQ's and AWQ's.
FORMAT = {"llm-analysis-0.2.2": "int4", "gpu-poor": "nf4", "llm-viewer": "int4"}
WEIGHTS_4BIT: dict[str, Callable[[Read], Fraction]] = {
    "llm-analysis-0.2.2": lambda r: llm_analysis_weights(r, 4, 16), "gpu-poor": lambda r: gpu_poor_weights(r, True),
    "llm-viewer": lambda r: llm_viewer_weights(r, 4)}


@dataclass(frozen=True)
class Row:
    """One peer on one model: its figure, ours, and the chain between them (bytes)."""

    peer: str
    checkpoint: str
    tokens: int
    what: str  # "weights", "cache", "total" or "weights-4bit"
    figure: Fraction | int
    ours: int
    steps: tuple[tuple[str, Fraction | int], ...]

    @property
    def difference(self) -> Fraction | int:
        return self.figure - self.ours


def row(peer: str, checkpoint: str, tokens: int, what: str) -> Row:
    o = ours(checkpoint, tokens)
    r = READ[peer](o.config)
    if what == "weights":
        figure, mine, steps = WEIGHTS[peer](r), o.weights, weight_steps(peer, o)
    elif what == "weights-4bit":
        figure, mine = WEIGHTS_4BIT[peer](r), ours(checkpoint, tokens, FORMAT[peer]).weights
        steps = weight_steps(peer, o, FORMAT[peer])
    elif what == "cache":
        figure, mine, steps = CACHE[peer](r, tokens), o.cache, cache_steps(peer, o)
    elif what == "total":
        figure, mine = TOTAL[peer](r, tokens), o.weights + o.cache
        steps = [("weights", WEIGHTS[peer](r) - o.weights), ("cache", CACHE[peer](r, tokens) - o.cache)]
        if peer == "gpu-poor":
            steps.append(("overhead", Fraction(GPU_POOR_OVERHEAD)))
        allowance = gpu_poor_activations if peer == "gpu-poor" else llm_viewer_activations
        steps.append(("activations", allowance(r, tokens)))
    else:
        raise LookupError(what)
    out = Row(peer, checkpoint, tokens, what, _exact(figure), mine, tuple((k, _exact(s)) for k, s in steps if s))
    assert sum(s for _, s in out.steps) == out.difference, out
    return out


# ---------------------------------------------------------------------------------------------
# The page's tables
# ---------------------------------------------------------------------------------------------

def _bytes(value: Fraction | int) -> str:
    return render.number(value) if isinstance(value, int) else render.decimal(value, 2)


def _signed(value: Fraction | int) -> str:
    return ("+" if value > 0 else "") + _bytes(value)


def _cell(r: Row) -> str:
    lines = [_bytes(r.figure), f"<small>printed “{html.escape(PRINTED[r.peer](r.figure))}”</small>"]
    if not r.steps:
        lines.append("<small>the same</small>")
    for key, step in r.steps:
        lines.append(f"<small>{_signed(step)} {CAUSES[key].label}</small>")
    return "<br>".join(lines)


def _ours_cell(count: int) -> str:
    return (f"{render.number(count)}<br><small>{storage.in_unit(count, storage.DECIMAL)}, "
            f"{storage.in_unit(count, storage.BINARY)}</small>")


def _model(checkpoint: str, tokens: int, what: str) -> str:
    return f"<code>{checkpoint}</code><br><small>{render.number(tokens)} tokens: {what}</small>"


def table() -> str:
    """Weights and cache in bf16: each model, then each peer."""
    from .expanders import _table

    rows = []
    for checkpoint, tokens in MODELS:
        o = ours(checkpoint, tokens)
        rows.append([_model(checkpoint, tokens, "the derivation"), _ours_cell(o.weights), _ours_cell(o.cache)])
        rows += [[sources.cite(peer), _cell(row(peer, checkpoint, tokens, "weights")),
                  _cell(row(peer, checkpoint, tokens, "cache"))] for peer in PEERS]
    caption = ("Bytes in bf16, one sequence: the weights of the config's class and its key/value cache after a "
               "forward over the tokens, as transformers holds them; under each, every calculator's figure by its own "
               "formula, the figure it prints, and the difference from ours taken apart, one cause at a time in the "
               "order listed")
    return _table(["model, calculator", "weights", "key/value cache"], rows, caption)


def four_bit() -> str:
    """The weights in 4 bits: ours in the format the peer's setting stands for."""
    from .expanders import _table

    rows = []
    for checkpoint, tokens in FOUR_BIT:
        mine = {fmt: ours(checkpoint, tokens, fmt).weights for fmt in ("int4", "nf4")}
        rows.append([_model(checkpoint, tokens, "the derivation"),
                     "<br>".join(f"<code>{fmt}</code>: {_ours_cell(count)}" for fmt, count in mine.items())])
        rows += [[f"{sources.cite(peer)}<br><small>against <code>{FORMAT[peer]}</code></small>",
                  _cell(row(peer, checkpoint, tokens, "weights-4bit"))] for peer in PEERS]
    caption = ("Weights in 4 bits: ours in GPTQ's and AWQ's <code>int4</code> and bitsandbytes' <code>nf4</code> "
               "(above), against llm-analysis' <code>w4a16e16</code>, gpu_poor's <code>bnb_q4</code> and LLM-Viewer's "
               "4-bit weights")
    return _table(["model, calculator", "weights, 4 bits"], rows, caption)


def totals() -> str:
    """The totals the peers give for inference, against our weights and cache."""
    from .expanders import _table

    rows = []
    for checkpoint, tokens in TOTALS:
        o = ours(checkpoint, tokens)
        rows.append([_model(checkpoint, tokens, "weights and cache"), _ours_cell(o.weights + o.cache)])
        rows += [[sources.cite(peer), _cell(row(peer, checkpoint, tokens, "total"))] for peer in TOTAL]
    caption = ("Totals for inference, bf16, one sequence: ours is the weights and the cache (the forward's own "
               "tensors, the framework and the allocator come on top); gpu_poor adds a flat allowance and an estimate "
               "of activations, LLM-Viewer the outputs of one layer in the prefill")
    return _table(["model, calculator", "total"], rows, caption)


def causes() -> str:
    """The causes, each once, their sizes read off the page's models."""
    sizes, latent = [], {}
    for checkpoint, tokens in MODELS:
        o = ours(checkpoint, tokens)
        v, peer_head = o.values, Fraction(o.values[D], o.config["num_attention_heads"])
        if o.latent:
            latent = {"latent": v[R_kv], "rope": v[d_r]}
            sizes.append(f"{peer_head} for <code>{checkpoint}</code>'s keys of {v[d_n] + v[d_r]} "
                         f"and values of {v[d_v]}")
        elif peer_head != v[d_h]:
            sizes.append(f"{peer_head} for <code>{checkpoint}</code>'s {v[d_h]}")
    filled = {key: c.why.format(sizes="; ".join(sizes), **latent) for key, c in CAUSES.items()}
    items = [f"<li><strong>{html.escape(c.label)}</strong>: {filled[key]}.</li>" for key, c in CAUSES.items()]
    return '<ul class="dv-causes">\n' + "\n".join(items) + "\n</ul>"


def render_shortcode(text: str) -> str:
    listed = {"table": table, "four-bit": four_bit, "totals": totals, "causes": causes}
    if text.strip() not in listed:
        raise LookupError(f"peers:{text}: no such exhibit (known: {', '.join(listed)})")
    return listed[text.strip()]()
