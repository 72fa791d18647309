"""Facts go from worker processes to the one that decides by pickle: they must come back equal, field for field."""

from __future__ import annotations

import pickle

import pytest

from ms_perflint.analysis import analyse_python
from ms_perflint.analysis.facts import LIT, Call, Loop, Scope, Value
from tests.conftest import FIXTURES, REPO

SOURCES = sorted([*FIXTURES.rglob("*.py"), *(REPO / "examples").rglob("*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_the_facts_of_a_file_come_back_equal(path):
    facts = analyse_python(path.read_text(encoding="utf-8"), path.stem)
    copy = pickle.loads(pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
    assert copy == facts and copy.to_json() == facts.to_json()


def test_a_value_equal_to_a_default_of_another_type_is_kept_as_it_is():
    # 1 == True and 0 == False: trailing fields equal to their default are left out, but only of the same type.
    value = Value(LIT, True, line=1, column=0, start=0, end=True)  # type: ignore[arg-type]
    copy = pickle.loads(pickle.dumps(value))
    assert copy == value and copy.end is True
    loop = Loop(1, 0, "for", parent=-1, line=False)  # type: ignore[arg-type]
    assert pickle.loads(pickle.dumps(loop)).line is False


def test_fields_left_at_their_defaults_are_not_written():
    short, full = Value(LIT, 3), Value(LIT, 3, text="3", line=7, column=4, start=50, end=51)
    assert len(pickle.dumps(short)) < len(pickle.dumps(full))
    call, scope = Call(0, callee="mindspore.nn.Dense"), Scope("<module>", "module")
    assert pickle.loads(pickle.dumps(call)).args == [] and pickle.loads(pickle.dumps(scope)).params == []
    # default lists are not shared between copies
    first, second = pickle.loads(pickle.dumps(call)), pickle.loads(pickle.dumps(call))
    first.args.append(short)
    assert second.args == []
