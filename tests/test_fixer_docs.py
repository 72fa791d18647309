"""docs/fixes.md: its per-rule table is what the rules generate, and it covers every rule."""

from __future__ import annotations

import pytest

from ms_perflint.fix_docs import END, PAGE, START, render_table, with_table
from ms_perflint.rules import ALL_RULES


def test_fix_table_is_generated_from_the_rules():
    page = PAGE.read_text(encoding="utf-8")
    assert page == with_table(page, render_table(ALL_RULES)), "run `python -m ms_perflint.docs`"


def test_fix_table_names_every_rule_and_the_flag_each_fix_needs():
    table = render_table(ALL_RULES)
    for rule in ALL_RULES:
        assert f"[{rule.code} {rule.name}](rules/{rule.code}.md#fix-safety)" in table
    assert "| Add `async_save=True` | `--fix` |" in table
    assert "| Replace `async_save=False` with `True` | `--fix --unsafe-fixes` |" in table


def test_with_table_replaces_only_between_the_markers():
    page = f"intro\n{START}\nold\n{END}\noutro\n"
    assert with_table(page, "new\n") == f"intro\n{START}\nnew\n{END}\noutro\n"
    with pytest.raises(ValueError):
        with_table("no markers", "new\n")
