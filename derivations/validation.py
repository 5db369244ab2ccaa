"""What transformers refuses in the fields of a config that set no size: said in one line, not refused.

A dropout of 2.5, an eps of null or a token id of NaN changes no tensor's size: the command answers such a config
as it answers the same config without the mistake, and adds one line on stderr (:func:`note`) that names the field
and what transformers requires of it. The fields that set a size are the readers' (:mod:`derivations.reading`),
which refuse what transformers refuses.

transformers 5.23.0 refuses such a field in three places, each stated once here:

- its config class, a strict dataclass: huggingface_hub's ``@strict`` (huggingface_hub/dataclasses.py,
  ``type_validator``) checks every field against its annotation when it is set; ``bool`` is no ``int`` there,
  and ``int`` no ``float`` (:class:`Field`'s ``annotation``, written as the config class writes it). A field
  validator bounds some (transformers/utils/type_validators.py, ``interval``: ``within``);
- building the model: an activation is looked up by name (transformers/activations.py, ``ACT2FN``: ``among``), a
  dropout module refuses a probability outside 0 to 1 (torch/nn/modules/dropout.py, ``_DropoutNd.__init__``), and
  the weights' initialization a negative standard deviation (torch's ``normal_``);
- running it: a training step's functional dropout refuses the same probabilities (torch/nn/functional.py,
  ``dropout``), and a few fields that the annotation lets be null cannot be (a window the mask needs, a group
  count the router divides by).

Which fields a config class declares, and how, is the family's: ``derivations/readers/<model_type>.py`` declares
them (``Reader.checks``), and a family like another says so (Mistral's are LLaMA's and the window). The fields of
every config class, ``PreTrainedConfig``'s own, are :data:`BASE`. What is declared is held to transformers itself
by ``tests/test_validation.py``, on mistakes of every bundled config (``tests/mistakes.py``, also a survey script).
Plain Python, like the readers: the command line answers without SymPy, and without transformers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from .reading import ConfigError, num_labels, shown

# huggingface_hub/dataclasses.py, _validate_simple_type: isinstance against the annotated type, and a bool refused
# where an int is expected (a bool is an int to Python); _validate_list checks each item; _validate_union takes
# the value if one member takes it.
_TYPES: dict[str, tuple[str, Callable[[object], bool]]] = {
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    # 1e-5 and 1.0 are floats in JSON, 1 is not: the annotation float refuses it.
    "float": ("a float (1.0, not 1)", lambda v: isinstance(v, float)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "str": ("a string", lambda v: isinstance(v, str)),
    "None": ("null", lambda v: v is None),
    "list[int]": ("a list of integers",
                  lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)),
    "list[str]": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
    "dict": ("an object", lambda v: isinstance(v, dict)),
    "object": ("anything", lambda v: True),  # a field checked by its value alone (a dtype's name)
    "some": ("anything but null", lambda v: v is not None),
}

# The activations transformers builds by name (transformers/activations.py, ACT2CLS, whose keys ACT2FN looks up):
# any other name fails as the model is built (KeyError).
ACTIVATIONS = frozenset({
    "gelu", "gelu_10", "gelu_accurate", "gelu_fast", "gelu_new", "gelu_python", "gelu_python_tanh",
    "gelu_pytorch_tanh", "hardswish", "laplace", "leaky_relu", "linear", "mish", "prelu", "quick_gelu", "relu",
    "relu2", "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh", "xielu"})

# torch's dtypes by name (every attribute of the torch module that is a torch.dtype, torch 2.13.0): a config's dtype
# (or torch_dtype) names one, and PreTrainedConfig.__post_init__ takes getattr(torch, name); another name fails.
DTYPES = frozenset({
    "bfloat16", "bit", "bits16", "bits1x8", "bits2x4", "bits4x2", "bits8", "bool", "cdouble", "cfloat", "chalf",
    "complex128", "complex32", "complex64", "double", "float", "float16", "float32", "float4_e2m1fn_x2", "float64",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "half", "int", "int1",
    "int16", "int2", "int3", "int32", "int4", "int5", "int6", "int64", "int7", "int8", "long", "qint32", "qint8",
    "quint2x4", "quint4x2", "quint8", "short", "uint1", "uint16", "uint2", "uint3", "uint32", "uint4", "uint5",
    "uint6", "uint64", "uint7", "uint8"})


class Field(NamedTuple):
    """What transformers requires of one field that sets no size, when the config gives it (an absent field takes
    the config class's default, which it accepts)."""

    # The field's annotation, as the config class writes it ("float | int | None"): the members of _TYPES.
    annotation: str
    # Bounds on a number (low, high), and what the number is ("a probability"); or the names a string must be one
    # of (ACTIVATIONS), and what the requirement says ("must name an activation it knows").
    within: tuple[float, float] | None = None
    among: frozenset[str] | None = None
    what: str = ""
    # Only the classes whose name ends with one of these refuse the value (a head's dropout: its classes hold the
    # dropout module); empty: every class.
    classes: tuple[str, ...] = ()

    def requires(self, value: object, architecture: str | None) -> str | None:
        """What transformers requires of the field, when ``value`` is not that ("must be a float (1.0, not 1)");
        None when it takes ``value``."""
        members = [m.strip() for m in self.annotation.split("|")]
        assert all(m in _TYPES for m in members), self.annotation
        if not any(_TYPES[m][1](value) for m in members):
            return f"must be {_said(members)}"
        if self.classes and not (architecture or "").endswith(self.classes):
            return None
        if self.within is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            low, high = self.within
            # As torch's dropout: `if p < 0.0 or p > 1.0: raise ValueError` (NaN passes, as there).
            if value < low or value > high:
                bounds = f"at least {_number(low)}" if high == math.inf else f"{_number(low)} to {_number(high)}"
                return f"must be {self.what}, {bounds}"
        if self.among is not None and isinstance(value, str) and value not in self.among:
            return self.what
        return None


def _said(members: list[str]) -> str:
    if "int" in members and "float" in members:  # float | int: any number (a bool too, where it is one)
        members = ["number" if m == "int" else m for m in members if m not in ("float", "bool")]
    return " or ".join("a number" if m == "number" else _TYPES[m][0] for m in members)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# ---------------------------------------------------------------------------------------------
# The kinds of field that families declare
# ---------------------------------------------------------------------------------------------

def dropout(annotation: str = "float | int", *classes: str) -> Field:
    """A dropout probability: torch refuses one outside 0 to 1 (torch/nn/modules/dropout.py, _DropoutNd.__init__,
    as the model is built; torch/nn/functional.py, dropout, in a training step). ``classes``: the head whose
    classes hold it (``"ForQuestionAnswering"``), where only they do."""
    return Field(annotation, within=(0.0, 1.0), what="a probability", classes=classes)


def activation(annotation: str = "str", names: frozenset[str] = ACTIVATIONS,
               what: str = "must name an activation it knows") -> Field:
    """An activation by name: one transformers knows (ACT2FN), or the model is not built."""
    return Field(annotation, among=names, what=what)


def deviation(annotation: str = "float") -> Field:
    """A standard deviation the weights are drawn with (initializer_range, T5's initializer_factor, Marian's
    init_std): torch refuses a negative one (normal_: "normal expects std >= 0.0") as ``from_config`` initializes the
    weights."""
    return Field(annotation, within=(0.0, math.inf), what="a standard deviation")


def interval(annotation: str, low: float, high: float, who: str) -> Field:
    """A number within [low, high], as transformers' ``interval`` validator holds it
    (transformers/utils/type_validators.py)."""
    return Field(annotation, within=(low, high), what=f"within {who}'s bounds")


def fields(*inherited: Mapping[str, Field], **declared: str | Field) -> Mapping[str, Field]:
    """A config class's fields that set no size, by name: an annotation as the class writes it, or a
    :class:`Field`; what a reader declares as its ``checks``. ``inherited``: another class's, which ``declared``
    adds to or overrides (as a config class that subclasses another, or copies it, does)."""
    merged: dict[str, Field] = {}
    for each in inherited:
        merged.update(each)
    return MappingProxyType(merged | {name: spec if isinstance(spec, Field) else Field(spec)
                                      for name, spec in declared.items()})


# The rotary base, which the rotary embedding raises to a power as the model is built (rope_theta ** (i / d), in
# every _compute_default_rope_parameters): null or a string fails there; every config class with
# rope_parameters takes it from rope_theta (PreTrainedConfig.convert_rope_params_to_dict).
ROPE_THETA = Field("int | float | bool")

# PreTrainedConfig's chunk_size_feed_forward (unchecked there, see BASE), where a family's feed-forward is chunked
# (BERT's, ALBERT's, DistilBERT's, RoBERTa's: pytorch_utils.py, apply_chunking_to_forward, which compares and
# divides by it).
CHUNK = Field("int")
# The special tokens as nearly every config class annotates them (configuration_llama.py, configuration_bert.py, ...):
# a family whose class does, declares them with **TOKENS. (pad_token_id, which sizes no tensor but indexes the word
# embeddings, is the readers': reading.padding_index.)
TOKENS = fields(bos_token_id="int | None", eos_token_id="int | list[int] | None")
# The rotary embedding's fields, in every config class with rope_parameters.
ROTARY = fields(rope_parameters="dict | None", rope_theta=ROPE_THETA)

# PreTrainedConfig's own fields (transformers/configuration_utils.py) go unchecked by the config class: that module's
# annotations are strings (from __future__ import annotations), which huggingface_hub's type_validator skips, so a
# field is checked only where a config class declares it again (T5's and Marian's is_encoder_decoder). Its
# __post_init__ looks up a dtype given by name (getattr(torch, self.dtype), where it is a string), and refuses a
# single-label classification of one label; every model's forward compares output_hidden_states with numbers (a
# string fails there).
BASE = fields(
    torch_dtype=Field("object", among=DTYPES, what="must name a torch dtype"),
    dtype=Field("object", among=DTYPES, what="must name a torch dtype"),
    output_hidden_states="bool | int | None")


class ConfigWarning(UserWarning):
    """The Python API's warning for a config that transformers would refuse in a field that sets no size (a dropout
    of 2.5, an eps of null): the answer stands, and the warning's message is the command line's note. To refuse
    such a config instead: ``warnings.simplefilter("error", ConfigWarning)``."""


class Refusal(NamedTuple):
    """A field transformers would refuse: its name, its value, and what it must be."""

    field: str
    value: object
    requires: str


def refusals(config: Mapping, checks: Mapping[str, Field], architecture: str | None = None) -> list[Refusal]:
    """What transformers would refuse of ``config``'s fields that set no size, in the config's order: the fields of
    :data:`BASE` and of ``checks`` (a reader's), for the class ``architecture`` (None: any class)."""
    declared = {**BASE, **checks}
    found = []
    for field, value in config.items():
        spec = declared.get(field)
        requires = spec.requires(value, architecture) if spec is not None else None
        if field == "problem_type" and value == "single_label_classification" and _labels(config) == 1:
            # PreTrainedConfig.__post_init__: one label is a regression, not a single-label classification.
            requires = "regression, with one label"
        if requires is not None:
            found.append(Refusal(field, value, requires))
    return found


def _labels(config: Mapping) -> int | None:
    try:
        return num_labels(config)
    except ConfigError:  # the reader refuses it
        return None


def note(config: Mapping, checks: Mapping[str, Field], architecture: str | None = None) -> str | None:
    """The one line the command adds on stderr for what transformers would refuse (:func:`refusals`): the first
    field, its value and what it must be, and the others' names (or their number, past :data:`WIDEST` columns);
    None when it would refuse none.

    Examples:
        >>> from derivations import configs
        >>> configs.note({"model_type": "gpt2", "attn_pdrop": 2.5})
        'note: transformers refuses attn_pdrop 2.5 (must be a probability, 0 to 1); answered anyway'
        >>> configs.note({"model_type": "llama", "use_cache": "true", "eos_token_id": 2.0})
        'note: transformers refuses use_cache "true" (must be true or false); 1 more field; answered anyway'
    """
    found = refusals(config, checks, architecture)
    if not found:
        return None
    first, others = found[0], [r.field for r in found[1:]]
    line = f"note: transformers refuses {first.field} {shown(first.value)} ({first.requires})"
    end = "; answered anyway"
    # The others by name, else their number, whichever fits first.
    tries = [f"; also {', '.join(others)}", f"; {len(others)} more field{'s' if len(others) > 1 else ''}",
             f"; {len(others)} more"] if others else [""]
    return next((line + also + end for also in tries if len(line + also + end) <= WIDEST), line + tries[-1] + end)


# The command's text fits 100 columns (derivations.answers.COLUMNS, which this floor does not import).
WIDEST = 100
