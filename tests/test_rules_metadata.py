"""Every rule's metadata and examples: complete, consistent, run as tests; docs pages generated from them."""

from __future__ import annotations

import re

import pytest

from ms_perflint.docs_build import END, PAGE, START, render_table, with_table
from ms_perflint.findings import FixAvailability
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.flake8_plugin import rule_codes
from ms_perflint.rules import ALL_RULES
from ms_perflint.rules.docs import render_rule
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings
from tests.conftest import REPO, codes_at

SECTIONS = ("what_it_does", "why_bad", "example", "use_instead", "fix_safety", "programs", "silent_on")
VALID = [(rule, index, example) for rule in ALL_RULES for index, example in enumerate(rule.valid)]
INVALID = [(rule, index, example) for rule in ALL_RULES for index, example in enumerate(rule.invalid)]


def settings_for(rule) -> Settings:
    return Settings(extend_select=(rule.code,) if rule.opt_in else ())


def _check(rule, example):
    """The rule alone on its example; an opt-in rule with its code selected. MSP001 (unused noqa) runs with every
    rule, since it reports on their suppressions."""
    options = {key.replace("_", "-"): value for key, value in example.options.items()}
    settings = Settings(rule_options=options, extend_select=(rule.code,) if rule.opt_in else ())
    rules = ALL_RULES if rule.code == "MSP001" else [rule]
    result = check_text(example.source, "example.py", settings, rules=rules)
    assert result.error is None, result.error
    return [finding for finding in result.findings if finding.code == rule.code]


@pytest.mark.parametrize("rule, index, example", VALID, ids=[f"{r.code}-valid-{i}" for r, i, _ in VALID])
def test_valid_example_reports_nothing(rule, index, example):
    assert codes_at(_check(rule, example)) == [], example.why


@pytest.mark.parametrize("rule, index, example", INVALID, ids=[f"{r.code}-invalid-{i}" for r, i, _ in INVALID])
def test_invalid_example_reports_at_its_position_and_fixes_as_shown(rule, index, example):
    found = _check(rule, example)
    at = [f for f in found if (f.line, f.column + 1) == (example.line, example.column)]
    assert at, codes_at(found)
    if example.message_contains:
        assert example.message_contains in at[0].message
    if example.fixed is not None:
        assert at[0].fix is not None
        assert apply_fix_text(example.source, [at[0].fix]) == example.fixed_source
        again = check_text(example.fixed_source, "example.py", settings_for(rule),
                           rules=ALL_RULES if rule.code == "MSP001" else [rule]).findings
        assert not [f for f in again if f.code == rule.code and f.fix is not None], "the fix leaves a fixable finding"
    else:
        assert at[0].fix is None or rule.fix_availability is not FixAvailability.NEVER


def test_codes_are_unique_and_well_formed():
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"MSP\d{3}", code) for code in codes)
    names = [rule.name for rule in ALL_RULES]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in names)


def test_flake8_code_list_matches_the_rules():
    assert rule_codes() == [rule.code for rule in ALL_RULES]


def test_each_module_file_name_matches_its_code():
    for rule in ALL_RULES:
        module = rule.__module__.rsplit(".", 1)[1]
        assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
def test_rule_has_every_docs_section_and_examples(rule):
    for section in SECTIONS:
        assert rule.docs.section(section), f"{rule.code} lacks docs section {section}"
    assert rule.summary
    assert rule.valid, f"{rule.code} has no valid (look-alike) examples"
    assert rule.invalid, f"{rule.code} has no invalid examples"
    if rule.fix_availability is not FixAvailability.NEVER:
        assert any(example.fixed is not None for example in rule.invalid), f"{rule.code} fixes but shows no fix"


def test_every_rule_page_is_generated_from_metadata():
    stale = [rule.code for rule in ALL_RULES
             if (REPO / "docs" / "rules" / f"{rule.code}.md").read_text(encoding="utf-8") != render_rule(rule)]
    assert not stale, f"regenerate with `python -m ms_perflint.docs_build`: {stale}"


def test_no_page_for_a_rule_that_does_not_exist():
    codes = {rule.code for rule in ALL_RULES}
    assert {path.stem for path in (REPO / "docs" / "rules").glob("MSP*.md")} <= codes


def test_fix_table_is_generated_from_the_rules():
    page = PAGE.read_text(encoding="utf-8")
    assert page == with_table(page, render_table(ALL_RULES)), "run `python -m ms_perflint.docs_build`"
    for rule in ALL_RULES:
        assert f"[{rule.code} {rule.name}](rules/{rule.code}.md#fix-safety)" in page


def test_with_table_replaces_only_between_the_markers():
    page = f"intro\n{START}\nold\n{END}\noutro\n"
    assert with_table(page, "new\n") == f"intro\n{START}\nnew\n{END}\noutro\n"
    with pytest.raises(ValueError):
        with_table("no markers", "new\n")
