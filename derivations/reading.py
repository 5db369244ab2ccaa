"""Reading config.json fields as transformers reads them: the pieces every family's reader uses.

Plain Python (no SymPy), so that the command line answers without importing it. Anything that
transformers would reject, or that makes no model, is a :class:`ConfigError` with a one-line message.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

# Tensor sizes are int64 in PyTorch; anything larger describes no model.
LARGEST = 2**63 - 1


class ConfigError(ValueError):
    """A config that describes no model, or a question it cannot answer (no such architecture, a length out
    of range): the message is one line, for a person to read, and the command line prints it after `error:`.

    Examples:
        >>> import derivations
        >>> from derivations.configs import ConfigError
        >>> try:
        ...     derivations.count({"model_type": "gpt2", "n_embd": -1})
        ... except ConfigError as error:
        ...     print(error)
        n_embd must be positive, got -1
    """


def json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", float: "a number",
             int: "an integer", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def shown(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else json_type(value)


# ---------------------------------------------------------------------------------------------
# Reading fields
# ---------------------------------------------------------------------------------------------

def size(config: Mapping, field: str, defaults: Mapping[str, int], minimum: int = 1) -> int:
    """An integer field of at least ``minimum``, or the transformers default when the field is absent."""
    value = config.get(field, defaults.get(field))
    if value is None:
        raise ConfigError(f"{field} is missing")
    # bool is an int in Python, and 12.0 is not an integer in a config: both are mistakes.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field} must be an integer, got {shown(value)}")
    if value < minimum:
        raise ConfigError(f"{field} must be {'positive' if minimum == 1 else f'at least {minimum}'}, got {value}")
    if value > LARGEST:
        raise ConfigError(f"{field} is too large for a tensor size ({len(str(value))} digits)")
    return value


class Fields(NamedTuple):
    """A config class's integer fields: transformers' defaults, and the names its ``attribute_map``
    maps onto them (GPT2Config reads ``hidden_size`` as ``n_embd``)."""

    defaults: Mapping[str, int]
    aliases: Mapping[str, str] = MappingProxyType({})

    def size(self, config: Mapping, name: str, minimum: int = 1) -> int:
        """The field, read under the name the config gives it: an alias, when present, wins (as in
        transformers), and errors name it."""
        return size(config, self.written(config, name), self.defaults, minimum)

    def written(self, config: Mapping, name: str) -> str:
        """The name the config gives the field: its alias when it uses one."""
        alias = self.aliases.get(name)
        return alias if alias in config else name


def flag(config: Mapping, field: str, default: bool = False) -> bool:
    value = config.get(field, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{field} must be true or false, got {shown(value)}")
    return value


def num_labels(config: Mapping) -> int:
    """As transformers: num_labels if given, else the distinct integer keys of id2label, else 2. Zero
    is allowed here (transformers builds it); a class with a classifier rejects it in :func:`select`."""
    if "num_labels" in config:
        if config["num_labels"] is None:  # transformers fails on it too
            raise ConfigError("num_labels must be an integer, got null")
        return size(config, "num_labels", {}, minimum=0)
    labels = config.get("id2label")
    if labels is None:
        return 2
    if not isinstance(labels, dict):
        raise ConfigError(f"id2label must be an object, got {json_type(labels)}")
    try:
        # transformers turns the keys into integers: "0" and "00" are one label.
        return len({int(key) for key in labels})
    except ValueError:
        raise ConfigError("id2label keys must be integers") from None


def padding_index(config: Mapping, vocabulary: int, default: int | None, field: str = "vocab_size") -> None:
    """pad_token_id must index the word embeddings (nn.Embedding accepts -V to V - 1), or be null;
    ``field`` names the config field that sized the table."""
    value = config.get("pad_token_id", default)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"pad_token_id must be an integer or null, got {shown(value)}")
    if not -vocabulary <= value < vocabulary:
        raise ConfigError(f"pad_token_id ({value}) is outside the vocabulary ({field} {vocabulary})")


# ---------------------------------------------------------------------------------------------
# Layouts: what in a config changes which tensors exist
# ---------------------------------------------------------------------------------------------

class Switch(NamedTuple):
    """One way a config changes which tensors a family's classes hold: a flag (``values`` False and
    True), or a choice among names ("" the plain one). Its ``name`` is both the word it adds to a layout
    key and the keyword the family module's ``architectures()`` takes for it."""

    name: str
    read: Callable[[Mapping], bool | str]
    values: tuple = (False, True)


