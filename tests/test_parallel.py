"""Linting many files: a process pool must give exactly what one process gives, in the same order."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import List

import pytest

from ms_perflint import parallel
from ms_perflint.cache import ResultCache
from ms_perflint.engine import lint_file
from ms_perflint.parallel import auto_jobs, lint_paths
from ms_perflint.results import FileResult
from ms_perflint.settings import Settings
from tests.conftest import FIXTURES, run_cli


def snapshot(results: List[FileResult]) -> List[tuple]:
    """Everything a report can show, in result order."""
    return [
        (
            r.path,
            r.error,
            [(v.code, v.message, v.line, v.column, v.end_line, v.end_column, v.cell,
              v.fix.safety if v.fix else None, v.fix.description if v.fix else None) for v in r.violations],
        )
        for r in results
    ]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """Every fixture, each copied several times under different names, plus files that cannot be linted."""
    root = tmp_path_factory.mktemp("many")
    for copy in range(3):
        shutil.copytree(FIXTURES, root / f"copy{copy}")
    (root / "broken.py").write_text("from mindspore.train import CheckpointConfig\ndef f(:\n")
    (root / "latin1.py").write_bytes(b"import mindspore\nx = '\xe9'\n")  # not UTF-8, no coding cookie
    (root / "empty.py").write_text("")
    return root


def python_files(root: Path) -> List[str]:
    return sorted(str(path) for path in root.rglob("*.py"))


def test_tree_has_findings_and_errors(tree: Path):
    results = lint_paths(python_files(tree), Settings(), jobs=1)
    assert sum(len(r.violations) for r in results) > 20
    assert {r.error.kind for r in results if r.error} == {"SyntaxError", "DecodeError"}


def test_two_workers_give_exactly_what_one_process_gives(tree: Path):
    files = python_files(tree)
    assert snapshot(lint_paths(files, Settings(), jobs=2)) == snapshot(lint_paths(files, Settings(), jobs=1))


def test_results_follow_the_order_of_the_paths_given(tree: Path):
    files = list(reversed(python_files(tree)))
    results = lint_paths(files, Settings(), jobs=2)
    assert [r.path for r in results] == files


def test_pool_results_match_the_engine_file_by_file(tree: Path):
    files = python_files(tree)
    expected = [lint_file(path, Settings()) for path in files]
    assert snapshot(lint_paths(files, Settings(), jobs=2)) == snapshot(expected)


def test_results_hold_no_tree(tree: Path):
    """No CST outlives its file: findings come back detached, in every mode."""
    for jobs in (1, 2):
        results = lint_paths(python_files(tree), Settings(), jobs=jobs)
        violations = [v for r in results for v in r.violations]
        assert violations and all(v.node is None for v in violations)
        assert all(v.fix.node is None and v.fix.transform is None for v in violations if v.fix)
        assert all(r.module is None and r.source is None for r in results)


def test_workers_fill_the_cache_and_a_cached_run_lints_nothing(tree: Path, tmp_path: Path, monkeypatch):
    files = python_files(tree)
    first = lint_paths(files, Settings(), jobs=2, cache=ResultCache(str(tmp_path / "c"), Settings()))

    def must_not_lint(*args, **kwargs):
        raise AssertionError("a cached file was linted again")

    monkeypatch.setattr(parallel, "lint_one", must_not_lint)
    again = lint_paths(files, Settings(), jobs=2, cache=ResultCache(str(tmp_path / "c"), Settings()))
    assert snapshot(again) == snapshot(first)


def test_auto_jobs_keeps_few_files_in_process(monkeypatch):
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    assert [auto_jobs(n) for n in (0, 1, 7, 15, 16, 500)] == [1, 1, 1, 1, 2, 2]
    monkeypatch.setattr(parallel, "available_cores", lambda: 8)
    assert auto_jobs(40) == 5


def test_auto_mode_starts_no_pool_for_a_few_files(tree: Path, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("started a pool for a handful of files")

    monkeypatch.setattr(parallel, "_lint_in_pool", no_pool)
    assert len(lint_paths(python_files(tree)[:5], Settings())) == 5


def test_cli_jobs_two_prints_the_same_as_jobs_one(tree: Path):
    one = run_cli(str(tree), "--isolated", "--no-cache", "--jobs", "1")
    two = run_cli(str(tree), "--isolated", "--no-cache", "--jobs", "2")
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    assert one.stdout.count("MSP1") > 20


@pytest.mark.parametrize("bad", ["-1", "two", "1.5"])
def test_cli_rejects_a_bad_job_count(bad: str):
    completed = run_cli(".", "--jobs", bad)
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers inherit the parent's index only when forked")
def test_a_project_is_indexed_once_by_the_parent_not_by_each_worker(tmp_path: Path, monkeypatch):
    from ms_perflint.project.index import ProjectIndex

    project = tmp_path / "zoo"
    shutil.copytree(FIXTURES, project / "src")
    (project / "pyproject.toml").write_text("")
    builds = tmp_path / "builds.txt"
    original = ProjectIndex.refresh

    def counted(self):
        with open(builds, "a") as log:  # appended by whichever process builds the index
            log.write(f"{os.getpid()}\n")
        return original(self)

    monkeypatch.setattr(ProjectIndex, "refresh", counted)
    settings = Settings(project=True, project_cache=False)
    files = python_files(project)
    pooled = lint_paths(files, settings, jobs=2)
    assert builds.read_text().splitlines() == [str(os.getpid())]  # the parent, before forking
    assert snapshot(pooled) == snapshot(lint_paths(files, settings, jobs=1))
