"""The in-page calculators' data: the checkpoints a calculator may start from, the generated script's counts
(run in node, as the browser runs it) against the command line and published totals, and the rules it
applies against the family's reader and transformers itself."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess

import pytest

from derivations import answers, configs, registry, symbols
from derivations.site import calculator
from derivations.families import bert, mixtral
from derivations.readers import llama as llama_reader
from derivations.symbols import D, H, K, X, X_a, d_h
from profiles import under_ci

FAMILIES = sorted(registry.families().items())
IDS = [name for name, _ in FAMILIES]


@pytest.mark.parametrize("name, family", FAMILIES, ids=IDS)
def test_a_calculator_starts_only_from_checkpoints_it_counts(name, family):
    # The calculator counts the plain layout (family.architectures); a checkpoint whose config builds
    # another one (Llama 3.2's tied head, T5 1.1's gated feed-forward) would be counted as another model.
    presets = calculator.presets(family)
    for checkpoint in family.checkpoints:
        architecture = registry.checkpoint(checkpoint).architecture
        if architecture not in family.architectures:  # a class another family module lays out (GPT-3's rows)
            architecture = next(iter(family.architectures))
        plain = registry.checkpoint(checkpoint, architecture).part == family.architectures[architecture]
        assert (checkpoint in presets) == plain, checkpoint


def test_the_tied_and_gated_checkpoints_are_left_out():
    assert {"llama-3.2-1b", "llama-3.2-3b"}.isdisjoint(calculator.presets(registry.families()["llama"]))
    assert not any(name.startswith("t5-v1_1") for name in calculator.presets(registry.families()["t5"]))


# -- the generated script, run in node ----------------------------------------------------

# Evaluates cases as the page does (the rows, their sum; each rule), printing BigInts as strings. The sum is
# the only arithmetic: the rest is the generated functions.
DRIVER = """
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(({family, cls, sizes, seq}) => {
  const f = window.DV_CALCULATORS[family];
  const s = Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, BigInt(v)]));
  for (const [size, derive] of f.derived) s[size] = derive(s);
  const rules = f.rules.map(([field, names, holds]) => names.every((n) => n in s) ? holds(s) : null);
  if (!cls) return {rules};
  const rows = f.classes[cls].map(([name, i, one, all]) =>
    [name, f.copies[i][1](s), one(s), all ? all(s) : one(s)]);
  const total = rows.reduce((sum, row) => sum + row[3], 0n);
  const forward = seq && f.forward[cls] ? f.forward[cls]({...s, s: BigInt(seq)}) : null;
  return {rows, total, active: f.active[cls] ? f.active[cls](s) : null, rules, derived: f.derived.map(([n]) => s[n]),
          forward, cache: f.cache[cls] ? f.cache[cls]({...s, s: BigInt(seq || 7)}) : null};
});
process.stdout.write(JSON.stringify(out, (k, v) => typeof v === "bigint" ? v.toString() : v));
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    if not shutil.which("node"):
        pytest.skip("node is not installed (the site build needs it too)")
    path = tmp_path_factory.mktemp("calculator") / "run.js"
    path.write_text("global.window = {};\n" + calculator.script() + DRIVER, encoding="utf-8")

    def run(cases: list[dict]) -> list[dict]:
        sizes = [{**case, "sizes": {k: str(v) for k, v in case["sizes"].items()}} for case in cases]
        proc = subprocess.run(["node", str(path)], input=json.dumps(sizes), capture_output=True, text=True, check=True)
        return json.loads(proc.stdout)

    return run


def as_ints(shown: dict) -> dict:
    return {"rows": [(name, int(c), int(one), int(all_)) for name, c, one, all_ in shown["rows"]],
            "total": int(shown["total"]), **({"active": int(shown["active"])} if shown["active"] is not None else {})}


