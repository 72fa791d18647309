"""Shared helpers for the test suite."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

from ms_perflint.findings import Finding
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROJECTS = Path(__file__).resolve().parent / "projects"


def check(code: str, path: str = "example.py", rules: Optional[Sequence[type]] = None, **options) -> List[Finding]:
    """Check a snippet as a project of one file; ``options`` are rule options (``alignment=32``)."""
    settings = Settings(rule_options={key.replace("_", "-"): value for key, value in options.items()})
    result = check_text(textwrap.dedent(code).lstrip("\n"), path, settings, rules=rules)
    assert result.error is None, result.error
    return result.findings


def codes_at(findings: Sequence[Finding]) -> List[tuple]:
    """``[(code, line, 1-based column)]`` -- what a user reads."""
    return [(f.code, f.line, f.column + 1) for f in findings]


def write_project(root: Path, files: Dict[str, str]) -> Path:
    """Write ``{relative path: text}`` under ``root`` (dedented), with a pyproject.toml marking the project root."""
    (root / "pyproject.toml").write_text("[project]\nname = 'fixture'\n", encoding="utf-8")
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def check_project(root: Path, **options) -> Dict[str, List[tuple]]:
    """``{relative path: [(code, line, column)]}`` for every file of the project at ``root`` that has findings."""
    settings = Settings(rule_options={key.replace("_", "-"): value for key, value in options.items()})
    results = check_folder(str(root), settings)
    return {path: codes_at(result.findings) for path, result in results.items() if result.findings}


def run_cli(*args: str, cwd: Optional[Path] = None, stdin: Optional[str] = None,
            env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Run the installed ``ms-perflint`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "ms_perflint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
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