def switch(name: str, field: str, default: bool = False, *, on: bool = True) -> Switch:
    """A flag read from one boolean field: set when the field reads ``on`` (``untied``: set when
    tie_word_embeddings is false)."""
    return Switch(name, lambda config: flag(config, field, default) is on)


class Layout(NamedTuple):
    """A family's switches, declared once: the reader reads a config's layout with :meth:`of`, and the
    family module lays out every class in every layout with :meth:`variants`. A layout's key is the
    names of the flags that are set, in the order declared, then the names chosen: "" is the plain
    layout, ``cross_attention+untied`` one with two flags set."""

    switches: tuple[Switch, ...] = ()

    def key(self, **settings: bool | str) -> str:
        assert set(settings) == {s.name for s in self.switches}, (sorted(settings), self.switches)
        flags = [s.name for s in self.switches if s.values == (False, True) and settings[s.name]]
        chosen = [settings[s.name] for s in self.switches if s.values != (False, True) and settings[s.name]]
        return "+".join(flags + chosen)

    def of(self, config: Mapping) -> str:
        """The key of the layout ``config`` asks for."""
        return self.key(**{s.name: s.read(config) for s in self.switches})

    def settings(self) -> dict[str, dict[str, bool | str]]:
        """Every layout: its key, and the keywords that build it."""
        combinations = itertools.product(*(s.values for s in self.switches))
        settings = [dict(zip((s.name for s in self.switches), values)) for values in combinations]
        return {self.key(**each): each for each in settings}

    def variants(self, architectures: Callable[..., dict]) -> dict[str, dict]:
        """``architectures(**settings)`` for every layout, by key: a family module's ``VARIANTS``."""
        return {key: architectures(**each) for key, each in self.settings().items()}


class Reader(NamedTuple):
    """How to read one model_type: the reader from config.json to symbol values, the family's
    :class:`Layout`, the config field behind each size, and the conditions transformers puts on the sizes.

    Declared once, in ``derivations/readers/<module>.py``; the family module of the same name
    (``derivations/families/<module>.py``) takes its model_type, its layouts and its rules from it."""

    model_type: str
    read: Callable[[Mapping], dict[str, int]]
    layout: Layout
    # Every size the reader gives, by symbol name: the config field it is read from (the first name of the field,
    # where attribute_map gives it two), or several where the config states the size more than once and they
    # must agree (Marian's encoder and decoder heads); a size computed from others says how ("hidden_size /
    # num_attention_heads"). Errors name the first; the tests set them all.
    fields: Mapping[str, str | tuple[str, ...]]
    # The conditions transformers puts on the sizes (derivations.rules.Rule), each checked where the reader reads
    # the sizes it concerns; the calculator applies the same ones. In the order the page lists them.
    rules: tuple = ()
    # Checks that only one class makes (a head that transformers refuses to build from this config).
    check: Callable[[Mapping, str], None] = lambda config, architecture: None
    # Sizes that may be 0 where a class uses them: counts of some of the layers (L_f, the dense layers of a
    # mixture whose other layers hold experts), or of experts a config may have none of.
    zero: frozenset[str] = frozenset()
    # The attention window of each decoder layer (None: full attention), as transformers' cache reads it
    # from this config (derivations.memory: what the key/value cache keeps). Default: every layer full.
    windows: Callable[[Mapping, int], tuple[int | None, ...]] = lambda config, layers: (None,) * layers
    # The config class's fields that set no size, as transformers checks them (derivations.validation.Field, by
    # name): a value it refuses there is not refused here, only said (validation.note).
    checks: Mapping = MappingProxyType({})
    # The reader module's name, which is the family module's: filled in by configs.READERS.
    module: str = ""
    # Whether each decoder layer rotates its queries and keys (rotary embeddings), as transformers reads it from this
    # config (derivations.transient: what a forward makes). Default: every layer.
    rotary: Callable[[Mapping, int], Sequence[bool]] = lambda config, layers: (True,) * layers
    # An encoder's: the attention window of each layer (None: full attention), which sets only the forward's masks
    # (an encoder keeps no cache: ``windows`` is a decoder's). Default: every layer full.
    encoder_windows: Callable[[Mapping, int], Sequence[int | None]] = lambda config, layers: (None,) * layers
    # A model whose config does not size its images (Qwen2.5-VL's, Qwen3-VL's: the processor resizes each): from
    # the config, its sizes and an image's height and width in pixels, what the processor makes of the image (an
    # object with ``json()``, what --json prints of it) and the sizes it gives (N_p, N_i, ...). None: no such input.
    image: Callable[[Mapping, Mapping[str, int], int, int], tuple] | None = None

    def field(self, size: str) -> str:
        """What an error calls a size: its config field (the first, where there are several)."""
        named = self.fields.get(size, size)
        return named if isinstance(named, str) else named[0]