def test_every_class_on_every_checkpoint_counts_as_the_command_line(script):
    # The command line reads each checkpoint's config.json itself (registry.checkpoint), and is held to
    # transformers by the reference harness (tests/specs/); the page must give the same total, the same rows, and
    # rows that are their copies times one copy.
    cases = [{"family": name, "cls": cls, "sizes": sizes, "checkpoint": checkpoint}
             for name, family in FAMILIES for checkpoint, sizes in calculator.presets(family).items()
             for cls in family.architectures]
    for case, shown in zip(cases, script(cases)):
        shown = as_ints(shown)
        family = registry.families()[case["family"]]
        assert shown["total"] == registry.checkpoint(case["checkpoint"], case["cls"]).total, case
        assert shown == calculator.count(family, case["cls"], case["sizes"]), case
        assert all(all_ == copies * one for _, copies, one, all_ in shown["rows"]), case


# Totals published outside the project, each with its source.
PUBLISHED = [
    ("gpt2", "gpt2", "GPT2LMHeadModel", 124_439_808),  # [cite: transformers-14960]
    # PEFT's print_trainable_parameters() on meta-llama/Llama-2-7b-hf (tests/test_llama.py).
    ("llama", "llama-2-7b", "LlamaForCausalLM", 6_738_415_616),
    ("roberta", "roberta-base", "RobertaModel", 124_645_632),  # [cite: keras-hub]
    ("albert", "albert-base-v2", "AlbertModel", 11_683_584),  # [cite: keras-hub]
    ("mixtral", "mixtral-8x7b", "MixtralForCausalLM", 46_702_792_704),  # tests/test_mixtral.py
]


@pytest.mark.parametrize("name, checkpoint, cls, total", PUBLISHED, ids=[c for _, c, _, _ in PUBLISHED])
def test_published_totals(script, name, checkpoint, cls, total):
    family = registry.families()[name]
    [shown] = script([{"family": name, "cls": cls, "sizes": calculator.presets(family)[checkpoint]}])
    assert int(shown["total"]) == total


def test_mixtral_shows_the_active_count_of_its_convention(script):
    # Top-2 of 8 experts, the router, the embedding and the head counted whole: 12,879,925,248, computed by
    # hand from the released config [cite: hub-mistralai] (tests/test_mixtral.py); the release post's
    # "12.9B" [cite: mixtral-announcement]. Top-0 leaves the experts out, top-8 is the total.
    sizes = calculator.presets(mixtral.FAMILY)["mixtral-8x7b"]
    assert sizes["X_a"] == 2
    cases = [{"family": "mixtral", "cls": "MixtralForCausalLM", "sizes": sizes | {"X_a": k}} for k in (2, 0, 8)]
    top2, top0, top8 = [as_ints(shown) for shown in script(cases)]
    assert top2["active"] == 12_879_925_248 and round(top2["active"], -8) == 12_900_000_000
    assert top8["active"] == top8["total"] == 46_702_792_704
    assert top0["active"] == 12_879_925_248 - 2 * 32 * 3 * 4096 * 14336  # two experts of 3DF in each of 32 layers
    assert calculator.minimum(mixtral.FAMILY)["X_a"] == 0


def random_cases(name: str, family) -> list[dict]:
    """Three sizes of each class, far past 2^53, where a JavaScript Number would round (the same on every run)."""
    generator = random.Random(f"calculator-{name}")
    # A switch (DeBERTa-v2's n_sh) is 0 or 1: the form takes nothing else.
    most = calculator.maximum(family)
    return [{"family": name, "cls": cls, "sizes": {str(s): generator.randint(0, most[str(s)]) if str(s) in most
                                                   else generator.choice([generator.randint(1, 64), generator.randint(1, 10**7)])
                                                   for s in calculator.sizes(family)}}
            for cls in family.architectures for _ in range(3)]


@pytest.fixture(scope="module")
def random_shown(script) -> dict[str, list[tuple[dict, dict]]]:
    """Every family's random cases and what the script shows for them, run at once (one node process, not one a
    family: its start is most of a family's time)."""
    cases = [case for name, family in FAMILIES for case in random_cases(name, family)]
    by_family: dict[str, list] = {}
    for case, shown in zip(cases, script(cases), strict=True):
        by_family.setdefault(case["family"], []).append((case, shown))
    return by_family


