"""The weights of quantized models, derived from a config's quantization_config (derivations.quantization), against
what the libraries hold and what released checkpoints' files hold. Every expected number is measured or published:

* which modules each quantizer replaces: every module of every family's classes, as transformers builds it;
* bitsandbytes 4-bit (NF4, FP4, with and without double quantization) and 8-bit: small transformers models,
  quantized on CPU by bitsandbytes through transformers' own quantizer, their tensors' bytes;
* FP8 (transformers' FineGrainedFP8): its quantizer's modules on the meta device, DeepSeek-V3 whole;
* AWQ: transformers' own AwqQuantizer, with AutoAWQ's layers as AutoAWQ writes them (gptqmodel is not installed);
* GPTQ: optimum's selection of the blocks' linear maps and GPTQModel's buffers, as their code writes them;
* the released files of DeepSeek-V3 (FP8) and gpt-oss (MXFP4): their published bytes.
"""

from __future__ import annotations

import json
import math
import re
import sys
import types
import warnings

import pytest

import profiles
import reference  # skips this module without torch/transformers (fails under CI)
from derivations import answers, configs, memory, registry
from derivations.components import evaluate
from derivations.reading import ConfigError

torch = reference.torch
transformers = reference.transformers
nn = torch.nn
FAMILIES = {name: family for name, family in registry.families().items() if name != "gpt3"}  # gpt3: GPT-2's configs


def built(config: dict, architecture: str, device: str = "meta") -> torch.nn.Module:
    """The class on ``device``, its floating tensors in bfloat16 (the width memory keeps unquantized tensors at)."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hf = transformers.AutoConfig.for_model(**config)
            with torch.device(device):
                return getattr(transformers, architecture)(hf)
    finally:
        torch.set_default_dtype(old)


def in_bf16(function, *args, **kwargs):
    """A quantizer's replacement run as transformers runs it while loading: new tensors in the model's type."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        return function(*args, **kwargs)
    finally:
        torch.set_default_dtype(old)


def tensor_bytes(tensors) -> int:
    """Bytes of tensors, each once."""
    seen, total = set(), 0
    for t in tensors:
        if t is not None and id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total


def derived(config: dict, quantization_config: dict, architecture: str) -> int:
    return answers.memory(config | {"quantization_config": quantization_config}, architecture, 8)["weights_bytes"]


# ---------------------------------------------------------------------------------------------
# Which modules: every leaf's module is what transformers builds
# ---------------------------------------------------------------------------------------------

def _pattern(path: str) -> re.Pattern:
    """The module names a tree's path covers, "<i>" any copy's number."""
    return re.compile(re.escape(path).replace(re.escape("<i>"), r"\d+"))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_modules_of_every_family(family: str) -> None:
    # Each weight's module: an nn.Linear, a Conv1D or a mixture's stacked experts as the tree says, every nn.Linear
    # and Conv1D of the model one of the tree's, and transformers' default skips (get_keys_to_not_convert) the
    # tree's output modules.
    from transformers.pytorch_utils import Conv1D
    from transformers.quantizers.base import get_keys_to_not_convert

    module = FAMILIES[family]
    config = reference.shallow(configs.load(module.example), 2)
    if reference.mixture(config["model_type"]):
        config |= reference.FEW_EXPERTS
    chosen = module.architectures if profiles.under_ci() else [a for a in module.table_columns
                                                               if a in module.architectures] or [module.main]
    for architecture in chosen:
        resolved = registry.resolve(config, architecture)
        model = reference.build(architecture, config)
        modules = dict(model.named_modules())
        skips = set(get_keys_to_not_convert(model))
        # A head tied to the embeddings is the table's tensor (the tree counts it there, as a lookup's).
        tables = {id(m.weight) for m in modules.values() if isinstance(m, nn.Embedding)}
        # transformers' quantizers replace every nn.Linear, subclasses included (Falcon's FalconLinear).
        linear = {n for n, m in modules.items()
                  if isinstance(m, (nn.Linear, Conv1D)) and id(m.weight) not in tables}
        ours = set()
        for tensor in memory.tensors(resolved.part, config["model_type"]):
            m = tensor.module
            if m is None or m.role != "weight" or evaluate(tensor.copies, resolved.values) == 0:
                continue
            # A router's path names its parameter ("mlp.gate.weight"): its module is the path's parent.
            names = [n for n in modules if _pattern(m.path).fullmatch(n)] or \
                [n for n in modules if _pattern(m.path.rsplit(".", 1)[0]).fullmatch(n)]
            assert names, f"{architecture}: no module {m.path}"
            held = modules[names[0]]
            assert m.linear == (isinstance(held, nn.Linear) and not isinstance(held, Conv1D)), (architecture, m.path)
            assert m.conv1d == isinstance(held, Conv1D), (architecture, m.path)
            assert m.experts == (hasattr(held, "down_proj") and not hasattr(held, "weight")), (architecture, m.path)
            if m.linear or m.conv1d:
                if id(held.weight) not in tables:  # a head that is the table (XLM-R's decoder, registered first)
                    ours |= set(names)
                assert m.output == (m.path in skips), (architecture, m.path, sorted(skips))
        assert ours == linear, (architecture, ours ^ linear)


