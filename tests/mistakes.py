"""The mistakes a new user makes in a config.json, and what transformers does with each: the survey behind
``derivations.validation`` (run it: ``python tests/mistakes.py``), and the cases ``tests/test_validation.py`` draws.

A mistake is one field of a bundled config set to a value a person plausibly writes by mistake: a dropout of 2.5,
an eps of null, a token id of NaN or "2", a context length of 2048.0, a boolean as "true", an activation that
transformers does not know. What transformers does with it (:func:`refusal`) is read from transformers itself, in
the three places a user meets a refusal: the config class (``AutoConfig.for_model(**config)``, as
``from_pretrained`` gives a config.json), building the class (on the meta device; a mixture of experts narrowed
on CPU), and one training step (``model.train()``, one forward of a few tokens). A helper for the tests (it imports
tests/reference.py, which skips without torch and transformers).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import json
import math
import warnings
from collections.abc import Mapping
from types import MappingProxyType

from reference import FEW_EXPERTS, NARROW, build, features, image, shallow, torch, transformers
from derivations import answers, configs

NAN = float("nan")
CHECKPOINTS = configs.CHECKPOINTS_DIR

# The fields a person writes as a context length.
CONTEXT = ("max_position_embeddings", "n_positions", "n_ctx", "max_sequence_length")
ACTIVATION = ("hidden_act", "hidden_activation", "activation_function", "activation", "afn")

# The values a person writes by mistake, by kind of field.
MISTAKES = {
    "dropout": (2.5, -0.1, "0.1", None),
    "eps": (None, -1e-5, "1e-5", 0),
    "token": (NAN, 2.0, -1, "2", None),
    "context": (None, 2048.0, NAN, "2048"),
    "initializer": (-0.02, None, "0.02", 1),
    "rope": (0, "10000", None),
    "activation": ("swiglu", None),
    "dtype": ("bf16", "auto", None),
    "bool": ("true", "false", 1, None),
    "int": ("8", 8.0, None),
    "float": ("0.5", None, 1),
}


def kind(field: str, value: object) -> str | None:
    """What a person takes the field for, from its name and (else) its value's type; None: not one of MISTAKES'."""
    if "drop" in field:
        return "dropout"
    if field.endswith(("_eps", "_epsilon")):
        return "eps"
    if field.endswith("_token_id"):
        return "token"
    if field in CONTEXT:
        return "context"
    if field in ("initializer_range", "initializer_factor", "init_std"):
        return "initializer"
    if field in ("rope_theta", "rotary_emb_base"):
        return "rope"
    if field in ACTIVATION:
        return "activation"
    if field in ("torch_dtype", "dtype"):
        return "dtype"
    if field in ("model_type", "architectures", "transformers_version", "_name_or_path"):
        return None
    return {bool: "bool", int: "int", float: "float"}.get(type(value))


def mistakes(config: Mapping) -> list[tuple[str, object]]:
    """Each mistake of :data:`MISTAKES` on each field of ``config``: (field, the value written by mistake)."""
    out = []
    for field, value in config.items():
        for wrong in MISTAKES.get(kind(field, value), ()):
            if not (type(wrong) is type(value) and (wrong == value or (wrong != wrong and value != value))):
                out.append((field, wrong))
    return out


def bundled(name: str) -> dict:
    with open(f"{CHECKPOINTS}/{name}.json", encoding="utf-8") as file:
        return json.load(file)


# ---------------------------------------------------------------------------------------------
# What transformers does with a config
# ---------------------------------------------------------------------------------------------

def _one_line(error: BaseException) -> str:
    cause = error.__cause__ or error
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}"[:160]


def configured(config: Mapping) -> str | None:
    """What transformers' config class refuses of ``config`` (one line), as from_pretrained builds it; None if it
    takes it. (A copy: the config class writes into the dicts it is given, rope_scaling's.)"""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            transformers.AutoConfig.for_model(**copy.deepcopy(dict(config)))
    except Exception as error:  # the strict dataclass, a validator, __post_init__: whatever it raises
        return _one_line(error)
    return None


def _inputs(model, architecture: str) -> dict:
    device = next(model.parameters()).device
    if model.main_input_name == "pixel_values":  # a model that reads images: one of the config's size
        return {"pixel_values": image(model.config, device)}
    shape = (1, 1, 3) if architecture.endswith("MultipleChoice") else (1, 3)
    ids = torch.zeros(shape, dtype=torch.long, device=device)
    eos = model.config.eos_token_id
    if isinstance(eos, int) and 0 <= eos < model.config.get_text_config().vocab_size:
        ids[..., -1] = eos  # T5's sequence classifier reads the state at the end-of-sequence token
    accepted = inspect.signature(model.forward).parameters
    if model.main_input_name == "input_features":  # speech (Whisper): one window of its config's mel features
        inputs = {"input_features": features(model.config, device)}
    else:
        inputs = {"input_ids": ids}
    if "pixel_values" in accepted:  # a pair (CLIP's): the text beside one image
        inputs["pixel_values"] = image(model.config, device)
    if "decoder_input_ids" in accepted and model.config.is_encoder_decoder:
        inputs["decoder_input_ids"] = torch.zeros((1, 3), dtype=torch.long, device=device)
    if "attention_mask" in accepted:
        inputs["attention_mask"] = torch.ones(shape, dtype=torch.long, device=device)
    if "use_cache" in accepted:
        inputs["use_cache"] = False
    return inputs


# The sizes of each tower of a pair in a probe (as narrow as NARROW's, two layers).
TOWER = {"hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2}
# The widths of the families whose fields tests/reference.py's NARROW does not name (GPT-2's, T5's, Marian's, ...).
WIDTHS = {"n_embd": 64, "n_head": 4, "n_inner": 64, "d_model": 64, "d_ff": 64, "d_kv": 16, "num_heads": 4,
          "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
          "dim": 64, "hidden_dim": 64, "n_heads": 4, "embedding_size": 32}


@functools.cache
def probe(model_type: str) -> tuple[str, dict]:
    """The config a mistake is built on: the family's smallest bundled checkpoint, cut to two layers and narrowed
    (tests/reference.py's shallow and NARROW), small enough to build on the CPU, where the weights are initialized
    as ``from_config`` initializes them (the meta device skips the checks of torch's initializers). A field that
    sets no size is refused or not whatever the sizes: this config stands for every checkpoint of the family."""
    names = [n for n in configs.bundled() if bundled(n)["model_type"] == model_type]
    name = min(names, key=lambda n: answers.count(bundled(n))[0]["total"])
    small = shallow(bundled(name))
    small |= {k: v for k, v in (NARROW | WIDTHS | FEW_EXPERTS).items() if small.get(k) is not None}
    # A pair's towers (CLIP's, SigLIP's text_config and vision_config), narrowed whatever they write: a minimal
    # sub-config takes its class's full sizes.
    small |= {k: dict(v) | TOWER for k, v in small.items() if k in ("text_config", "vision_config") and isinstance(v, dict)}
    if "kv_lora_rank" in small:
        small["num_key_value_heads"] = small["num_attention_heads"]  # latent attention: one key/value per head
        small |= {"n_group": 1, "topk_group": 1}  # DeepSeek's routing in one group (absent, V3's 8 groups of 1)
    # The vocabulary narrowed where the special tokens still index it (Marian's and Phi-3's pad at its end).
    tokens = [v for k, v in small.items() if k.endswith("_token_id") and isinstance(v, int)]
    if max(tokens, default=0) >= NARROW["vocab_size"]:
        if "vocab_size" in bundled(name):  # not a composite's whose vocabulary is its text_config's (Qwen3-VL's)
            small["vocab_size"] = bundled(name)["vocab_size"]
    elif "pad_token_id" not in small:
        small["pad_token_id"] = None  # the class's default pad (Phi-3's 32000) would be past the narrowed vocabulary
    return name, small


def built(model_type: str, architecture: str, mistake: Mapping = MappingProxyType({})) -> tuple[str | None, str | None]:
    """What building ``architecture`` refuses of the family's :func:`probe` config with ``mistake`` (fields and
    values) written over it, and what one training step of it refuses: each one line, or None."""
    config = copy.deepcopy(probe(model_type)[1] | dict(mistake))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            model = build(architecture, config, "cpu")
    except Exception as error:
        return _one_line(error), None
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            model.train()
            model(**_inputs(model, architecture))
    except Exception as error:
        return None, _one_line(error)
    return None, None


@functools.cache
def _baseline(model_type: str, architecture: str) -> tuple[str | None, str | None]:
    return built(model_type, architecture)


def refusal(config: Mapping, architecture: str, field: str | None = None) -> str | None:
    """What transformers refuses of ``config`` for ``architecture``, one line, or None: its config class (the config
    as it is), building the class, or one training step (the family's :func:`probe` config with ``config[field]``,
    the mistake, written over it; a step that fails on the probe itself is no refusal of the mistake)."""
    said = configured(config)
    if said is not None:
        return f"config: {said}"
    if field is None:
        return None
    mistake = {field: config[field]}
    build_error, step_error = built(config["model_type"], architecture, mistake)
    baseline = _baseline(config["model_type"], architecture)
    if build_error is not None and baseline[0] is None:
        return f"build: {build_error}"
    if step_error is not None and baseline == (None, None):
        return f"training step: {step_error}"
    return None


def class_defaults(model_type: str) -> dict[str, object]:
    """The fields transformers' config class for ``model_type`` declares, with their defaults (those it sets when
    the config.json leaves them out)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    found = {}
    for f in dataclasses.fields(CONFIG_MAPPING[model_type]):
        if f.default is not dataclasses.MISSING:
            found[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            found[f.name] = f.default_factory()
    return found


# ---------------------------------------------------------------------------------------------
# The survey
# ---------------------------------------------------------------------------------------------

def sets_a_size(config: Mapping, field: str) -> bool:
    """Whether ``field`` sets a size of ``config``'s model: the reader names it for a size, or another valid value
    of it (a flag turned, a number moved) changes the sizes or the layout the reader reads."""
    reader = configs.READERS[config["model_type"]]
    named = {part for f in reader.fields.values() for each in ((f,) if isinstance(f, str) else f)
             for part in each.replace("/", " ").split()}
    if field in named:
        return True
    value = config.get(field)
    others = ([not value] if isinstance(value, bool) else [value + 1, 2 * value] if isinstance(value, int) else [])
    try:
        before = (reader.read(config), reader.layout.of(config))
    except configs.ConfigError:
        return False
    for other in others:
        try:
            if (reader.read({**config, field: other}), reader.layout.of({**config, field: other})) != before:
                return True
        except configs.ConfigError:
            return True
    return False


def project(config: Mapping) -> tuple[str, object, str | None]:
    """What ``derivations count`` does: ("counts", total, its note) or ("refuses", its line, None)."""
    try:
        result, _ = answers.count(config, None)
    except configs.ConfigError as error:
        return "refuses", str(error), None
    return "counts", result["total"], configs.note(config, result["architecture"])


def added(model_type: str) -> tuple[str, list[tuple[str, object]]]:
    """The mistakes of the fields transformers' config class declares that the family's smallest checkpoint leaves
    out: that checkpoint, and each (field, value written by mistake)."""
    name = probe(model_type)[0]
    config = bundled(name)
    return name, [(field, wrong) for field, default in class_defaults(model_type).items() if field not in config
                  for field, wrong in mistakes({field: default})]


def survey(present: bool = True) -> list[dict]:
    """Every mistake of every bundled config (``present``: of the fields it gives; else of the fields its config
    class declares that its family's smallest checkpoint leaves out): what the project and transformers do."""
    rows = []
    if present:
        cases = [(name, mistakes(bundled(name))) for name in configs.bundled()]
    else:
        cases = [added(model_type) for model_type in sorted({bundled(n)["model_type"] for n in configs.bundled()})]
    for name, wrongs in cases:
        config = bundled(name)
        base = project(config)
        architecture = answers.count(config)[0]["architecture"]
        for field, wrong in wrongs:
            mistaken = {**config, field: wrong}
            ours = project(mistaken)
            # A field the config leaves out is classed at the config class's default.
            default = class_defaults(config["model_type"]).get(field)
            rows.append({"name": name, "model_type": config["model_type"], "field": field, "value": wrong,
                         "size": sets_a_size({field: default} | config, field), "ours": ours[0], "note": ours[2],
                         "same_total": ours[0] == "counts" and ours[1] == base[1],
                         "theirs": refusal(mistaken, architecture, field)})
    return rows


def report(rows: list[dict]) -> None:
    refused = [r for r in rows if r["theirs"]]
    size, other = [r for r in refused if r["size"]], [r for r in refused if not r["size"]]
    print(f"{len(rows)} mistaken configs ({len({r['name'] for r in rows})} bundled configs); transformers refuses "
          f"{len(refused)}")
    print(f"  for a field that sets a size: {len(size)}, the project refuses "
          f"{sum(r['ours'] == 'refuses' for r in size)}")
    print(f"  for a field that sets no size: {len(other)}, the project refuses "
          f"{sum(r['ours'] == 'refuses' for r in other)}, counts with a note {sum(bool(r['note']) for r in other)}, "
          f"counts silently {sum(r['ours'] == 'counts' and not r['note'] for r in other)}")
    accepted = [r for r in rows if not r["theirs"]]
    print(f"transformers takes {len(accepted)}: the project refuses {sum(r['ours'] == 'refuses' for r in accepted)} "
          f"(a size: {sum(r['ours'] == 'refuses' and r['size'] for r in accepted)}), notes "
          f"{sum(bool(r['note']) for r in accepted)}")
    print(f"counted with a total other than the config's own: "
          f"{sum(r['ours'] == 'counts' and not r['same_total'] and not r['size'] for r in rows)} "
          "(fields that set no size)")
    print("\nmismatches, one line a (model_type, field, value):")
    seen = set()
    for r in rows:
        mismatch = (r["theirs"] and r["ours"] == "counts" and not r["note"]) or (
            not r["theirs"] and (r["ours"] == "refuses" or r["note"]))
        key = (r["model_type"], r["field"], repr(r["value"]))
        if mismatch and key not in seen:
            seen.add(key)
            print(f"  {'size ' if r['size'] else 'other'} {key}: project {r['ours']}"
                  f"{' with a note' if r['note'] else ''}; transformers {r['theirs'] or 'takes it'}")


if __name__ == "__main__":
    import sys

    transformers.logging.set_verbosity_error()
    found = survey(present="--added" not in sys.argv)
    if len(sys.argv) > 1 and sys.argv[-1] != "--added":
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            json.dump(found, out, indent=0, default=lambda v: repr(v) if not isinstance(v, float) or math.isfinite(v)
                      else None)
    report(found)
