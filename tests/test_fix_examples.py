"""Every rule's own examples, fixed: ``Invalid(fixed=...)`` is what ``--fix --unsafe-fixes`` must produce.

Parametrized over ALL_RULES, so a new rule's examples are covered without editing
this file. Each example is fixed with only its own rule selected (the rule's docs
show that rule's fix); fixes of several rules together are proven by the fixture
``.fixed`` files and the property test. For each fixed example: the output is the
expected text, fixing it again changes nothing, and no fixable finding is left.
"""

from __future__ import annotations

import pytest

from ms_perflint.fixer import fix_source
from ms_perflint.rule import FixAvailability
from ms_perflint.rules import ALL_RULES
from ms_perflint.settings import Settings

INVALID = [(rule.code, index, example) for rule in ALL_RULES for index, example in enumerate(rule.invalid)]
FIXED = [(code, index, example) for code, index, example in INVALID if example.fixed is not None]
VALID = [(rule.code, index, example) for rule in ALL_RULES for index, example in enumerate(rule.valid)]


def settings_for(code: str, options) -> Settings:
    return Settings(select=(code,), rule_options={key.replace("_", "-"): value for key, value in options.items()})


def fix(code: str, source: str, options):
    return fix_source(source, "example.py", settings_for(code, options), unsafe=True)


@pytest.mark.parametrize("code, index, example", INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in INVALID])
def test_invalid_example_fixes_to_its_fixed_text(code, index, example):
    result = fix(code, example.source, example.options)
    assert result.problems == [], [p.message for p in result.problems]
    if example.fixed_source is None:
        assert result.fixed_text is None, f"{code} example {index} has no fixed= but the rule fixes it:\n{result.fixed_text}"
        return
    assert result.fixed_text == example.fixed_source
    leftover = [v for v in result.remaining.violations if v.fix is not None]
    assert leftover == [], f"still fixable after fixing: {[(v.code, v.line) for v in leftover]}"


@pytest.mark.parametrize("code, index, example", FIXED, ids=[f"{c}-invalid-{i}" for c, i, _ in FIXED])
def test_fixing_a_fixed_example_changes_nothing(code, index, example):
    again = fix(code, example.fixed_source, example.options)
    assert again.fixed_text is None, f"second fix changed the file:\n{again.fixed_text}"


@pytest.mark.parametrize("code, index, example", VALID, ids=[f"{c}-valid-{i}" for c, i, _ in VALID])
def test_valid_example_is_never_changed(code, index, example):
    result = fix(code, example.source, example.options)
    assert result.fixed_text is None and result.problems == []


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
def test_examples_agree_with_fix_availability(rule):
    with_fix = [example.fixed is not None for example in rule.invalid]
    if rule.fix_availability is FixAvailability.ALWAYS:
        assert all(with_fix), f"{rule.code} always has a fix: every Invalid example needs fixed="
    elif rule.fix_availability is FixAvailability.NEVER:
        assert not any(with_fix), f"{rule.code} has no fix: no Invalid example may carry fixed="
    else:
        assert any(with_fix), f"{rule.code} sometimes has a fix: show it in at least one Invalid example"