# ---------------------------------------------------------------------------------------------
# bitsandbytes: quantized on CPU by bitsandbytes, through transformers' quantizer
# ---------------------------------------------------------------------------------------------

def bnb_quantized(config: dict, architecture: str, quantization: dict) -> torch.nn.Module:
    """The model as transformers loads it with this quantization_config: its quantizer replaces the modules, and its
    conversion op quantizes each weight with bitsandbytes (on CPU), as from_pretrained does (which wants accelerate,
    not installed: the same steps, called one by one)."""
    reference.require("bitsandbytes")
    from transformers.integrations.bitsandbytes import Bnb4bitQuantize, Bnb8bitQuantize
    from transformers.quantizers.quantizer_bnb_4bit import Bnb4BitHfQuantizer
    from transformers.quantizers.quantizer_bnb_8bit import Bnb8BitHfQuantizer

    qconfig = transformers.BitsAndBytesConfig.from_dict(dict(quantization))
    torch.manual_seed(0)
    model = built(config, architecture, "cpu")
    state = {name: p.detach().clone() for name, p in model.named_parameters()}
    quantizer, op = ((Bnb4BitHfQuantizer, Bnb4bitQuantize) if qconfig.load_in_4bit else
                     (Bnb8BitHfQuantizer, Bnb8bitQuantize))
    quantizer = quantizer(qconfig, pre_quantized=False)
    quantizer._process_model_before_weight_loading(model, device_map=None)
    for name, parameter in list(model.named_parameters()):
        if parameter.device.type != "meta":
            continue
        owner, leaf = name.rsplit(".", 1)
        if leaf == "weight":
            new = op(quantizer).convert({name: [state[name]]}, model=model, full_layer_name=name)[name]
        else:
            new = nn.Parameter(state[name], requires_grad=False)
        setattr(model.get_submodule(owner), leaf, new)
    return model


def bnb_bytes(model: torch.nn.Module) -> int:
    """The parameters, and what each quantized weight's state holds beside it (absmax, code, offset, the nested
    state's absmax and code; int8's row scales)."""
    held = list(model.parameters())
    for parameter in model.parameters():
        state = getattr(parameter, "quant_state", None)
        if state is not None:
            held += [state.absmax, state.code]
            if state.nested:
                held += [state.offset, state.state2.absmax, state.state2.code]
        held.append(getattr(parameter, "SCB", None))
    return tensor_bytes(held)