@pytest.mark.parametrize("name, family", FAMILIES, ids=IDS)
def test_random_sizes_count_as_the_derivation(random_shown, name, family):
    # The script's BigInts are exact.
    assert len(random_shown[name]) == 3 * len(family.architectures)
    for case, shown in random_shown[name]:
        assert as_ints(shown) == calculator.count(family, case["cls"], case["sizes"]), case


# -- the rules ----------------------------------------------------------------------------

GRID = {D: range(1, 9), H: range(1, 7), K: range(1, 5), d_h: range(1, 5), X: range(1, 4), X_a: range(0, 5)}


def fields(family) -> dict:
    """The config fields behind the sizes the rules may concern, as the family's reader reads them (a size read
    from several fields is set in all of them; one computed from others, such as BERT's head size, in none)."""
    read = configs.READERS[family.model_type].fields
    named = {size: read[str(size)] for size in GRID if str(size) in read}
    return {size: (field,) if isinstance(field, str) else field for size, field in named.items()
            if isinstance(field, tuple) or " " not in field}


def grid(name: str, most: int | None = None):
    """Every combination of small sizes for the fields the family's rules may concern (a size the calculator does
    not ask for, such as GPT-2's heads, is set to 1, which any width allows); at most ``most`` of them, a fixed
    sample, if given."""
    family = registry.families()[name]
    asked = set(calculator.sizes(family))
    behind = fields(family)
    keys = [s for s in behind if s in asked]
    first = next(iter(calculator.presets(family)))
    base = configs.load(first)
    # The sizes the grid leaves alone keep the checkpoint's values (a rule may compare two of them: L_f and L).
    kept = symbols.valued(calculator.presets(family)[first])
    combinations = list(itertools.product(*(GRID[s] for s in keys)))
    if most is not None and len(combinations) > most:  # the same sample on every run
        combinations = random.Random(f"rules-{name}").sample(combinations, most)
    for combination in combinations:
        values = {s: v for s, v in kept.items() if s not in keys} | dict(zip(keys, combination))
        config = dict(base)
        for size, written in behind.items():
            for field in written:
                place(config, field, values.get(size, 1))
        yield values, config


def place(config: dict, field: str, value: int) -> None:
    """A field set in a config, one inside a sub-config by its dotted name (``text_config.hidden_size``)."""
    if "." in field:
        outer, inner = field.split(".", 1)
        config[outer] = dict(config.get(outer) or {})
        place(config[outer], inner, value)
    else:
        config[field] = value


def holds(rule, family, values) -> bool:
    """A rule at sizes given as symbols, the derived ones added as the form adds them."""
    return rule.holds({str(s): v for s, v in calculator.derive(family, values).items()})


def accepts(model_type: str, config: dict) -> bool:
    try:
        configs.READERS[model_type].read(config)
    except configs.ConfigError:
        return False
    return True


@pytest.mark.parametrize("name", IDS)
def test_the_rules_are_the_command_lines(name):
    # The calculator refuses exactly the sizes the command line refuses (its reader checks a config as
    # transformers does). BERT and RoBERTa: the note holds exactly where the config needs no embedding_size,
    # and with embedding_size the command line accepts every size, but transformers fails on heads of size 0
    # (more heads than width), which the calculator refuses too (test_the_page_text_cases_in_transformers);
    # the reader lets that config through.
    family = registry.families()[name]
    architecture = next(iter(family.architectures))  # the rules concern sizes, which every class has
    notes = [rule for rule in calculator.rules(family) if not rule.refuse]
    # Every combination in CI; in `make test`, a dense family's whole grid and a sample of a mixture's.
    for values, config in grid(name, None if under_ci() else 2000):
        refused = bool(calculator.refused(family, architecture, values))
        if notes:
            assert all(holds(rule, family, values) for rule in notes) == accepts(family.model_type, config)
            config = config | {"embedding_size": config["hidden_size"]}
            if values[H] > values[D]:
                assert refused, values
                continue
        assert refused != accepts(family.model_type, config), (name, values)


# Combinations of a family's grid run in the script: the mixtures' grids (11,520 each) are sampled, a fifth as many in
# `make test` as in CI.
SAMPLED = 1500 if under_ci() else 300


