"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit as a user's repository would.

pre-commit installs the hooks from a git repository at a commit. This working
tree is shared and may hold uncommitted work, and ``pre-commit try-repo`` on a
dirty tree only copies tracked changes, so the hook repository is a fresh git
repository holding a copy of the working tree (tracked files and new ones git
does not ignore), committed once. pre-commit builds its own virtualenv from it
(libcst, flake8, ... come from the package index) under a PRE_COMMIT_HOME inside
the test's temporary folder, so no state is shared with the user's pre-commit.

Building that virtualenv is most of the cost, so the tests are few: one
``try-repo`` (which always builds afresh), and ``run`` tests sharing one store.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Set, Tuple

import pytest

from tests.conftest import REPO, run_cli

BAD_PY = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
FIXED_PY = BAD_PY.replace("save_checkpoint_steps=10)", "save_checkpoint_steps=10, async_save=True)")


def _notebook(call: str) -> str:
    cells = [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["!pip install mindspore\n", "from mindspore.train import CheckpointConfig, Model, ModelCheckpoint"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": [call]},
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
         "source": ["Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])"]},
    ]
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, sort_keys=True, indent=1) + "\n"


BAD_NOTEBOOK = _notebook("config = CheckpointConfig()")
FIXED_NOTEBOOK = _notebook("config = CheckpointConfig(async_save=True)")

#: A mindformers run config: the CheckpointMonitor callback saves synchronously (MSP103 at 5:11, a safe fix).
BAD_YAML = """\
seed: 0
run_mode: 'train'
callbacks:
  - type: MFLossMonitor
  - type: CheckpointMonitor
    prefix: "llama_7b"
    save_checkpoint_steps: 100
  - type: ObsMonitor
"""
FIXED_YAML = BAD_YAML.replace("  - type: CheckpointMonitor\n", "  - type: CheckpointMonitor\n    async_save: True\n", 1)
#: Another YAML file of the repository, not a MindSpore config: read, and nothing to say.
WORKFLOW_YAML = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "ms-perflint tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "ms-perflint tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}
COPY_IGNORING = shutil.ignore_patterns(
    ".git", ".tox", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
    ".ms_perflint_cache",
)
_FINDING = re.compile(r"^(?P<path>[^:\s]+):(?P<where>(?:cell \d+:)?\d+:\d+): (?P<code>MSP\d{3})\b", re.MULTILINE)


