"""Fixture files (tests/fixtures/<CODE>/<case>.py) against their .expected findings.

The engine, the real CLI process and the real flake8 process must all report
exactly the expected (line, column, code) triples. Where ``<case>.fixed`` exists,
the real CLI's ``--fix --unsafe-fixes`` must turn a copy of the case into it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import List, Tuple

import pytest

from ms_perflint.engine import lint_file
from ms_perflint.settings import Settings
from tests.conftest import FIXTURES, run_cli, run_flake8

CASES = sorted(FIXTURES.glob("MSP*/*.py"))
_FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b")


def expected_findings(case: Path) -> List[Tuple[int, int, str]]:
    """Parse ``<case>.expected``: ``LINE:COL CODE`` per line."""
    rows = []
    for raw in case.with_suffix(".expected").read_text().splitlines():
        if raw.strip():
            position, code = raw.split()
            line, col = position.split(":")
            rows.append((int(line), int(col), code))
    return rows


def parse_output(stdout: str) -> dict:
    """``{"<CODE>/<file name>": [(line, col, code)]}`` from CLI or flake8 text output."""
    found: dict = {}
    for raw in stdout.splitlines():
        match = _FINDING.match(raw)
        if match:
            path = Path(match["path"])
            name = f"{path.parent.name}/{path.name}"
            found.setdefault(name, []).append((int(match["line"]), int(match["col"]), match["code"]))
    return {name: sorted(rows) for name, rows in found.items()}


def test_every_fixture_has_expectations():
    assert CASES, "no fixtures found"
    missing = [case.name for case in CASES if not case.with_suffix(".expected").exists()]
    assert not missing


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_engine_matches_expected(case: Path):
    result = lint_file(str(case), Settings())
    assert result.error is None
    found = [(v.line, v.column + 1, v.code) for v in result.violations]
    assert found == expected_findings(case)


@pytest.fixture(scope="module")
def cli_output() -> dict:
    completed = run_cli(str(FIXTURES), "--quiet")
    assert completed.returncode in (0, 1), completed.stderr
    return parse_output(completed.stdout)


@pytest.fixture(scope="module")
def flake8_output() -> dict:
    completed = run_flake8("--select", "MSP", str(FIXTURES))
    assert completed.returncode in (0, 1), completed.stderr
    return parse_output(completed.stdout)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_cli_and_flake8_agree_with_expected(case: Path, cli_output: dict, flake8_output: dict):
    expected = sorted(expected_findings(case))
    key = f"{case.parent.name}/{case.name}"
    assert cli_output.get(key, []) == expected
    assert flake8_output.get(key, []) == expected


FIXED_CASES = [case for case in CASES if case.with_suffix(".fixed").exists()]


def test_some_fixture_shows_fixes():
    assert FIXED_CASES, "no <case>.fixed files found"


@pytest.mark.parametrize("case", FIXED_CASES, ids=[f"{c.parent.name}/{c.stem}" for c in FIXED_CASES])
def test_cli_fix_turns_fixture_into_fixed(case: Path, tmp_path: Path):
    """``--fix --unsafe-fixes`` on a copy gives ``<case>.fixed`` byte for byte; then nothing is left to fix."""
    copy = tmp_path / case.parent.name / case.name
    copy.parent.mkdir()
    shutil.copyfile(case, copy)
    fixed = run_cli("--fix", "--unsafe-fixes", str(copy))
    assert fixed.returncode in (0, 1), fixed.stderr
    assert "warning" not in fixed.stderr, fixed.stderr
    assert copy.read_bytes() == case.with_suffix(".fixed").read_bytes()
    again = run_cli("--diff", "--unsafe-fixes", str(copy))
    assert (again.returncode, again.stdout, again.stderr.splitlines()[-1]) == (0, "", "Would fix 0 findings.")