NF4 = {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}
BNB = {
    "nf4": NF4,
    "fp4": {"load_in_4bit": True, "bnb_4bit_quant_type": "fp4"},
    "nf4-double": NF4 | {"bnb_4bit_use_double_quant": True},
    "fp4-double": {"load_in_4bit": True, "bnb_4bit_quant_type": "fp4", "bnb_4bit_use_double_quant": True},
    "int8": {"load_in_8bit": True},
    "nf4-bf16-storage": NF4 | {"bnb_4bit_quant_storage": "bfloat16"},
    "nf4-skip": NF4 | {"llm_int8_skip_modules": ["down_proj", "model.layers.1.self_attn"]},
}
# Small models of the families, widths that leave partial blocks (a tensor of 1,000 elements: 15 blocks of 64 and
# one of 40).
SMALL = {
    "llama": ({"model_type": "llama", "hidden_size": 40, "intermediate_size": 100, "num_attention_heads": 4,
               "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 77, "tie_word_embeddings": False},
              "LlamaForCausalLM"),
    "qwen2-tied": ({"model_type": "qwen2", "hidden_size": 48, "intermediate_size": 72, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 90, "tie_word_embeddings": True},
                   "Qwen2ForCausalLM"),
    "gpt2": ({"model_type": "gpt2", "n_embd": 40, "n_layer": 2, "n_head": 4, "vocab_size": 77, "n_positions": 32},
             "GPT2LMHeadModel"),
    "mixtral": ({"model_type": "mixtral", "hidden_size": 40, "intermediate_size": 24, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 77, "num_local_experts": 4,
                 "num_experts_per_tok": 2}, "MixtralForCausalLM"),
    "qwen2_moe": ({"model_type": "qwen2_moe", "hidden_size": 40, "intermediate_size": 48, "moe_intermediate_size": 24,
                   "shared_expert_intermediate_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2,
                   "num_hidden_layers": 2, "vocab_size": 77, "num_experts": 4, "num_experts_per_tok": 2},
                  "Qwen2MoeForCausalLM"),
    "llama-classifier": ({"model_type": "llama", "hidden_size": 40, "intermediate_size": 100,
                          "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
                          "vocab_size": 77, "num_labels": 3}, "LlamaForSequenceClassification"),
}
# Not a head tied to the table under a list of modules to skip: transformers would then replace the head's module,
# whose weight is the table's (no checkpoint is made so).
BNB_CASES = [(model, variant) for model in SMALL for variant in BNB
             if (profiles.under_ci() or model in ("llama", "gpt2") or variant in ("nf4-double", "int8"))
             and not (model in ("qwen2-tied", "gpt2") and variant == "nf4-skip")]


@pytest.mark.parametrize(("model", "variant"), BNB_CASES)
def test_bitsandbytes(model: str, variant: str) -> None:
    config, architecture = SMALL[model]
    quantization = json.loads(transformers.BitsAndBytesConfig.from_dict(dict(BNB[variant])).to_json_string())
    measured = bnb_bytes(bnb_quantized(config, architecture, quantization))
    assert derived(config, quantization, architecture) == measured


def test_bitsandbytes_leaves_stacked_experts_in_16_bits() -> None:
    # transformers 5.x holds a mixture's experts in stacked tensors, which bitsandbytes' nn.Linear replacement does
    # not reach: they stay in bfloat16.
    config, architecture = SMALL["mixtral"]
    model = bnb_quantized(config, architecture, NF4)
    assert model.model.layers[0].mlp.experts.gate_up_proj.dtype == torch.bfloat16


# ---------------------------------------------------------------------------------------------
# FP8: transformers' FineGrainedFP8 quantizer, its modules on the meta device
# ---------------------------------------------------------------------------------------------

# DeepSeek-V3's quantization_config, as README_WEIGHTS.md gives it ("FP8 Configuration") [cite: deepseek-v3-code].
DEEPSEEK_FP8 = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}


