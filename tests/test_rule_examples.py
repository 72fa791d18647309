"""Every rule's own VALID/INVALID examples (the ones its docs show) run as tests."""

from __future__ import annotations

import pytest

from ms_perflint.rules import ALL_RULES
from tests.conftest import codes_at, lint

VALID = [(rule.code, index, example) for rule in ALL_RULES for index, example in enumerate(rule.valid)]
INVALID = [(rule.code, index, example) for rule in ALL_RULES for index, example in enumerate(rule.invalid)]


@pytest.mark.parametrize("code, index, example", VALID, ids=[f"{c}-valid-{i}" for c, i, _ in VALID])
def test_valid_example_reports_nothing(code, index, example):
    found = [v for v in lint(example.source, **example.options) if v.code == code]
    assert found == [], f"{code} valid example {index} reported {codes_at(found)}"


@pytest.mark.parametrize("code, index, example", INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in INVALID])
def test_invalid_example_reports_code_at_position(code, index, example):
    found = [v for v in lint(example.source, **example.options) if v.code == code]
    assert (code, example.line, example.column) in codes_at(found), codes_at(found)
    if example.message_contains:
        assert any(example.message_contains in v.message for v in found)