# ---------------------------------------------------------------------------------------------
# Attention windows: which layers attend to a sliding window of the tokens before them
# ---------------------------------------------------------------------------------------------

SLIDING = "sliding_attention"
FULL = "full_attention"


def window_size(config: Mapping, default: int | None, enabled: bool = True) -> int | None:
    """``sliding_window`` (transformers' default when absent); None where the config turns it off."""
    if not enabled:
        return None
    value = config.get("sliding_window", default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"sliding_window must be a positive integer or null, got {shown(value)}")
    return value


def layer_windows(config: Mapping, layers: int, window: int | None,
                  sliding: Callable[[int], bool] = lambda i: True) -> tuple[int | None, ...]:
    """Each layer's window: ``layer_types`` where the config lists them, else the config class's own rule
    (``sliding(i)`` for layer i, where there is a window at all). transformers' cache gives a sliding layer
    a window layer (DynamicSlidingWindowLayer) and every other layer a full one."""
    types = config.get("layer_types")
    if types is None:
        return tuple(window if window is not None and sliding(i) else None for i in range(layers))
    if not isinstance(types, list) or len(types) != layers or not all(t in (SLIDING, FULL) for t in types):
        raise ConfigError(f"layer_types must list {layers} entries, each {SLIDING!r} or {FULL!r}")
    if SLIDING in types and window is None:
        raise ConfigError("layer_types lists sliding_attention layers, but sliding_window is null")
    return tuple(window if t == SLIDING else None for t in types)


def every_layer_windowed(default: int | None, switch: str | None = None) -> Callable[[Mapping, int], tuple]:
    """A config class without layer_types (Mistral, Mixtral, Phi-3, Qwen3-MoE): every layer slides when
    ``sliding_window`` is set (and ``switch``, where the class has one such as use_sliding_window, is true)."""
    def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
        window = window_size(config, default, switch is None or flag(config, switch))
        return (window,) * layers

    return windows


