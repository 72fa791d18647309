"""The ``ms-perflint`` command as users run it: --explain, standard input, exit codes, --quiet, import cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ms_perflint.docs import render_rule
from ms_perflint.rules import ALL_RULES, RULES_BY_CODE
from tests.conftest import run_cli

TRAIN = "from mindspore.train import CheckpointConfig\nconfig = CheckpointConfig()\n"
MESSAGE = "CheckpointConfig saves checkpoints synchronously, stalling training; pass async_save=True"


# --------------------------------------------------------------------------- --explain


@pytest.mark.parametrize("spelling", ["MSP103", "msp103", "sync-checkpoint-save"])
def test_explain_prints_the_rule_page(spelling: str):
    completed = run_cli("--explain", spelling)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == render_rule(RULES_BY_CODE["MSP103"])
    assert completed.stdout.startswith("# MSP103 sync-checkpoint-save\n")


def test_explain_unknown_code_lists_the_rules():
    completed = run_cli("--explain", "MSP999")
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "unknown rule 'MSP999'" in completed.stderr
    for rule in ALL_RULES:
        assert f"{rule.code} ({rule.name})" in completed.stderr


# --------------------------------------------------------------------------- standard input


def run_stdin(*args: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ms_perflint", *args], input=data, cwd=cwd, capture_output=True, timeout=300
    )


def test_stdin_is_reported_under_its_name(tmp_path: Path):
    completed = run_stdin("-", "--stdin-filename", "src/train.py", "--quiet", data=TRAIN.encode(), cwd=tmp_path)
    assert completed.returncode == 1
    assert completed.stdout.decode() == f"src/train.py:2:10: MSP103 [*] {MESSAGE}\n"
    anonymous = run_stdin("-", "--quiet", data=TRAIN.encode(), cwd=tmp_path)
    assert anonymous.stdout.decode() == f"-:2:10: MSP103 [*] {MESSAGE}\n"


def test_stdin_filename_alone_reads_standard_input(tmp_path: Path):
    completed = run_stdin("--stdin-filename", "src/train.py", "--quiet", data=TRAIN.encode(), cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.decode() == f"src/train.py:2:10: MSP103 [*] {MESSAGE}\n"


def test_stdin_filename_with_paths_but_no_dash_is_a_usage_error(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    completed = run_stdin("train.py", "--stdin-filename", "src/train.py", data=b"", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stdout == b""
    assert b"pass `-` (or no paths)" in completed.stderr and b"Traceback" not in completed.stderr


def test_stdin_filename_selects_per_file_ignores_and_configuration(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.ms-perflint]\nper-file-ignores = { "tools/*" = ["MSP103"] }\n')
    (tmp_path / "tools").mkdir()
    (tmp_path / "sub").mkdir()
    ignored = run_stdin("-", "--stdin-filename", "tools/convert.py", data=TRAIN.encode(), cwd=tmp_path)
    assert ignored.returncode == 0, ignored.stdout
    # from another folder, the configuration is found from the stdin file name's folder
    elsewhere = run_stdin("-", "--stdin-filename", "../tools/convert.py", data=TRAIN.encode(), cwd=tmp_path / "sub")
    assert elsewhere.returncode == 0, elsewhere.stdout
    reported = run_stdin("-", "--stdin-filename", "model.py", data=TRAIN.encode(), cwd=tmp_path)
    assert reported.returncode == 1


def test_stdin_force_exclude(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.ms-perflint]\nextend-exclude = ["vendor"]\nforce-exclude = true\n')
    skipped = run_stdin("-", "--stdin-filename", "vendor/x.py", "--quiet", data=TRAIN.encode(), cwd=tmp_path)
    assert skipped.returncode == 0 and skipped.stdout == b""
    checked = run_stdin("-", "--stdin-filename", "src/x.py", "--quiet", data=TRAIN.encode(), cwd=tmp_path)
    assert checked.returncode == 1


def test_stdin_bytes_are_decoded_like_files(tmp_path: Path):
    data = b"# -*- coding: latin-1 -*-\n" + TRAIN.encode() + b"name = '\xe9'\n"
    completed = run_stdin("-", "--output-format", "json", data=data, cwd=tmp_path)
    assert completed.returncode == 1
    assert [o["location"]["row"] for o in json.loads(completed.stdout)] == [3]


@pytest.mark.parametrize(
    "args, message",
    [
        (["-", "other.py"], "cannot be combined with other paths"),
        (["-", "--add-noqa"], "cannot be used with standard input"),
        (["-", "--fix"], "cannot be used with standard input"),
    ],
)
def test_stdin_misuse_is_a_usage_error(tmp_path: Path, args: list, message: str):
    (tmp_path / "other.py").write_text(TRAIN)
    completed = run_stdin(*args, data=TRAIN.encode(), cwd=tmp_path)
    assert completed.returncode == 2
    assert message in completed.stderr.decode()


# --------------------------------------------------------------------------- exit codes and quiet


def test_exit_codes(tmp_path: Path):
    (tmp_path / "clean.py").write_text("from mindspore.train import CheckpointConfig\nc = CheckpointConfig(async_save=True)\n")
    (tmp_path / "dirty.py").write_text(TRAIN)
    (tmp_path / "broken.py").write_text("from mindspore.train import CheckpointConfig\nc = CheckpointConfig(\n")
    assert run_cli("clean.py", cwd=tmp_path).returncode == 0
    assert run_cli("dirty.py", cwd=tmp_path).returncode == 1
    assert run_cli("broken.py", cwd=tmp_path).returncode == 1
    assert run_cli("--exit-zero", "dirty.py", "broken.py", cwd=tmp_path).returncode == 0
    assert run_cli("missing.py", cwd=tmp_path).returncode == 2
    assert run_cli("--select", "E501", "dirty.py", cwd=tmp_path).returncode == 2
    assert run_cli("--output-format", "xml", "dirty.py", cwd=tmp_path).returncode == 2
    assert run_cli(cwd=tmp_path).returncode == 2


def test_quiet_prints_findings_only(tmp_path: Path):
    (tmp_path / "dirty.py").write_text(TRAIN)
    (tmp_path / "clean.py").write_text("x = 1\n")
    assert run_cli("--quiet", "dirty.py", cwd=tmp_path).stdout == f"dirty.py:2:10: MSP103 [*] {MESSAGE}\n"
    assert run_cli("--quiet", "clean.py", cwd=tmp_path).stdout == ""
    assert run_cli("clean.py", cwd=tmp_path).stdout == "All checks passed! (1 file checked)\n"


# --------------------------------------------------------------------------- import cost


def loaded_modules(*args: str, cwd: Path) -> set:
    """Modules of ms_perflint (and libcst.matchers/codemod) imported by a CLI run with ``args``."""
    script = (
        "import sys\n"
        "from ms_perflint.cli import main\n"
        f"main({list(args)!r})\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('ms_perflint.output', 'libcst.matchers', 'libcst.codemod')))))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300)
    return set(completed.stdout.split("\n")[-2].split())


def test_formatters_are_imported_only_when_chosen(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    text = loaded_modules("--quiet", "train.py", cwd=tmp_path)
    assert text == {"ms_perflint.output", "ms_perflint.output.report", "ms_perflint.output.text"}
    as_json = loaded_modules("--output-format", "json", "train.py", cwd=tmp_path)
    assert "ms_perflint.output.json" in as_json and "ms_perflint.output.sarif" not in as_json
    github = loaded_modules("--output-format", "github", "train.py", cwd=tmp_path)
    assert "ms_perflint.output.github" in github and "ms_perflint.output.json" not in github


def test_a_closed_output_pipe_is_not_an_internal_error(tmp_path):
    """`ms-perflint src/ | head -1`: the reader leaves early; no traceback, no 'internal error'."""
    import subprocess
    import sys

    source = "from mindspore.train import CheckpointConfig\n" + "c = CheckpointConfig()\n" * 2000
    (tmp_path / "many.py").write_text(source)
    process = subprocess.Popen(
        [sys.executable, "-m", "ms_perflint", "--no-cache", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = process.stdout.readline()
    process.stdout.close()  # the reader goes away, as `head -1` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert b"MSP103" in first
    assert "Traceback" not in stderr and "internal error" not in stderr


def test_summary_says_how_many_of_the_checked_files_have_findings(tmp_path):
    (tmp_path / "bad.py").write_text("from mindspore.train import CheckpointConfig\nc = CheckpointConfig()\n")
    (tmp_path / "clean.py").write_text("import mindspore as ms\n")
    from tests.conftest import run_cli

    completed = run_cli("--no-cache", str(tmp_path))
    assert completed.stdout.splitlines()[-2] == "Found 1 finding in 1 of 2 files."


def test_a_file_outside_any_project_does_not_load_the_project_index(tmp_path):
    """Start-up: the index (fact collectors, YAML) is only imported where a project exists."""
    import subprocess
    import sys

    from ms_perflint.project.roots import find_root

    (tmp_path / "one.py").write_text("from mindspore.train import CheckpointConfig\nc = CheckpointConfig()\n")
    assert find_root(str(tmp_path / "one.py")) is None  # precondition: no project marker above
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['ms-perflint', '--no-cache', 'one.py']\n"
        "try:\n    runpy.run_module('ms_perflint', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "loaded = [m for m in ('ms_perflint.project.index', 'ms_perflint.project.facts', 'yaml') if m in sys.modules]\n"
        "print('LOADED', loaded)\n"
    )
    completed = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "one.py:2:5: MSP103" in completed.stdout
    assert "LOADED []" in completed.stdout, completed.stdout
