"""benchmarks/suite.py tells what one family costs the suite: a test's case is a family's when its file, its name or
one of its parameters names the family (its name, a checkpoint, a class), and the fixed cost is the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

import in_process

SUITE = in_process.script(Path(__file__).resolve().parent.parent / "benchmarks" / "suite.py")
TOKENS, FAMILIES = SUITE.owners()


@pytest.mark.parametrize("classname, name, family", [
    ("tests.test_reference_families", "test_checkpoint[llama-llama-2-7b-LlamaForCausalLM]", "llama"),
    ("tests.test_reference_families", "test_checkpoint[qwen2_moe-qwen2-57b-a14b-Qwen2MoeForCausalLM]", "qwen2_moe"),
    ("tests.test_reference_families", "test_random_configs_gpt_oss", "gpt_oss"),
    ("tests.test_reference_families", "test_defaults[gemma2-Gemma2ForCausalLM]", "gemma2"),
    ("tests.test_gemma2", "test_paper_table", "gemma2"),
    ("tests.test_reference_llama", "test_tying_is_real", "llama"),
    ("tests.test_calculator", "test_random_sizes_count_as_the_derivation[gemma3_text]", "gemma3_text"),
    ("tests.test_cli", "test_bundled_name[deepseek-v2-lite]", "deepseek_v2"),
    ("tests.test_site", "test_no_raw_tex_in_visible_text[notebooks/bert.html]", "bert"),
    ("tests.test_site", "test_no_raw_tex_in_visible_text[mistakes-gpt2.html]", "gpt2"),
    ("tests.test_site", "test_no_raw_tex_in_visible_text[qwen2_moe.html]", "qwen2_moe"),
    ("tests.test_site", "test_no_raw_tex_in_visible_text[index.html]", None),
    ("tests.test_site", "test_numbers_match_package", None),
    ("tests.test_layers", "test_no_module_imports_a_floor_above_its_own[families.llama]", None),
])
def test_a_case_is_the_family_it_names(classname: str, name: str, family: str | None) -> None:
    assert SUITE.family_of(classname, name, TOKENS, FAMILIES) == family


def test_the_costs_add_up(tmp_path) -> None:
    report = tmp_path / "report.xml"
    report.write_text('<testsuites><testsuite>'
                      '<testcase classname="tests.test_llama" name="test_a" time="1.5"/>'
                      '<testcase classname="tests.test_site" name="test_b" time="2.0"/>'
                      '<testcase classname="tests.test_reference_families" name="test_defaults[bert-BertModel]" time="0.5"/>'
                      '</testsuite></testsuites>', encoding="utf-8")
    fixed, per_family, tests = SUITE.costs(report)
    # test_defaults names one family of them all: it does not grow with the families (in this report).
    assert (fixed, per_family["llama"], per_family["bert"], tests) == (2.5, 1.5, 0.0, 3)
    assert set(per_family) == set(FAMILIES)


def test_a_shared_test_of_every_family_grows_with_them(tmp_path) -> None:
    report = tmp_path / "report.xml"
    cases = "".join(f'<testcase classname="tests.test_calculator" name="test_rules[{name}]" time="1.0"/>'
                    for name in FAMILIES)
    report.write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>", encoding="utf-8")
    fixed, per_family, tests = SUITE.costs(report)
    assert fixed == 0 and set(per_family.values()) == {1.0} and tests == len(FAMILIES)
