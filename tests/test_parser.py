"""Parsing without per-node validation (``ms_perflint.analysis.parser``) gives libcst's own trees, and only there."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import libcst as cst
import pytest

from ms_perflint.analysis.parser import parse_module
from tests.conftest import REPO

SOURCES = sorted([*(REPO / "tests" / "fixtures").rglob("*.py"), *(REPO / "examples").rglob("*.py"),
                  *(REPO / "ms_perflint" / "analysis").glob("*.py")])


def assert_validation_is_on() -> None:
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # an empty identifier: libcst's validation refuses it


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_tree_is_libcsts_own(path: Path):
    text = path.read_text(encoding="utf-8")
    ours = parse_module(text)
    assert ours.deep_equals(cst.parse_module(text))
    assert ours.code == text


def test_validation_is_on_again_after_a_parse_and_after_a_failed_one():
    parse_module("x = (1,\n  2)\n")
    assert_validation_is_on()
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n")
    assert_validation_is_on()


def test_nothing_is_validated_during_a_parse(monkeypatch):
    calls = []
    real = cst.Name._validate
    monkeypatch.setattr(cst.Name, "_validate", lambda self: calls.append(self.value) or real(self))
    parse_module("x = y + z\n")
    assert calls == []
    cst.parse_module("x = y + z\n")  # libcst's own parse validates every name it builds
    assert sorted(calls) == ["x", "y", "z"]


def test_the_parser_still_refuses_invalid_code():
    for text in ("x = = 1\n", "return\n)", "f(**)\n"):
        with pytest.raises(cst.ParserSyntaxError):
            parse_module(text)


def test_parses_in_threads_leave_validation_on():
    text = (REPO / "examples" / "train.py").read_text(encoding="utf-8")
    errors = []

    def parse_many() -> None:
        try:
            for _ in range(20):
                parse_module(text)
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    threads = [threading.Thread(target=parse_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert_validation_is_on()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_process_forked_during_a_parse_starts_with_validation_on_and_the_lock_free():
    from ms_perflint.analysis import parser

    with parser._SWITCHED:  # as another thread's parse would hold them while this one forks
        cst.CSTNode.__post_init__ = parser._unchecked
        try:
            child = os.fork()
            if child == 0:  # the child: validation on, and a parse does not wait for the parent's lock
                code = 0
                try:
                    parse_module("x = 1\n")
                    assert_validation_is_on()
                except BaseException:  # noqa: BLE001 -- reported through the exit code
                    code = 1
                os._exit(code)
        finally:
            cst.CSTNode.__post_init__ = parser._VALIDATING
    _, status = os.waitpid(child, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