def _git(*args: str, cwd: Path) -> str:
    completed = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env={**os.environ, **GIT_IDENTITY},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def _copy_working_tree(target: Path) -> None:
    """This repository's files as a developer sees them, without what git ignores."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, timeout=120
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): copy the folder
        shutil.copytree(REPO, target, ignore=COPY_IGNORING, dirs_exist_ok=True)
        return
    for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        source = REPO / name
        if name and source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository whose only commit is a copy of this working tree."""
    repo = tmp_path_factory.mktemp("hook-repo")
    _copy_working_tree(repo)
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    _git("commit", "-q", "-m", "snapshot for the pre-commit tests", cwd=repo)
    return repo


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the module: the hook environment is built once for all `run` tests."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository: a script, a notebook and a mindformers config with an MSP103 finding each, all staged."""
    root = tmp_path / "project"
    root.mkdir()
    files = {"bad.py": BAD_PY, "course.ipynb": BAD_NOTEBOOK, "configs/run_llama_7b.yaml": BAD_YAML,
             ".github/workflows/ci.yml": WORKFLOW_YAML, "notes.txt": "not python\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    return root


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env: Dict[str, str] = {
        **os.environ,
        **GIT_IDENTITY,
        "PRE_COMMIT_HOME": str(home),
        "PRE_COMMIT_COLOR": "never",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def write_config(project: Path, hook_repo: Path, name: str, hooks: str) -> Path:
    revision = _git("rev-parse", "HEAD", cwd=hook_repo).strip()
    config = project / name
    config.write_text(f"repos:\n-   repo: {hook_repo}\n    rev: {revision}\n    hooks:\n{hooks}", encoding="utf-8")
    return config


def explain(completed: subprocess.CompletedProcess) -> str:
    return f"exit {completed.returncode}\n--- stdout\n{completed.stdout}\n--- stderr\n{completed.stderr}"


def reported(output: str) -> Set[Tuple[str, str, str]]:
    """``(path, position, code)`` of every finding line in CLI or hook output."""
    return {(m["path"], m["where"], m["code"]) for m in _FINDING.finditer(output)}


def test_manifest_is_valid_and_every_hook_reads_yaml_configs():
    completed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, explain(completed)
    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {hook["id"]: set(hook["types_or"]) for hook in hooks} == {
        "ms-perflint": {"python", "jupyter", "yaml"}, "ms-perflint-fix": {"python", "jupyter", "yaml"}}


def test_try_repo_fails_on_a_file_with_a_finding(hook_repo: Path, project: Path, tmp_path: Path):
    completed = pre_commit("try-repo", str(hook_repo), "ms-perflint", "--files", "bad.py", cwd=project, home=tmp_path / "home")
    assert completed.returncode == 1, explain(completed)
    assert "ms-perflint" in completed.stdout and "Failed" in completed.stdout
    assert "bad.py:3:14: MSP103 [*] " in completed.stdout
    assert (project / "bad.py").read_text(encoding="utf-8") == BAD_PY  # the check hook writes nothing


def test_hooks_report_what_the_cli_reports_then_fix_then_pass(hook_repo: Path, project: Path, pre_commit_home: Path):
    """Python, notebook and YAML config alike (regression: the hooks never saw YAML, so a mindformers
    config's finding was reported by the CLI and never by pre-commit)."""
    cli = run_cli("--quiet", ".", cwd=project)
    expected = {("bad.py", "3:14", "MSP103"), ("course.ipynb", "cell 2:1:10", "MSP103"),
                ("configs/run_llama_7b.yaml", "5:11", "MSP103")}
    assert reported(cli.stdout) == expected, cli.stdout + cli.stderr
    write_config(project, hook_repo, ".pre-commit-config.yaml", "    -   id: ms-perflint\n    -   id: ms-perflint-fix\n")

    check = pre_commit("run", "ms-perflint", "--all-files", cwd=project, home=pre_commit_home)
    assert check.returncode == 1, explain(check)
    assert reported(check.stdout) == expected, explain(check)
    assert "notes.txt" not in check.stdout and "ci.yml" not in check.stdout

    fix = pre_commit("run", "ms-perflint-fix", "--all-files", cwd=project, home=pre_commit_home)
    assert fix.returncode == 1, explain(fix)  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in fix.stdout
    assert (project / "bad.py").read_text(encoding="utf-8") == FIXED_PY
    assert (project / "course.ipynb").read_text(encoding="utf-8") == FIXED_NOTEBOOK
    assert (project / "configs" / "run_llama_7b.yaml").read_text(encoding="utf-8") == FIXED_YAML
    assert (project / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8") == WORKFLOW_YAML

    again = pre_commit("run", "ms-perflint", "--all-files", cwd=project, home=pre_commit_home)
    assert again.returncode == 0, explain(again)
    assert "Passed" in again.stdout


def test_unsafe_fixes_need_an_opt_in_and_excludes_apply_to_named_files(
    hook_repo: Path, project: Path, pre_commit_home: Path
):
    unsafe_only = BAD_PY.replace("save_checkpoint_steps=10)", "save_checkpoint_steps=10, async_save=False)")
    (project / "bad.py").write_text(unsafe_only, encoding="utf-8")
    (project / "vendored").mkdir()
    (project / "vendored" / "bad.py").write_text(BAD_PY, encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.ms-perflint]\nextend-exclude = ["vendored"]\n', encoding="utf-8")
    _git("add", "-A", cwd=project)
    files = ("--files", "bad.py", "vendored/bad.py")

    write_config(project, hook_repo, "safe.yaml", "    -   id: ms-perflint-fix\n")
    safe = pre_commit("run", "-c", "safe.yaml", "ms-perflint-fix", *files, cwd=project, home=pre_commit_home)
    assert safe.returncode == 1, explain(safe)  # the finding stays
    assert reported(safe.stdout) == {("bad.py", "3:14", "MSP103")}, explain(safe)  # vendored/ is excluded
    assert (project / "bad.py").read_text(encoding="utf-8") == unsafe_only

    write_config(project, hook_repo, "unsafe.yaml", "    -   id: ms-perflint-fix\n        args: [--unsafe-fixes]\n")
    unsafe = pre_commit("run", "-c", "unsafe.yaml", "ms-perflint-fix", *files, cwd=project, home=pre_commit_home)
    assert "files were modified by this hook" in unsafe.stdout, explain(unsafe)
    assert (project / "bad.py").read_text(encoding="utf-8") == unsafe_only.replace("async_save=False", "async_save=True")
    assert (project / "vendored" / "bad.py").read_text(encoding="utf-8") == BAD_PY


def test_hook_run_with_no_files_passes(hook_repo: Path, project: Path, pre_commit_home: Path):
    hooks = "    -   id: ms-perflint\n        always_run: true\n"
    write_config(project, hook_repo, "always.yaml", hooks)
    # notes.txt is neither python, jupyter nor yaml: always_run makes pre-commit run the hook with no file at all.
    completed = pre_commit("run", "-c", "always.yaml", "ms-perflint", "--files", "notes.txt", cwd=project,
                           home=pre_commit_home)
    assert completed.returncode == 0, explain(completed)
    assert "Passed" in completed.stdout and "Skipped" not in completed.stdout
