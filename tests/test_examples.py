"""The example project: the real CLI and flake8 report exactly what examples/EXPECTED lists.

EXPECTED was written by reading the examples, so a rule that misses a case there
or reports a look-alike fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from ms_perflint.rules import ALL_RULES
from tests.conftest import REPO, run_cli, run_flake8

EXAMPLES = REPO / "examples"
Finding = Tuple[str, int, int, str]
_OUTPUT_LINE = re.compile(r"^(?P<path>.+?\.py):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b")


def expected_findings() -> List[Finding]:
    """``(path, line, column, code)`` rows of examples/EXPECTED (comments and blank lines skipped)."""
    rows = []
    for raw in (EXAMPLES / "EXPECTED").read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        place, code = raw.split()
        path, line, col = place.rsplit(":", 2)
        rows.append((path, int(line), int(col), code))
    return rows


def parse_findings(stdout: str) -> Set[Finding]:
    """Findings in CLI or flake8 output, with paths relative to examples/."""
    found = set()
    for raw in stdout.splitlines():
        match = _OUTPUT_LINE.match(raw)
        if match:
            path = Path(match["path"]).resolve().relative_to(EXAMPLES).as_posix()
            found.add((path, int(match["line"]), int(match["col"]), match["code"]))
    return found


def test_expected_file_lists_each_finding_once_and_every_rule():
    rows = expected_findings()
    assert len(rows) == len(set(rows))
    # Every rule about model code is shown once (MSP001, unused noqa, is about the linter's own comments).
    assert {code for *_, code in rows} == {rule.code for rule in ALL_RULES} - {"MSP001"}


@pytest.mark.parametrize("path, line, column, code", expected_findings())
def test_each_expected_finding_is_explained_by_a_comment_above_it(path, line, column, code):
    """The example's own comment (a few lines up) names the code: the text a user reads is true."""
    lines = (EXAMPLES / path).read_text(encoding="utf-8").splitlines()
    assert 0 < line <= len(lines) and column <= len(lines[line - 1])
    context = "\n".join(lines[max(0, line - 5) : line])
    assert re.search(rf"ms-perflint: .*{code}", context), f"{path}:{line} has no 'ms-perflint: {code}' comment"


def test_cli_reports_exactly_the_expected_findings():
    completed = run_cli(str(EXAMPLES), "--quiet")
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    assert parse_findings(completed.stdout) == set(expected_findings())


def test_cli_from_inside_the_project_agrees():
    completed = run_cli(".", "--quiet", cwd=EXAMPLES)
    assert completed.returncode == 1, completed.stderr
    assert parse_findings_relative(completed.stdout) == set(expected_findings())


def parse_findings_relative(stdout: str) -> Set[Finding]:
    """Findings printed with paths already relative to examples/ (the CLI run from inside it)."""
    found = set()
    for raw in stdout.splitlines():
        match = _OUTPUT_LINE.match(raw)
        if match:
            found.add((Path(match["path"]).as_posix(), int(match["line"]), int(match["col"]), match["code"]))
    return found


def test_flake8_reports_exactly_the_expected_findings():
    completed = run_flake8("--select", "MSP", str(EXAMPLES))
    assert completed.returncode == 1, completed.stderr
    assert parse_findings(completed.stdout) == set(expected_findings())


def test_every_ms_perflint_comment_is_a_finding_or_a_look_alike():
    """A comment claiming a finding ("ms-perflint: MSPxxx --") must be backed by an EXPECTED row below it."""
    expected = expected_findings()
    for source in sorted(EXAMPLES.rglob("*.py")):
        path = source.relative_to(EXAMPLES).as_posix()
        for number, text in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            for code in re.findall(r"ms-perflint: (MSP\d{3})\b", text):
                backed = any(p == path and c == code and number < line <= number + 4 for p, line, _, c in expected)
                assert backed, f"{path}:{number} announces {code} but EXPECTED has no such finding just below"