def test_every_rule_runs_in_the_script_as_in_python(script):
    # The generated JavaScript condition of every rule against SymPy's, on every combination of small sizes.
    cases, expected = [], []
    for name, family in FAMILIES:
        least = calculator.minimum(family)
        combinations = list(grid(name, SAMPLED)) if calculator.rules(family) else []
        for values, _ in combinations:
            full = {str(s): 1 for s in calculator.sizes(family)} | {str(s): v for s, v in values.items()}
            if any(v < least[k] for k, v in full.items()):
                continue
            cases.append({"family": name, "cls": None, "sizes": full})
            expected.append([holds(rule, family, symbols.valued(full)) for rule in calculator.rules(family)])
    assert len(cases) > 1000
    assert [shown["rules"] for shown in script(cases)] == expected


def test_the_page_text_cases_in_transformers():
    # What the pages state, checked in transformers itself (5.23): LlamaConfig refuses heads that do not
    # divide the width, even with head_dim; MistralConfig takes them; BERT's attention takes them only with
    # embedding_size (floor of the quotient) and fails on heads of size 0; DistilBERT refuses them; ALBERT
    # takes them. And the calculators do the same.
    import reference  # skips this test without torch and transformers (fails under CI)

    transformers, torch = reference.transformers, reference.torch
    from transformers.models.albert.modeling_albert import AlbertAttention
    from transformers.models.bert.modeling_bert import BertSelfAttention
    from transformers.models.distilbert.modeling_distilbert import DistilBertSelfAttention
    from transformers.models.roberta.modeling_roberta import RobertaSelfAttention

    from huggingface_hub.errors import StrictDataclassError  # how a config class refuses a field

    def builds(make) -> bool:
        try:
            with torch.device("meta"):
                make()
        except (ValueError, ZeroDivisionError, StrictDataclassError):
            return False
        return True

    def calculator_takes(name: str, **sizes) -> bool:
        family = registry.families()[name]
        values = symbols.valued(calculator.presets(family)[next(iter(calculator.presets(family)))] | sizes)
        return not calculator.refused(family, family.base, values)

    # 40 heads on a width of 4096, 8 key/value heads (which divide the heads), heads of 128.
    wide = {"hidden_size": 4096, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128}
    sizes = {"D": 4096, "H": 40, "K": 8, "d_h": 128}
    assert builds(lambda: transformers.LlamaConfig(**wide | {"num_attention_heads": 32}))
    assert calculator_takes("llama", **sizes | {"H": 32})
    assert not builds(lambda: transformers.LlamaConfig(**wide)) and not calculator_takes("llama", **sizes)
    assert builds(lambda: transformers.MistralConfig(**wide)) and calculator_takes("mistral", **sizes)
    assert builds(lambda: transformers.MixtralConfig(**wide)) and calculator_takes("mixtral", **sizes)
    for name, config, attention in (("bert", transformers.BertConfig, BertSelfAttention),
                                     ("roberta", transformers.RobertaConfig, RobertaSelfAttention)):
        assert not builds(lambda: attention(config(hidden_size=1000, num_attention_heads=12)))
        assert builds(lambda: attention(config(hidden_size=1000, num_attention_heads=12, embedding_size=1000)))
        assert calculator_takes(name, D=1000, H=12)
        assert not builds(lambda: attention(config(hidden_size=8, num_attention_heads=12, embedding_size=8)))
        assert not calculator_takes(name, D=8, H=12)
    assert not builds(lambda: DistilBertSelfAttention(transformers.DistilBertConfig(dim=1000, n_heads=12)))
    assert not calculator_takes("distilbert", D=1000, H=12)
    assert builds(lambda: AlbertAttention(transformers.AlbertConfig(hidden_size=1000, num_attention_heads=12)))
    assert calculator_takes("albert", D=1000, H=12)
    assert not builds(lambda: AlbertAttention(transformers.AlbertConfig(hidden_size=8, num_attention_heads=12)))
    assert not calculator_takes("albert", D=8, H=12)


