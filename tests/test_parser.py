"""Parsing without per-node validation (``ms_perflint.analysis.parser``) gives libcst's own trees, and only there."""

from __future__ import annotations

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
