"""Rule metadata is complete and consistent: the docs and --explain are generated from it."""

from __future__ import annotations

import re

import pytest

from ms_perflint.flake8_plugin import rule_codes
from ms_perflint.rule import FixAvailability
from ms_perflint.rules import ALL_RULES

SECTIONS = ("what_it_does", "why_bad", "example", "use_instead", "fix_safety")


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
        assert module.startswith(rule.code.lower() + "_"), (module, rule.code)
        assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
def test_rule_has_every_docs_section_and_examples(rule):
    for section in SECTIONS:
        assert rule.docs.section(section), f"{rule.code} lacks docs section {section}"
    assert rule.summary and rule.markers
    assert rule.valid, f"{rule.code} has no valid (look-alike) examples"
    assert rule.invalid, f"{rule.code} has no invalid examples"
    if rule.fix_availability is not FixAvailability.NEVER:
        assert any(example.fixed is not None for example in rule.invalid), f"{rule.code} fixes but shows no fixed example"


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
def test_markers_occur_in_every_invalid_example(rule):
    """A marker list that misses a spelling would make the prefilter hide findings."""
    for example in rule.invalid:
        assert any(marker in example.source for marker in rule.markers), example.source
