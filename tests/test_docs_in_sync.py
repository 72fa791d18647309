"""docs/rules/*.md are exactly what the rules' metadata renders (regenerate: python -m ms_perflint.docs)."""

from __future__ import annotations

from ms_perflint.docs import render_rule
from ms_perflint.rules import ALL_RULES
from tests.conftest import REPO


def test_every_rule_page_is_generated_from_metadata():
    stale = []
    for rule in ALL_RULES:
        page = REPO / "docs" / "rules" / f"{rule.code}.md"
        if not page.exists() or page.read_text(encoding="utf-8") != render_rule(rule):
            stale.append(page.name)
    assert not stale, f"regenerate with `python -m ms_perflint.docs`: {stale}"


def test_no_page_for_a_rule_that_does_not_exist():
    codes = {rule.code for rule in ALL_RULES}
    pages = {path.stem for path in (REPO / "docs" / "rules").glob("MSP*.md")}
    assert pages <= codes