def fp8_bytes(config: dict, architecture: str, quantization: dict) -> int:
    from transformers.quantizers.quantizer_finegrained_fp8 import FineGrainedFP8HfQuantizer

    model = built(config, architecture)
    quantizer = FineGrainedFP8HfQuantizer(transformers.FineGrainedFP8Config.from_dict(dict(quantization)),
                                          pre_quantized=True)
    in_bf16(quantizer._process_model_before_weight_loading, model)
    return tensor_bytes(model.parameters())


# Widths that are not multiples of 128 (a last, partial block in each direction).
DEEPSEEK_SMALL = {"hidden_size": 200, "intermediate_size": 300, "moe_intermediate_size": 72, "q_lora_rank": 136,
                  "kv_lora_rank": 130, "num_attention_heads": 4, "num_key_value_heads": 4, "qk_nope_head_dim": 24,
                  "qk_rope_head_dim": 8, "v_head_dim": 24, "vocab_size": 300}
FP8_CASES = {
    "deepseek-v3 block": ("deepseek-v3", DEEPSEEK_SMALL, DEEPSEEK_FP8),
    "deepseek-v3 per tensor": ("deepseek-v3", DEEPSEEK_SMALL, {"quant_method": "fp8", "weight_block_size": None}),
    "deepseek-v3 blocks by default": ("deepseek-v3", DEEPSEEK_SMALL, {"quant_method": "fp8"}),
    "deepseek-v3 static, ue8m0": ("deepseek-v3", DEEPSEEK_SMALL, DEEPSEEK_FP8 | {"activation_scheme": "static",
                                                                               "scale_fmt": "ue8m0"}),
    "qwen3-moe block 64": ("qwen3-30b-a3b", {"hidden_size": 96, "moe_intermediate_size": 40, "head_dim": 16,
                                             "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100},
                           {"quant_method": "fp8", "weight_block_size": [64, 32]}),
    "llama skipping": ("llama-3-8b", {"hidden_size": 160, "intermediate_size": 300, "num_attention_heads": 5,
                                      "num_key_value_heads": 1, "vocab_size": 100},
                       DEEPSEEK_FP8 | {"modules_to_not_convert": ["model.layers.0.mlp", "o_proj"]}),
}


@pytest.mark.parametrize("case", sorted(FP8_CASES))
def test_fp8(case: str) -> None:
    name, sizes, quantization = FP8_CASES[case]
    config = reference.shallow(dict(configs.load(name)), 3) | sizes
    if reference.mixture(config["model_type"]):
        config |= reference.FEW_EXPERTS
    architecture = config["architectures"][0]
    assert derived(config, quantization, architecture) == fp8_bytes(config, architecture, quantization)


def test_fp8_deepseek_v3_whole() -> None:
    # The whole model, 61 layers of 256 experts, as transformers holds it in FP8 (on the meta device).
    config = dict(configs.load("deepseek-v3"))
    measured = fp8_bytes(config, "DeepseekV3ForCausalLM", DEEPSEEK_FP8)
    assert derived(config, DEEPSEEK_FP8, "DeepseekV3ForCausalLM") == measured


def test_deepseek_v3_released_files() -> None:
    # The released files' tensors: 688,574,839,360 bytes, as simpx/model-inspect's listing of their safetensors
    # headers sums them [cite: model-inspect]. They hold the main model and the multi-token-prediction module, whose
    # layer 61 is one more expert layer (in FP8 with its scales, as the others), and beside it, in BF16, its two
    # RMSNorms (enorm, hnorm), its projection eh_proj (2D to D), its copies of the embeddings and of the head and
    # its final norm; and, in F32, every expert layer's router correction bias, the MTP layer's included (X each).
    config = dict(configs.load("deepseek-v3"))
    D, V, X = config["hidden_size"], config["vocab_size"], config["n_routed_experts"]
    expert_layers = config["num_hidden_layers"] - config["first_k_dense_replace"] + 1
    with_mtp_layer = derived(config | {"num_hidden_layers": config["num_hidden_layers"] + 1}, DEEPSEEK_FP8,
                             "DeepseekV3ForCausalLM")
    mtp_rest = 2 * (2 * D + 2 * D * D + V * D + D + D * V)
    assert with_mtp_layer + mtp_rest + 4 * expert_layers * X == 688_574_839_360


def test_fbgemm_fp8(monkeypatch) -> None:
    # transformers' FbgemmFp8 quantizer, its modules on the meta device. Its replacement wants fbgemm's kernel and
    # accelerate's init_empty_weights, neither installed: the kernel is not called here, and the meta device is
    # what init_empty_weights gives.
    from transformers.integrations import fbgemm_fp8
    from transformers.quantizers.quantizer_fbgemm_fp8 import FbgemmFp8HfQuantizer

    monkeypatch.setattr(fbgemm_fp8, "get_quantize_fp8_per_row", lambda: None)
    monkeypatch.setattr(fbgemm_fp8, "init_empty_weights", lambda include_buffers=True: torch.device("meta"),
                        raising=False)
    config, architecture = SMALL["llama"]
    quantization = {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0, "modules_to_not_convert": None}
    model = built(config, architecture)
    quantizer = FbgemmFp8HfQuantizer(transformers.FbgemmFp8Config.from_dict(dict(quantization)), pre_quantized=True)
    with torch.device("meta"):
        in_bf16(quantizer._process_model_before_weight_loading, model)
    layers = [m for m in model.modules() if isinstance(m, fbgemm_fp8.FbgemmFp8Linear)]
    assert layers
    measured = tensor_bytes([*model.parameters(), *(b for m in layers for b in m.buffers())])
    assert derived(config, quantization, architecture) == measured


# ---------------------------------------------------------------------------------------------
# MXFP4: gpt-oss's released files
# ---------------------------------------------------------------------------------------------

# openai/gpt-oss-20b's config.json: its quantization_config [cite: hub-openai-gpt-oss].
GPT_OSS_MXFP4 = {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                            "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"}


def test_gpt_oss_released_files() -> None:
    # The sum of its tensors' bytes that openai/gpt-oss-20b's model.safetensors.index.json declares,
    # "total_size": 13761264768 [cite: hub-openai-gpt-oss]: the experts' blocks and scales, the rest in BF16.
    config = dict(configs.load("gpt-oss-20b"))
    assert derived(config, GPT_OSS_MXFP4, "GptOssForCausalLM") == 13_761_264_768


# ---------------------------------------------------------------------------------------------
# AWQ: transformers' AwqQuantizer, with AutoAWQ's layers
# ---------------------------------------------------------------------------------------------

class WQLinearGEMM(nn.Module):
    """AutoAWQ's WQLinear_GEMM.__init__, its buffers as it registers them (awq/modules/linear/gemm.py)
    [cite: autoawq-code]."""

    def __init__(self, w_bit, group_size, in_features, out_features, bias, dev):
        super().__init__()
        self.w_bit, self.in_features, self.out_features = w_bit, in_features, out_features
        self.group_size = group_size if group_size != -1 else in_features
        assert self.in_features % self.group_size == 0
        assert out_features % (32 // self.w_bit) == 0
        self.register_buffer("qweight", torch.zeros((in_features, out_features // (32 // self.w_bit)),
                                                    dtype=torch.int32, device=dev))
        self.register_buffer("qzeros", torch.zeros((in_features // self.group_size,
                                                    out_features // (32 // self.w_bit)), dtype=torch.int32, device=dev))
        self.register_buffer("scales", torch.zeros((in_features // self.group_size, out_features),
                                                   dtype=torch.float16, device=dev))
        if bias:
            self.register_buffer("bias", torch.zeros((out_features), dtype=torch.float16, device=dev))
        else:
            self.bias = None


def make_divisible(c, divisor):
    return (c + divisor - 1) // divisor


def calculate_zeros_width(in_features, group_size=128, pack_num=8):
    """AutoAWQ's awq/modules/linear/gemv.py, as written there [cite: autoawq-code]."""
    if group_size >= 128:
        size_multiplier = 1
    elif group_size == 64:
        size_multiplier = 2
    elif group_size == 32:
        size_multiplier = 4
    else:
        raise NotImplementedError
    base_width = make_divisible(in_features // group_size, pack_num)
    base_width = make_divisible(base_width, size_multiplier) * size_multiplier
    return base_width


class WQLinearGEMV(nn.Module):
    """AutoAWQ's WQLinear_GEMV.__init__, its buffers as it registers them (awq/modules/linear/gemv.py)."""

    def __init__(self, w_bit, group_size, in_features, out_features, bias, dev):
        super().__init__()
        self.group_size = group_size if group_size != -1 else in_features
        assert in_features % self.group_size == 0
        assert out_features % (32 // w_bit) == 0
        pack_num = 32 // w_bit
        self.register_buffer("qweight", torch.zeros((out_features, in_features // pack_num), dtype=torch.int32,
                                                    device=dev))
        self.register_buffer("qzeros", torch.zeros((out_features, calculate_zeros_width(in_features, self.group_size)),
                                                   dtype=torch.int32, device=dev))
        self.register_buffer("scales", torch.zeros(
            (out_features, calculate_zeros_width(in_features, self.group_size) * pack_num), dtype=torch.float16,
            device=dev))
        if bias:
            self.register_buffer("bias", torch.zeros((out_features), dtype=torch.float16, device=dev))
        else:
            self.bias = None


class ScaledActivation(nn.Module):
    """AutoAWQ's awq/modules/act.py (GPTQModel's is the same), as written there."""

    def __init__(self, module, scales):
        super().__init__()
        self.act = module
        self.scales = nn.Parameter(scales.data)


@pytest.fixture
def awq_layers(monkeypatch):
    """transformers' AWQ integration imports its layers from gptqmodel, not installed: AutoAWQ's, under its names."""
    chosen = {}

    def select(**kwargs):
        layer = WQLinearGEMV if str(kwargs.get("format", "")).lower().endswith("gemv") else WQLinearGEMM

        def make(bits, sym, desc_act, group_size, in_features, out_features, bias, dev, register_buffers):
            return layer(bits, group_size, in_features, out_features, bias, dev)
        chosen["layer"] = layer
        return make

    names = ("gptqmodel", "gptqmodel.quantization", "gptqmodel.utils", "gptqmodel.utils.importer",
             "gptqmodel.quantization.awq", "gptqmodel.quantization.awq.modules",
             "gptqmodel.quantization.awq.modules.act")
    stubs = {name: types.ModuleType(name) for name in names}
    stubs["gptqmodel.quantization"].METHOD = types.SimpleNamespace(AWQ="awq")
    stubs["gptqmodel.utils.importer"].hf_select_quant_linear_v2 = select
    stubs["gptqmodel.quantization.awq.modules.act"].ScaledActivation = ScaledActivation
    for name, stub in stubs.items():
        monkeypatch.setitem(sys.modules, name, stub)
    return chosen


def awq_bytes(config: dict, architecture: str, quantization: dict) -> int:
    from transformers.quantizers.quantizer_awq import AwqQuantizer

    model = built(config, architecture)
    quantizer = AwqQuantizer(transformers.AwqConfig.from_dict(dict(quantization)), pre_quantized=True)
    with torch.device("meta"):
        in_bf16(quantizer._process_model_before_weight_loading, model)
    layers = [m for m in model.modules() if isinstance(m, (WQLinearGEMM, WQLinearGEMV))]
    assert layers
    return tensor_bytes([*model.parameters(), *(b for m in layers for b in m.buffers())])


AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True,
       "modules_to_not_convert": None}
AWQ_CASES = {
    "llama": ({"model_type": "llama", "hidden_size": 256, "intermediate_size": 640, "num_attention_heads": 4,
               "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100}, "LlamaForCausalLM", AWQ),
    "qwen2 tied, groups of 64, skipping": (
        {"model_type": "qwen2", "hidden_size": 192, "intermediate_size": 448, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": True},
        "Qwen2ForCausalLM", AWQ | {"group_size": 64, "modules_to_not_convert": ["model.layers.1.mlp.down_proj"]}),
    "gpt_neox, its scaled activation": (
        {"model_type": "gpt_neox", "hidden_size": 256, "intermediate_size": 1024, "num_attention_heads": 4,
         "num_hidden_layers": 2, "vocab_size": 100}, "GPTNeoXForCausalLM", AWQ),
    "llama, GEMV": ({"model_type": "llama", "hidden_size": 320, "intermediate_size": 704, "num_attention_heads": 4,
                     "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100}, "LlamaForCausalLM",
                    AWQ | {"version": "gemv", "group_size": 64}),
}


@pytest.mark.parametrize("case", sorted(AWQ_CASES))
def test_awq(case: str, awq_layers) -> None:
    config, architecture, quantization = AWQ_CASES[case]
    assert derived(config, quantization, architecture) == awq_bytes(config, architecture, quantization)


def test_awq_refuses_what_autoawq_cannot_pack(awq_layers) -> None:
    # 100 outputs are not whole words of 8 four-bit values: AutoAWQ's layer asserts, the derivation refuses.
    config = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 100, "num_attention_heads": 4,
              "num_key_value_heads": 2, "num_hidden_layers": 1, "vocab_size": 100}
    with pytest.raises(AssertionError):
        awq_bytes(config, "LlamaForCausalLM", AWQ)
    with pytest.raises(ConfigError, match="cannot pack"):
        derived(config, AWQ, "LlamaForCausalLM")


# ---------------------------------------------------------------------------------------------
# GPTQ: optimum's selection, GPTQModel's buffers
# ---------------------------------------------------------------------------------------------

# optimum/gptq/constants.py, BLOCK_PATTERNS [cite: optimum-code].
BLOCK_PATTERNS = ["transformer.h", "model.decoder.layers", "gpt_neox.layers", "model.layers",
                  "model.language_model.layers", "h", "decoder.layers", "layers"]


def gptq_layers(model: torch.nn.Module, quantization: dict) -> dict:
    """optimum's GPTQQuantizer.convert_model, the modules it replaces: get_block_name_with_pattern, then get_layers
    (exactly nn.Linear, or a Conv1D) under that prefix, then modules_in_block_to_quantize (optimum/gptq/quantizer.py,
    utils.py)."""
    from transformers.pytorch_utils import Conv1D

    names = [n for n, _ in model.named_modules()]
    block = quantization.get("block_name_to_quantize") or next(p for p in BLOCK_PATTERNS
                                                               if any(n.startswith(p) for n in names))
    layers = {n: m for n, m in model.named_modules()
              if (type(m) is nn.Linear or isinstance(m, Conv1D)) and n.startswith(block)}
    inside = quantization.get("modules_in_block_to_quantize")
    if inside is not None:
        keep = sum(inside, [])
        layers = {n: m for n, m in layers.items() if any(n.endswith(k) for k in keep)}
    return layers


def gptq_buffers(bits: int, group_size: int, in_features: int, out_features: int, bias: bool) -> list:
    """GPTQModel's _register_gptq_buffers (gptqmodel/nn_modules/qlinear/__init__.py), its tensors as it registers
    them (pack_dtype int32: 32 bits) [cite: gptqmodel-code]."""
    t, pack_dtype_bits = torch, 32
    group_size = group_size if group_size != -1 else in_features
    with torch.device("meta"):
        return [t.zeros((math.ceil(in_features * bits / pack_dtype_bits), out_features), dtype=t.int32),
                t.zeros((math.ceil(in_features / group_size), math.ceil(out_features * bits / pack_dtype_bits)),
                        dtype=t.int32),
                t.zeros((math.ceil(in_features / group_size), out_features), dtype=t.float16),
                t.zeros(in_features, dtype=t.int32)] + ([t.zeros(out_features, dtype=t.float16)] if bias else [])


def gptq_bytes(model: torch.nn.Module, quantization: dict, extra: dict | None = None) -> int:
    """The model with optimum's chosen layers replaced by GPTQModel's (``extra``: more layers, name to (in, out,
    bias), that the checkpoint stores as layers of their own)."""
    from transformers.pytorch_utils import Conv1D

    layers = gptq_layers(model, quantization)
    replaced = {}
    for name, m in layers.items():
        n_in, n_out = (m.weight.shape if isinstance(m, Conv1D) else (m.in_features, m.out_features))
        replaced[name] = (n_in, n_out, m.bias is not None)
    replaced |= extra or {}
    kept = [p for n, p in model.named_parameters() if n.rsplit(".", 1)[0] not in layers]
    buffers = [b for n_in, n_out, bias in replaced.values()
               for b in gptq_buffers(quantization["bits"], quantization["group_size"], n_in, n_out, bias)]
    return tensor_bytes(kept) + tensor_bytes(buffers)


GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
GPTQ_CASES = {
    "llama, act order": ({"model_type": "llama", "hidden_size": 256, "intermediate_size": 600,
                          "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
                          "vocab_size": 100}, "LlamaForCausalLM", GPTQ | {"desc_act": True}),
    "gpt2, 8 bits, one group a row": ({"model_type": "gpt2", "n_embd": 96, "n_layer": 2, "n_head": 4,
                                       "vocab_size": 100, "n_positions": 32}, "GPT2LMHeadModel",
                                      GPTQ | {"bits": 8, "group_size": -1}),
    "qwen2 tied, 3 bits, groups of 32, some modules": (
        {"model_type": "qwen2", "hidden_size": 200, "intermediate_size": 328, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": True},
        "Qwen2ForCausalLM", GPTQ | {"bits": 3, "group_size": 32,
                                    "modules_in_block_to_quantize": [["self_attn.q_proj", "self_attn.k_proj"],
                                                                     ["mlp.down_proj"]]}),
}


@pytest.mark.parametrize("case", sorted(GPTQ_CASES))
def test_gptq(case: str) -> None:
    config, architecture, quantization = GPTQ_CASES[case]
    assert derived(config, quantization, architecture) == gptq_bytes(built(config, architecture), quantization)


def test_gptq_mixture_as_checkpoints_store_it() -> None:
    # A mixture's GPTQ checkpoint stores every expert's w1, w3 and w2 as layers of their own (AutoGPTQ's
    # auto_gptq/modeling/mixtral.py, inside_layer_modules [cite: autogptq-code]), not the router: transformers' stacked
    # experts, taken apart expert by expert, each map its own GPTQModel layer.
    config = {"model_type": "mixtral", "hidden_size": 256, "intermediate_size": 96, "num_attention_heads": 4,
              "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, "num_local_experts": 4,
              "num_experts_per_tok": 2}
    model = built(config, "MixtralForCausalLM")
    experts = {}
    for name, m in model.named_modules():
        if name.endswith(".experts"):
            count, two_f, d = m.gate_up_proj.shape
            for j in range(count):
                experts |= {f"{name}.{j}.w1": (d, two_f // 2, False), f"{name}.{j}.w3": (d, two_f // 2, False),
                            f"{name}.{j}.w2": (two_f // 2, d, False)}
    stacked = sum(p.numel() * p.element_size() for n, p in model.named_parameters() if ".experts." in n)
    assert derived(config, GPTQ, "MixtralForCausalLM") == gptq_bytes(model, GPTQ, experts) - stacked
