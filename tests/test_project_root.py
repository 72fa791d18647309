"""One rule for the project root (docs/project.md, "How the project is found"), the same in the CLI and the flake8
plugin, and for a file, two files, their folder or the whole tree: the nearest folder with a project marker, else
the working folder that holds the file. Real ``ms-perflint`` and ``flake8`` processes, as a user runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import re
from pathlib import Path
from typing import Dict, Sequence, Set, Tuple

import pytest

from ms_perflint.project.roots import find_root, project_root
from tests.conftest import run_cli, run_flake8
from tests.test_flake8 import PROJECT, write

_LINE = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d+) (?:\[\*\] )?(?P<message>.*)$",
                   re.MULTILINE)

#: PROJECT without its pyproject.toml: a copied example folder, as a new user makes one.
UNMARKED = {name: text for name, text in PROJECT.items() if name != "pyproject.toml"}
#: What the whole project reports, by path inside it (src/dataset.py's MSP105 needs train.py's Profiler, train.py's
#: MSP101 and MSP202 need src/model.py's network).
WHOLE = {
    ("src/callbacks.py", 5, 14, "MSP103"),
    ("src/dataset.py", 5, 5, "MSP105"),
    ("train.py", 10, 16, "MSP502"),
    ("train.py", 12, 13, "MSP101"),
    ("train.py", 13, 5, "MSP202"),
}

Finding = Tuple[str, int, int, str, str]


def findings(stdout: str) -> Set[Finding]:
    """``(path, line, column, code, message)`` of each finding, in either front end's text output."""
    return {(Path(m["path"]).as_posix(), int(m["line"]), int(m["col"]), m["code"], m["message"])
            for m in _LINE.finditer(stdout)}


def both(paths: Sequence[str], cwd: Path) -> Dict[str, Set[Finding]]:
    cli = run_cli("--quiet", "--no-cache", *paths, cwd=cwd)
    flake8 = run_flake8("--select", "MSP", *paths, cwd=cwd)
    for completed in (cli, flake8):
        assert "Traceback" not in completed.stderr and completed.returncode in (0, 1), completed.stdout + completed.stderr
    return {"cli": findings(cli.stdout), "flake8": findings(flake8.stdout)}


def expected(prefix: str, files: Sequence[str]) -> Set[Tuple[str, int, int, str]]:
    """WHOLE restricted to ``files`` (paths inside the project; a folder ends with /), as seen from ``prefix``."""
    return {(prefix + path, line, col, code) for path, line, col, code in WHOLE
            if any(path == f or (f.endswith("/") and path.startswith(f)) or f == "." for f in files)}


@pytest.fixture()
def parent(tmp_path: Path) -> Path:
    if find_root(str(tmp_path)) is not None:
        pytest.skip("the temporary folder is inside a project; these layouts need a folder with no marker above it")
    write(tmp_path / "ex", UNMARKED)
    return tmp_path


NAMED = [["src/dataset.py"], ["src/"], ["src/dataset.py", "train.py"], ["."]]


@pytest.mark.parametrize("named", NAMED, ids=["a file", "its folder", "two files", "the tree"])
def test_an_unmarked_project_named_from_inside_gives_each_file_its_project_findings(parent: Path, named):
    seen = both(named, parent / "ex")
    assert {f[:4] for f in seen["cli"]} == expected("", named), seen["cli"]
    assert seen["flake8"] == seen["cli"]  # the same findings, with the same messages


@pytest.mark.parametrize("named", NAMED, ids=["a file", "its folder", "two files", "the tree"])
def test_an_unmarked_project_named_from_its_parent_gives_each_file_its_project_findings(parent: Path, named):
    """The working folder is the project: the file's findings are the ones of the run over the whole folder."""
    paths = ["ex/" + name if name != "." else "ex" for name in named]
    seen = both(paths, parent)
    assert {f[:4] for f in seen["cli"]} == expected("ex/", named), seen["cli"]
    assert seen["flake8"] == seen["cli"]


