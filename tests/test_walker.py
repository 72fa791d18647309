"""The engine's fast walker must produce exactly the events of libcst's ``Module.visit``."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import libcst as cst
import pytest

from ms_perflint.rules import ALL_RULES
from ms_perflint.analysis.walker import LAYOUT_TYPES, walk
from tests.conftest import FIXTURES, REPO

#: One module using as much syntax as libcst 1.x parses, so every node type's child order is checked.
ALL_SYNTAX = '''\
# -*- coding: utf-8 -*-
"""Doc."""
from __future__ import annotations
import os, sys as system
from . import sibling
from ..parent.mod import (a as b, c,)
from os.path import *
x: int = 1; y = x if x else -x
del y
global_list = [1, *range(3)]
assert x, "message"
@decorator(arg)
@other
async def coroutine(p, /, q: int = 2, *args: str, r, s=3, **kwargs) -> "Ret":
    """Doc."""
    global x
    async with open(p) as f, open(q) as (g):
        async for item in f:
            await item
    return [i async for i in aiter() if i]
class Klass(Base, metaclass=Meta):
    attribute: list[int] = []
    def method(self):
        nonlocal_value = 1
        def inner():
            nonlocal nonlocal_value
            nonlocal_value += 1
        lambda a, *b, c=1, **d: (a, b, c, d)
        return {k: v for k, v in self.items()}, {s for s in ()}, (g for g in [])
try:
    pass
except (ValueError, TypeError) as error:
    raise RuntimeError("x") from error
else:
    pass
finally:
    pass
try:
    pass
except* OSError:
    pass
while True:
    break
else:
    continue_ = 1
for i, (j, k) in enumerate([]):
    continue
if (n := len(global_list)) > 1 and not x or x is not None:
    print(f"{n!r:>10} and {x=} {{literal}}", end="")
elif x in global_list:
    value = x[1:2, ::3, ...] @ x ** 2 // 3 % 4 << 1 >> 1 & 1 | 1 ^ ~1
else:
    value = b"bytes" rb"raw" + "text" "concatenated"
match value:
    case [1, 2, *rest]:
        pass
    case {"key": v, **others}:
        pass
    case Point(x=0, y=0) | None as matched if matched:
        pass
    case _:
        pass
with (open("a") as first, open("b") as second):
    value += 1; value -= 1
type Alias = list[int]
def generic[T](arg: T) -> T:
    yield arg
    yield from [arg]
print(*args, **kwargs, sep="")
t = 1,
x = y = z = 0
'''


class Recorder(cst.CSTVisitor):
    """Records every on_visit/on_leave as (event, node identity, node type)."""

    def __init__(self, skip: str = "") -> None:
        super().__init__()
        self.events: List[Tuple[str, int, str]] = []
        self.skip = skip

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node), type(node).__name__))
        return type(node).__name__ != self.skip

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node), type(original_node).__name__))


def sources() -> List[Tuple[str, str]]:
    """Modules to compare on: the syntax sampler, every fixture, every rule example, this package."""
    found = [("all-syntax", ALL_SYNTAX)]
    found += [(str(path.relative_to(FIXTURES)), path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.rglob("*.py"))]
    for rule in ALL_RULES:
        found += [(f"{rule.code}-valid-{i}", example.source) for i, example in enumerate(rule.valid)]
        found += [(f"{rule.code}-invalid-{i}", example.source) for i, example in enumerate(rule.invalid)]
    package = REPO / "ms_perflint"
    found += [(str(path.relative_to(REPO)), path.read_text(encoding="utf-8")) for path in sorted(package.rglob("*.py"))]
    return found


SOURCES = sources()


def test_syntax_sampler_parses_and_covers_many_node_types():
    recorder = Recorder()
    walk(cst.parse_module(ALL_SYNTAX), recorder)
    seen = {name for _, _, name in recorder.events}
    for expected in ("Match", "MatchOr", "TryStar", "TypeAlias", "TypeParameters", "NamedExpr", "FormattedString",
                     "ImportStar", "Lambda", "For", "Await", "Global", "Nonlocal"):
        assert expected in seen, expected


@pytest.mark.parametrize("name, code", SOURCES, ids=[name for name, _ in SOURCES])
def test_walk_emits_the_same_events_as_module_visit(name: str, code: str):
    module = cst.parse_module(code)
    expected, actual = Recorder(), Recorder()
    module.visit(expected)
    walk(module, actual)
    assert actual.events == expected.events


class LayoutSkipper(Recorder):
    """Records libcst's own visit as ``walk(..., skip_layout=True)`` must see it: layout nodes and all they hold
    left out."""

    def __init__(self) -> None:
        super().__init__()
        self.inside_layout = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in LAYOUT_TYPES:
            self.inside_layout += 1
            return True
        return self.inside_layout > 0 or super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) in LAYOUT_TYPES:
            self.inside_layout -= 1
        elif not self.inside_layout:
            super().on_leave(original_node)


@pytest.mark.parametrize("name, code", SOURCES, ids=[name for name, _ in SOURCES])
def test_walk_without_layout_emits_module_visits_events_less_the_layout(name: str, code: str):
    module = cst.parse_module(code)
    expected, actual = LayoutSkipper(), Recorder()
    module.visit(expected)
    walk(module, actual, skip_layout=True)
    assert actual.events == expected.events


@pytest.mark.parametrize("skipped", ["ClassDef", "Call", "SimpleStatementLine"])
def test_children_are_skipped_when_on_visit_says_so(skipped: str):
    module = cst.parse_module(ALL_SYNTAX)
    expected, actual = Recorder(skip=skipped), Recorder(skip=skipped)
    module.visit(expected)
    walk(module, actual)
    assert actual.events == expected.events
    assert len(actual.events) < len(_all_events(module))


def _all_events(module: cst.Module) -> list:
    recorder = Recorder()
    walk(module, recorder)
    return recorder.events


@pytest.mark.parametrize(
    "first, second",
    [('f"{a}"', 'f"{b:>{width}}"'), ('f"{b:>{width}}"', 'f"{a}"'), ('f"{a!r}"', 'f"{b=:.2f}"')],
)
def test_field_order_does_not_depend_on_the_first_instance_seen(monkeypatch, first: str, second: str):
    """libcst skips an f-string expression's format_spec when it is None: the walker must not learn that as the order."""
    from ms_perflint.analysis import walker

    for table in ("_CHILD_FIELDS", "_NONE_DEPENDENT", "_BY_NONE_PATTERN"):
        monkeypatch.setattr(walker, table, {})
    for code in (first, second):
        module = cst.parse_module(f"x = {code}\n")
        expected, actual = Recorder(), Recorder()
        module.visit(expected)
        walk(module, actual)
        assert actual.events == expected.events, code


