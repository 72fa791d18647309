"""Shared helpers for the test suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

from ms_perflint.engine import lint_source
from ms_perflint.rule import Violation
from ms_perflint.settings import Settings

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def lint(code: str, path: str = "example.py", **options) -> List[Violation]:
    """Lint a snippet with every rule on; ``options`` are rule options (``alignment=32``)."""
    settings = Settings(rule_options={key.replace("_", "-"): value for key, value in options.items()})
    result = lint_source(code, path, settings)
    assert result.error is None, result.error
    return result.violations


def codes_at(violations: Sequence[Violation]) -> List[tuple]:
    """``[(code, line, 1-based column)]`` -- what a user reads."""
    return [(v.code, v.line, v.column + 1) for v in violations]


def run_cli(*args: str, cwd: Optional[Path] = None, stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    """Run the installed ``ms-perflint`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "ms_perflint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )


def run_flake8(*args: str, cwd: Optional[Path] = None, isolated: bool = True) -> subprocess.CompletedProcess:
    """Run the real flake8 (with this package's plugin installed) as a process.

    ``isolated`` (the default) passes ``--isolated``: no flake8 or ms-perflint configuration files.
    """
    return subprocess.run(
        [sys.executable, "-m", "flake8", *(["--isolated"] if isolated else []), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def tmp_project(tmp_path: Path) -> Path:
    """An empty folder to write files into."""
    return tmp_path
