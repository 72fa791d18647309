"""Bad input through the real CLI and flake8 processes: a one-line report per bad file, never a traceback.

Each run also lints ``good.py``, whose MSP105 finding must still be reported:
a bad file never stops the others from being checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from ms_perflint.engine import lint_file, lint_source
from ms_perflint.results import FileError, read_bytes
from ms_perflint.settings import Settings
from tests.conftest import run_flake8

GOOD = """\
import mindspore as ms
import mindspore.dataset as ds
ds.config.set_enable_autotune(True)
profiler = ms.Profiler(data_process=True)
"""
GOOD_FINDING = "good.py:3:1: MSP105 "
#: Bad files begin like MindSpore code that a rule could fire on, so the prefilter never skips them.
HEADER = "import mindspore.dataset as ds\nds.config.set_enable_autotune(True)\n"
#: A run that hangs fails after this long instead of stalling the suite.
TIMEOUT = 120


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real ``ms-perflint`` process, with a timeout short enough to catch a hang."""
    return subprocess.run(
        [sys.executable, "-m", "ms_perflint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def assert_no_traceback(completed: subprocess.CompletedProcess) -> None:
    output = completed.stdout + completed.stderr
    assert "Traceback" not in output, output
    assert "internal error" not in output, output


def lines_about(completed: subprocess.CompletedProcess, name: str) -> List[str]:
    return [line for line in completed.stdout.splitlines() if line.startswith(name + ":")]


def check_with_good(tmp_path: Path, *bad: str) -> subprocess.CompletedProcess:
    """Lint the bad paths and good.py in one CLI run; good.py's finding must survive."""
    (tmp_path / "good.py").write_text(GOOD)
    completed = run_cli(*bad, "good.py", "--quiet", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 1, completed.stderr
    assert any(line.startswith(GOOD_FINDING) for line in completed.stdout.splitlines()), completed.stdout
    return completed


# --- files that cannot be parsed or decoded ---------------------------------------


def test_syntax_error_is_a_finding_like_line_with_pythons_message_and_position(tmp_path):
    (tmp_path / "broken.py").write_text(HEADER + "def train(:\n    pass\n")
    completed = check_with_good(tmp_path, "broken.py")
    # `def train(:` on line 3: Python points at the ":" (10th character).
    assert lines_about(completed, "broken.py") == ["broken.py:3:11: SyntaxError: invalid syntax"]


def test_undecodable_bytes(tmp_path):
    (tmp_path / "latin.py").write_bytes(HEADER.encode() + b"name = 'caf\xe9'\n")
    completed = check_with_good(tmp_path, "latin.py")
    [line] = lines_about(completed, "latin.py")
    assert line.startswith("latin.py:1:1: DecodeError: cannot decode file: 'utf-8' codec can't decode byte 0xe9")


def test_a_declared_encoding_is_honoured_not_an_error(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + HEADER.encode() + b"name = 'caf\xe9'\n")
    completed = check_with_good(tmp_path, "latin.py")
    assert lines_about(completed, "latin.py") == []


def test_empty_file_is_fine(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    completed = check_with_good(tmp_path, "empty.py")
    assert lines_about(completed, "empty.py") == []


def test_binary_file_named_py(tmp_path):
    (tmp_path / "weights.py").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    completed = check_with_good(tmp_path, "weights.py")
    [line] = lines_about(completed, "weights.py")
    assert line.startswith("weights.py:1:1: DecodeError: cannot decode file:")


def test_null_bytes_in_valid_utf8(tmp_path):
    (tmp_path / "nul.py").write_bytes(HEADER.encode() + b"x = 1\x00\n")
    completed = check_with_good(tmp_path, "nul.py")
    [line] = lines_about(completed, "nul.py")
    assert "SyntaxError:" in line and "null bytes" in line


# --- paths that are not readable files ------------------------------------------------


def test_dangling_symlink_named_on_the_command_line(tmp_path):
    """A file that vanished between discovery and reading looks the same: the name leads nowhere."""
    (tmp_path / "gone.py").symlink_to(tmp_path / "deleted.py")
    completed = check_with_good(tmp_path, "gone.py")
    assert lines_about(completed, "gone.py") == ["gone.py:1:1: ReadError: cannot read file: No such file or directory"]


def test_dangling_symlink_in_a_folder_is_not_a_source_file(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "gone.py").symlink_to(tmp_path / "deleted.py")
    completed = check_with_good(tmp_path, "pkg")
    assert lines_about(completed, "pkg/gone.py") == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_fifo_named_on_the_command_line_is_refused_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    completed = check_with_good(tmp_path, "pipe.py")
    assert lines_about(completed, "pipe.py") == ["pipe.py:1:1: ReadError: not a regular file (a pipe, socket or device)"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_fifo_inside_a_checked_folder_does_not_hang(tmp_path):
    (tmp_path / "pkg").mkdir()
    os.mkfifo(tmp_path / "pkg" / "pipe.py")
    (tmp_path / "pkg" / "good.py").write_text(GOOD)
    completed = subprocess.run(
        [sys.executable, "-m", "ms_perflint", "pkg", "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert_no_traceback(completed)
    assert "pkg/good.py:3:1: MSP105 " in completed.stdout


def test_folder_named_like_a_python_file_is_walked(tmp_path):
    (tmp_path / "model.py").mkdir()
    (tmp_path / "model.py" / "inner.py").write_text(GOOD)
    completed = check_with_good(tmp_path, "model.py")
    assert [line[: len("model.py/inner.py:3:1: MSP105")] for line in lines_about(completed, "model.py/inner.py")] == [
        "model.py/inner.py:3:1: MSP105"
    ]


def test_folder_named_like_a_python_file_inside_a_walked_folder(tmp_path):
    (tmp_path / "src" / "model.py").mkdir(parents=True)
    (tmp_path / "src" / "model.py" / "inner.py").write_text(GOOD)
    completed = check_with_good(tmp_path, "src")
    assert len(lines_about(completed, "src/model.py/inner.py")) == 1
    assert lines_about(completed, "src/model.py") == []


def test_read_bytes_explains_every_path_that_is_not_a_readable_file(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "gone.py").symlink_to(tmp_path / "deleted.py")
    (tmp_path / "ok.py").write_bytes(b"x = 1\n")
    assert read_bytes(str(tmp_path / "ok.py")) == b"x = 1\n"
    assert read_bytes(str(tmp_path / "folder")) == FileError("ReadError", "is a folder, not a file")
    assert read_bytes(str(tmp_path / "gone.py")) == FileError("ReadError", "cannot read file: No such file or directory")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.py")
        assert read_bytes(str(tmp_path / "pipe.py")) == FileError("ReadError", "not a regular file (a pipe, socket or device)")
    assert lint_file(str(tmp_path / "folder"), Settings()).error == FileError("ReadError", "is a folder, not a file")


@pytest.mark.parametrize("option", ["--output-file", "--config"])
def test_folder_where_a_file_is_expected_is_a_one_line_usage_error(tmp_path, option):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "folder").mkdir()
    completed = run_cli("good.py", option, "folder", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stdout == ""
    [line] = completed.stderr.splitlines()
    assert line.startswith("ms-perflint: error: ") and "folder" in line


def test_missing_path_exits_2_with_one_line(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    completed = run_cli("missing.py", "good.py", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == ["ms-perflint: error: missing.py: no such file or folder"]


# --- nesting deep enough to crash or stall a parser ------------------------------------


def deep_files(folder: Path) -> None:
    """Files that crashed (3000 brackets: exit 139), stalled (long chains) or overflowed the walk."""
    (folder / "brackets.py").write_text(HEADER + "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (folder / "long_chain.py").write_text(HEADER + "x = " + " + ".join(["a"] * 50_000) + "\n")
    (folder / "chain_one_line.py").write_text(HEADER + "x = " + "+".join(["a"] * 1500) + "\n")
    (folder / "chain_many_lines.py").write_text(HEADER + "x = (\n" + " +\n".join(["    a"] * 3000) + "\n)\n")
    (folder / "unary.py").write_text(HEADER + "x = " + "-" * 5000 + "1\n")


def test_deeply_nested_files_are_reported_and_the_run_goes_on(tmp_path):
    deep_files(tmp_path)
    names = ["brackets.py", "long_chain.py", "chain_one_line.py", "chain_many_lines.py", "unary.py"]
    completed = check_with_good(tmp_path, *names)
    # Python's own parser refuses more than 200 nested brackets, at the 201st.
    assert lines_about(completed, "brackets.py") == ["brackets.py:3:205: SyntaxError: too many nested parentheses"]
    for name in names[1:]:
        [line] = lines_about(completed, name)
        assert line.startswith(f"{name}:1:1: ") and ("TooComplex: " in line or "SyntaxError: " in line), line


def test_moderate_nesting_is_still_linted(tmp_path):
    """300 terms: Python, pyflakes and libcst all cope, so the file is linted as usual."""
    body = "for step in range(3):\n    x = " + "+".join(["step"] * 300) + "\n"
    (tmp_path / "moderate.py").write_text(GOOD + body)
    completed = run_cli("moderate.py", "--quiet", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.stdout.splitlines()[0].startswith("moderate.py:3:1: MSP105 ")


#: A training loop whose body holds a 700-term sum: under every guard, so libcst parses it, but
#: a rule that walks the loop recursively (MSP103 looking for training calls) runs out of stack.
DEEP_LOOP = (
    "import mindspore as ms\nfor images in dataset.create_tuple_iterator():\n"
    "    x = " + "+".join(["images"] * 700) + "\n    ms.save_checkpoint(net, 'step.ckpt')\n"
)


def test_a_rule_running_out_of_stack_is_an_error_for_that_file_not_an_exception():
    result = lint_source(DEEP_LOOP, "deep.py", Settings())
    if result.error is not None:
        assert result.error.kind == "TooComplex"
    else:  # a rule that walks without recursion finds the per-step save
        assert [(v.code, v.line) for v in result.violations] == [("MSP103", 4)]


def test_cli_goes_on_after_a_rule_runs_out_of_stack(tmp_path):
    (tmp_path / "deep.py").write_text(DEEP_LOOP)
    completed = check_with_good(tmp_path, "deep.py")
    [line] = lines_about(completed, "deep.py")
    assert line.startswith(("deep.py:1:1: TooComplex: ", "deep.py:4:5: MSP103 ")), line


# --- flake8 ---------------------------------------------------------------------------------


def test_flake8_with_every_kind_of_bad_file(tmp_path):
    """flake8 reports its own E902/E999 for unreadable and invalid files; our plugin adds no traceback.

    The test stays away from FIFOs: flake8 itself blocks reading one.
    """
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text(HEADER + "def train(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(HEADER.encode() + b"name = 'caf\xe9'\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "weights.py").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (tmp_path / "gone.py").symlink_to(tmp_path / "deleted.py")
    (tmp_path / "model.py").mkdir()
    (tmp_path / "model.py" / "inner.py").write_text(GOOD)
    (tmp_path / "brackets.py").write_text(HEADER + "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (tmp_path / "moderate.py").write_text(HEADER + "for step in range(3):\n    x = " + "+".join(["step"] * 300) + "\n")
    completed = run_flake8(
        "--select", "MSP,E9", "good.py", "broken.py", "latin.py", "empty.py", "weights.py", "gone.py",
        "model.py", "brackets.py", "moderate.py", cwd=tmp_path,
    )
    assert_no_traceback(completed)
    assert completed.returncode == 1
    reported = completed.stdout.splitlines()
    assert any(line.startswith(GOOD_FINDING) for line in reported), reported
    assert any(line.startswith("model.py/inner.py:3:1: MSP105 ") for line in reported), reported
    for name in ("broken.py", "weights.py", "gone.py", "brackets.py"):
        assert any(line.startswith(name + ":") and " E9" in line for line in reported), (name, reported)
    # flake8 falls back to latin-1 for undecodable text, so latin.py is linted, and has no finding.
    assert not any(line.startswith(("empty.py:", "moderate.py:", "latin.py:")) for line in reported), reported