def alternating(default: int | None, period: int = 2) -> Callable[[Mapping, int], tuple]:
    """Gemma 2, Gemma 3 and gpt-oss: without layer_types, layer i slides unless i + 1 is a multiple of
    ``period`` (Gemma 3 reads it from sliding_window_pattern, 6 by default)."""
    def windows(config: Mapping, layers: int) -> tuple[int | None, ...]:
        every = config.get("sliding_window_pattern", period) if period != 2 else 2
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ConfigError(f"sliding_window_pattern must be a positive integer, got {shown(every)}")
        window = window_size(config, default)
        if window is None:
            # The model builds its local layers' mask whatever the layers are: it cannot run without a window.
            raise ConfigError("sliding_window must be set: this model's local layers attend to a window of it")
        # Gemma3TextConfig halves the window of a bidirectional model (the embedding variant): (w // 2) + 1.
        if window is not None and config.get("use_bidirectional_attention") is True:
            window = window // 2 + 1
        return layer_windows(config, layers, window, lambda i: bool((i + 1) % every))

    return windows


def qwen_windows(config: Mapping, layers: int, *, alternate: bool = False) -> tuple[int | None, ...]:
    """Qwen2 and Qwen3: with use_sliding_window, the layers from max_window_layers on slide. Qwen2-MoE
    (``alternate``): the even-numbered layers below max_window_layers."""
    enabled = flag(config, "use_sliding_window")
    window = window_size(config, 4096, enabled)
    bound = config.get("max_window_layers", 28)
    if isinstance(bound, bool) or not isinstance(bound, int):
        raise ConfigError(f"max_window_layers must be an integer, got {shown(bound)}")
    rule = (lambda i: bool((i + 1) % 2) and i < bound) if alternate else (lambda i: i >= bound)
    if alternate and enabled and window is None:
        # Qwen2MoeModel builds its sliding-window mask on every forward, whichever layers slide (none, with
        # max_window_layers 0), and that mask needs a window (Qwen2Config and Qwen3Config make the layers full
        # without one): the model does not run.
        raise ConfigError("sliding_window must be set: use_sliding_window makes Qwen2-MoE build a sliding-window mask")
    return layer_windows(config, layers, window, rule)


# ---------------------------------------------------------------------------------------------
# Shapes that several families read the same way
# ---------------------------------------------------------------------------------------------

def _sequence_summary(config: Mapping) -> str:
    if not flag(config, "summary_use_proj", default=True):
        return "no_summary"
    return "" if flag(config, "summary_proj_to_labels", default=True) else "summary_hidden"


# The projection of transformers' SequenceSummary (GPT's and GPT-2's multiple-choice head): to the
# labels (one logit; the default), to the hidden size (summary_proj_to_labels false), or none
# (summary_use_proj false).
SEQUENCE_SUMMARY = Switch("summary", _sequence_summary, ("", "no_summary", "summary_hidden"))


def summary_type(config: Mapping, architecture: str) -> None:
    """SequenceSummary raises NotImplementedError for summary_type "attn": the double-heads classes
    cannot be built from such a config (the other classes ignore the field)."""
    summary = config.get("summary_type", "cls_index")
    if not isinstance(summary, str):
        raise ConfigError(f"summary_type must be a string, got {shown(summary)}")
    if summary == "attn" and architecture.endswith("DoubleHeadsModel"):
        raise ConfigError(f'{architecture} cannot be built with summary_type "attn" (transformers does not implement it)')


# ---------------------------------------------------------------------------------------------
# An image's size as a person writes it (--image HxW)
# ---------------------------------------------------------------------------------------------

# The longest side an image may be given in pixels (a bound for exact arithmetic, far above any camera's).
MAX_IMAGE_SIDE = 1 << 20


def image_size(text: str) -> tuple[int, int]:
    """``HxW`` in pixels, height first (as transformers' smart_resize(height, width)): ``1024x768``."""
    parts = text.strip().lower().split("x")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise ConfigError(f"--image must be HEIGHTxWIDTH in pixels (as 1024x768), got {shown(text)}")
    height, width = (int(part) for part in parts)
    if not (1 <= height <= MAX_IMAGE_SIDE and 1 <= width <= MAX_IMAGE_SIDE):
        raise ConfigError(f"--image sides must be from 1 to {MAX_IMAGE_SIDE:,} pixels, got {height}x{width}")
    return height, width