def test_bert_with_heads_that_do_not_divide_counts_as_transformers(script):
    # BertModel with 12 heads on a width of 1000 and embedding_size set: each head has 83 dimensions, and
    # the model holds what transformers builds on the meta device.
    import reference  # skips this test without torch and transformers (fails under CI)

    sizes = calculator.presets(bert.FAMILY)["bert-base-uncased"] | {"D": 1000}
    config = {"model_type": "bert", "hidden_size": 1000, "embedding_size": 1000}
    [shown] = script([{"family": "bert", "cls": "BertModel", "sizes": sizes}])
    assert shown["derived"] == ["83"]
    assert int(shown["total"]) == reference.total(reference.build("BertModel", config))
    rule = calculator.rules(bert.FAMILY)[0]
    assert not rule.refuse and not holds(rule, bert.FAMILY, {D: 1000, H: 12})


def test_the_form_lists_each_rule_where_the_script_finds_it():
    # The script copies the words of rule i (data-rule="i") beside the field; the list is the module's.
    from derivations.site.expanders import expand_calculator

    for name, family in FAMILIES:
        form = expand_calculator(name, lambda tex, display: tex)
        for i, rule in enumerate(calculator.rules(family)):
            assert f'<li data-rule="{i}">{calculator.text_html(rule.text)}</li>' in form, (name, i)
        assert ('data-rule="' in form) == bool(calculator.rules(family))
    assert "<code>LlamaConfig</code> requires the heads <var>H</var> to divide the width <var>D</var>" in \
        calculator.text_html(llama_reader.HEADS_DIVIDE_WIDTH.text)


def test_the_forward_flops_are_the_command_lines(script):
    # The form's FLOPs line: the generated function on each class at each checkpoint it starts from, against the
    # command line's forward (the compiled rows, which tests/test_reference_flops.py holds to torch).
    from derivations.answers import flop_components

    cases = [{"family": name, "cls": cls, "sizes": sizes, "checkpoint": checkpoint, "seq": tokens}
             for name, family in FAMILIES for checkpoint, sizes in list(calculator.presets(family).items())[:2]
             for cls in family.architectures for tokens in (1, 7, 2048)]
    for case, shown in zip(cases, script(cases)):
        config = configs.load(case["checkpoint"])
        # A model that reads images: the form's FLOPs are of one image, whatever the length (it asks for none).
        tokens = None if answers.reads_images(config, case["cls"]) else case["seq"]
        try:
            _, rows, _, _ = flop_components(config, case["cls"], tokens, None)
        except configs.ConfigError as error:  # a sequence longer than the position table, or shorter than the
            # image it reads among its text: refused, not counted
            assert ("position table" in str(error) and case["seq"] == 2048) or "cannot hold it" in str(error) \
                or "not in a config" in str(error), (case, error)  # (or an image whose size no config gives)
            assert "not in a config" not in str(error) or shown["forward"] is None, case
            continue
        assert int(shown["forward"]) == sum(r["flops"] for r in rows), case


def test_the_cache_is_the_command_lines(script):
    # The form's cache line: the generated elements after 7 tokens against the command line's
    # kv_cache_elements (which tests/test_reference_memory.py holds to transformers' cache), for the checkpoints
    # whose layers all attend to every token (the form asks for no window). An encoder-decoder's source is as long
    # as its target.
    from derivations import configs as configs_
    from derivations.answers import memory as memory_result

    cases = [{"family": name, "cls": cls, "sizes": sizes, "checkpoint": checkpoint}
             for name, family in FAMILIES for checkpoint, sizes in list(calculator.presets(family).items())[:2]
             for cls in family.architectures]
    compared = 0
    for case, shown in zip(cases, script(cases)):
        config = configs_.load(case["checkpoint"])
        if answers.reads_images(config, case["cls"]):
            assert shown["cache"] is None, case  # a vision encoder keeps no cache
            continue
        tokens = 7
        try:
            result = memory_result(config, case["cls"], tokens, None, 1, "bf16")
        except configs_.ConfigError as error:  # 7 tokens cannot hold the image a composite reads among them
            assert "cannot hold it" in str(error), (case, error)
            continue
        if result["kv_cache_windows"]:
            continue
        expected = result["kv_cache_elements"]
        assert (0 if shown["cache"] is None else int(shown["cache"])) == expected, case
        compared += expected > 0
    assert compared > 50