def test_deeply_nested_expression_does_not_overflow():
    # 200 nested parentheses: libcst parses it; the walker must not need more stack than libcst's own visit.
    code = "x = " + "(" * 200 + "1" + ")" * 200 + "\n"
    module = cst.parse_module(code)
    expected, actual = Recorder(), Recorder()
    module.visit(expected)
    walk(module, actual)
    assert actual.events == expected.events


def test_analysing_a_file_leaves_no_cycle_for_the_garbage_collector():
    """The tree is freed as soon as the analysis ends: a cycle through the visitor (its walk closure, bound methods
    kept on it) kept every file's whole tree alive until a collection, doubling a project run's memory."""
    import gc

    from ms_perflint.analysis import analyse_python

    text = (REPO / "examples" / "train.py").read_text(encoding="utf-8")
    analyse_python(text, "train")  # types met for the first time fill process-wide tables
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        facts = analyse_python(text, "train")
        gc.collect()
        left = [type(o).__module__ for o in gc.garbage if type(o).__module__.startswith(("libcst", "ms_perflint"))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert facts.calls and left == []


def test_layout_types_are_every_libcst_whitespace_and_operator_class():
    from ms_perflint.analysis.walker import LAYOUT_TYPES

    bases = (cst.BaseParenthesizableWhitespace, cst.BaseBinaryOp, cst.BaseUnaryOp, cst.BaseBooleanOp, cst.BaseCompOp,
             cst.BaseAugOp)
    subclasses = {value for value in vars(cst).values() if isinstance(value, type) and issubclass(value, bases)}
    assert subclasses <= LAYOUT_TYPES and cst.Plus in LAYOUT_TYPES and cst.SimpleWhitespace in LAYOUT_TYPES
    assert cst.Comma in LAYOUT_TYPES and cst.Name not in LAYOUT_TYPES and cst.Call not in LAYOUT_TYPES