def test_messages_name_files_of_the_project_the_same_way_in_both_front_ends(parent: Path):
    """MSP502 names the training program: from the root's path in both (it was debug_train.py in the CLI and
    ex/debug_train.py in flake8 when the CLI took the named folder for the project)."""
    for named in (["ex"], ["ex/train.py"]):
        seen = both(named, parent)
        [message] = [f[4] for f in seen["cli"] if f[3] == "MSP502"]
        assert "ex/train.py" in message, message
        assert seen["flake8"] == seen["cli"]


@pytest.mark.parametrize("marker", ["pyproject.toml", "setup.cfg", "tox.ini"])
def test_a_marked_project_named_from_its_parent_is_its_own_project(parent: Path, marker: str):
    """A configuration file marks the project as pyproject.toml does: a configuration is never below its project."""
    (parent / "ex" / marker).write_text("[project]\nname = 'ex'\n" if marker == "pyproject.toml" else "[metadata]\n")
    for named in (["ex/src/dataset.py"], ["ex/src/dataset.py", "ex/train.py"], ["ex"]):
        seen = both(named, parent)
        inside = [name[3:] if name != "ex" else "." for name in named]
        assert {f[:4] for f in seen["cli"]} == expected("ex/", inside), seen["cli"]
        assert seen["flake8"] == seen["cli"]
    [message] = [f[4] for f in seen["cli"] if f[3] == "MSP502"]
    assert "program train.py" in message, message  # the path from the project's root


def test_an_unmarked_folder_outside_the_working_folder_is_checked_alone_and_says_so(parent: Path, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    folder = str(parent / "ex")
    completed = run_cli("--quiet", "--no-cache", folder, cwd=elsewhere)
    alone = {(Path(f[0]).relative_to(folder).as_posix(), *f[1:4]) for f in findings(completed.stdout)}
    assert alone == {("train.py", 10, 16, "MSP502")}, completed.stdout  # train.py alone cannot see src/
    assert f"{folder}: no pyproject.toml, setup.py, setup.cfg, tox.ini or .git at or above it" in completed.stderr
    file_alone = run_cli("--quiet", "--no-cache", os.path.join(folder, "train.py"), cwd=elsewhere)
    assert {f[1:4] for f in findings(file_alone.stdout)} == {(10, 16, "MSP502")}
    assert "checked alone" not in file_alone.stderr  # a file named alone is checked alone, as it always was


def test_the_home_and_root_folders_are_never_a_project(tmp_path: Path, monkeypatch):
    if find_root(str(tmp_path)) is not None:
        pytest.skip("the temporary folder is inside a project")
    file = str(tmp_path / "a" / "train.py")
    assert project_root(file, str(tmp_path)) == str(tmp_path)
    assert project_root(file, os.path.abspath(os.sep)) is None
    monkeypatch.setenv("HOME", str(tmp_path))
    assert project_root(file, str(tmp_path)) is None
    assert project_root(file, str(tmp_path / "b")) is None  # not inside the working folder


def test_show_settings_names_the_project_a_file_is_checked_with(parent: Path):
    shown = run_cli("--show-settings", "src/dataset.py", cwd=parent / "ex")
    assert f"Checked with its project: {parent / 'ex'}" in shown.stdout, shown.stdout


def test_flake8_run_in_the_home_folder_checks_files_alone_and_keeps_its_cache_there(tmp_path: Path):
    """The home folder is never a project: flake8 run there still has somewhere to keep its cache."""
    if find_root(str(tmp_path)) is not None:
        pytest.skip("the temporary folder is inside a project")
    write(tmp_path, {name: text for name, text in UNMARKED.items() if name in ("train.py", "src/model.py")})
    completed = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "MSP", "train.py"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=300,
                               env={**os.environ, "HOME": str(tmp_path)})
    assert "Traceback" not in completed.stdout + completed.stderr, completed.stdout + completed.stderr
    assert {f[1:4] for f in findings(completed.stdout)} == {(10, 16, "MSP502")}  # alone: no MSP101 from src/model.py
