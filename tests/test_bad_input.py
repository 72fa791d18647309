"""Bad input through the real CLI (and flake8) processes: a one-line report per bad file, never a traceback.

Most bad files are checked in one run (module fixture ``named``) next to
``good.py``, whose finding must survive: a bad file never stops the others from
being checked. ``walked`` does the same for a folder walk, where a file that is
not a regular file must be named, not skipped in silence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from ms_perflint.findings import FileError
from ms_perflint.sources import read_bytes
from tests.conftest import run_flake8

GOOD = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
FINDING = "3:14: MSP103 [*] CheckpointConfig without async_save"
#: Bad files begin like MindSpore code that a rule could fire on.
HEADER = "import mindspore.dataset as ds\nds.config.set_enable_autotune(True)\n"
#: A run that hangs fails after this long instead of stalling the suite.
TIMEOUT = 120


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real ``ms-perflint`` process, with a timeout short enough to catch a hang."""
    return subprocess.run([sys.executable, "-m", "ms_perflint", "--no-cache", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=TIMEOUT, env={**os.environ, "NO_COLOR": "1"})


def assert_no_traceback(completed: subprocess.CompletedProcess) -> None:
    output = completed.stdout + completed.stderr
    assert "Traceback" not in output, output
    assert "internal error" not in output, output


def lines_about(completed: subprocess.CompletedProcess, name: str) -> List[str]:
    return [line for line in completed.stdout.splitlines() if line.startswith(name + ":")]


# --------------------------------------------------------------------------- named on the command line

#: Named first on purpose: a symlink loop at the head of the list must not stop the run.
NAMED = ["loop.py", "good.py", "broken.py", "latin.py", "declared.py", "empty.py", "weights.py", "nul.py", "gone.py",
         "pipe.py", "model.py", "brackets.py", "long_chain.py", "chain_one_line.py", "chain_many_lines.py",
         "unary.py", "lambdas.py", "moderate.py", "deep.py"]


def bad_files(folder: Path) -> None:
    (folder / "good.py").write_text(GOOD)
    (folder / "broken.py").write_text(HEADER + "def train(:\n    pass\n")
    (folder / "latin.py").write_bytes(HEADER.encode() + b"name = 'caf\xe9'\n")
    (folder / "declared.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + HEADER.encode() + b"name = 'caf\xe9'\n")
    (folder / "empty.py").write_bytes(b"")
    (folder / "weights.py").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (folder / "nul.py").write_bytes(HEADER.encode() + b"x = 1\x00\n")
    (folder / "gone.py").symlink_to(folder / "deleted.py")
    (folder / "loop.py").symlink_to(folder / "loop.py")
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.py")
    (folder / "model.py").mkdir()
    (folder / "model.py" / "inner.py").write_text(GOOD)
    # Nesting that crashed (3000 brackets: exit 139), stalled (long chains) or overflowed a recursive walk.
    (folder / "brackets.py").write_text(HEADER + "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (folder / "long_chain.py").write_text(HEADER + "x = " + " + ".join(["a"] * 50_000) + "\n")
    (folder / "chain_one_line.py").write_text(HEADER + "x = " + "+".join(["a"] * 1500) + "\n")
    (folder / "chain_many_lines.py").write_text(HEADER + "x = (\n" + " +\n".join(["    a"] * 3000) + "\n)\n")
    (folder / "unary.py").write_text(HEADER + "x = " + "-" * 5000 + "1\n")
    (folder / "lambdas.py").write_text("x = " + "lambda: \\\n" * 4000 + "1\n")
    # 300 terms: Python and libcst cope, so the program is checked as usual.
    (folder / "moderate.py").write_text(GOOD.replace('"__main__":\n', '"__main__":\n    x = ' + "+".join(["s"] * 300) + "\n"))
    # A training loop whose body holds a 700-term sum around a per-step save.
    (folder / "deep.py").write_text(
        "import mindspore as ms\nif __name__ == '__main__':\n    for images in dataset.create_tuple_iterator():\n"
        "        x = " + "+".join(["images"] * 700) + "\n        ms.save_checkpoint(net, 'step.ckpt')\n        step(x)\n")


@pytest.fixture(scope="module")
def named(tmp_path_factory) -> subprocess.CompletedProcess:
    folder = tmp_path_factory.mktemp("named")
    bad_files(folder)
    completed = run("--quiet", *[name for name in NAMED if (folder / name).exists() or (folder / name).is_symlink()],
                    cwd=folder)
    assert_no_traceback(completed)
    assert completed.returncode == 1, completed.stderr
    return completed


def test_the_good_files_finding_survives_every_bad_file(named):
    assert lines_about(named, "good.py") == ["good.py:" + FINDING + " makes the ModelCheckpoint callback save "
                                                                   "synchronously, stalling training; pass async_save=True"]
    assert named.stderr == ""


def test_a_syntax_error_is_a_finding_like_line_with_pythons_message_and_position(named):
    # `def train(:` on line 3: Python points at the ":" (11th column).
    assert lines_about(named, "broken.py") == ["broken.py:3:11: SyntaxError: invalid syntax"]


def test_undecodable_bytes(named):
    [line] = lines_about(named, "latin.py")
    assert line.startswith("latin.py:1:1: DecodeError: cannot decode file: 'utf-8' codec can't decode byte 0xe9")


def test_a_declared_encoding_is_honoured_and_an_empty_file_is_fine(named):
    assert lines_about(named, "declared.py") == [] and lines_about(named, "empty.py") == []


def test_a_binary_file_named_py(named):
    [line] = lines_about(named, "weights.py")
    assert line.startswith("weights.py:1:1: DecodeError: cannot decode file:")


def test_null_bytes_in_valid_utf8(named):
    assert lines_about(named, "nul.py") == ["nul.py:1:1: SyntaxError: source code string cannot contain null bytes"]


def test_a_dangling_symlink_and_a_symlink_loop_named_on_the_command_line(named):
    assert lines_about(named, "gone.py") == ["gone.py:1:1: ReadError: cannot read file: No such file or directory"]
    assert lines_about(named, "loop.py") == ["loop.py:1:1: ReadError: cannot read file: Too many levels of symbolic links"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_fifo_named_on_the_command_line_is_refused_not_waited_on(named):
    assert lines_about(named, "pipe.py") == ["pipe.py:1:1: ReadError: not a regular file (a pipe, socket or device)"]


def test_a_folder_named_like_a_python_file_is_walked(named):
    assert [line[: len("model.py/inner.py:3:14: MSP103")] for line in lines_about(named, "model.py/inner.py")] == [
        "model.py/inner.py:3:14: MSP103"]
    assert lines_about(named, "model.py") == []


def test_deeply_nested_files_are_reported_and_the_run_goes_on(named):
    # Python's own parser refuses more than 200 nested brackets, at the 201st.
    assert lines_about(named, "brackets.py") == ["brackets.py:3:205: SyntaxError: too many nested parentheses"]
    for name in ("long_chain.py", "chain_one_line.py", "chain_many_lines.py", "unary.py", "lambdas.py"):
        assert lines_about(named, name) == [f"{name}:1:1: TooComplex: expressions are nested too deeply to analyse"]


def test_moderate_nesting_is_still_checked(named):
    [line] = lines_about(named, "moderate.py")
    assert line.startswith("moderate.py:4:14: MSP103 [*] ")


def test_a_deep_training_loop_is_an_error_of_that_file_or_its_finding(named):
    [line] = lines_about(named, "deep.py")
    assert line.startswith(("deep.py:1:1: TooComplex: ", "deep.py:5:9: MSP103 ")), line


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


# --------------------------------------------------------------------------- found while walking a folder

STRING_CELLS = {"cells": ["import mindspore", GOOD], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
STRING_SOURCE = {"cells": [{"cell_type": "code", "metadata": {}, "source": GOOD, "outputs": [], "execution_count": None}],
                 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> subprocess.CompletedProcess:
    root = tmp_path_factory.mktemp("walked")
    folder = root / "pkg"
    folder.mkdir()
    (folder / "good.py").write_text(GOOD)
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "x.py")
    (folder / "loop.py").symlink_to(folder / "loop.py")
    (folder / "dangling.py").symlink_to(folder / "nowhere.py")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to(folder)  # a folder loop: symlinked folders are not followed
    (folder / "config.yaml").write_text("run_mode: train\ncallbacks: [1, 2\nother: 3\n")
    (folder / "source_string.ipynb").write_text(json.dumps(STRING_SOURCE))
    (folder / "model.py").mkdir()
    (folder / "model.py" / "inner.py").write_text(GOOD)
    completed = run("pkg", "--quiet", cwd=root)
    assert_no_traceback(completed)
    assert completed.returncode == 1, completed.stderr
    return completed


def names_in(completed: subprocess.CompletedProcess) -> List[str]:
    return sorted(line.split(":", 1)[0] for line in completed.stdout.splitlines())


def test_a_walk_names_every_source_file_it_cannot_read_once_with_why(walked):
    expected = ["pkg/config.yaml", "pkg/dangling.py", "pkg/good.py", "pkg/loop.py", "pkg/model.py/inner.py",
                "pkg/source_string.ipynb"] + (["pkg/x.py"] if hasattr(os, "mkfifo") else [])
    assert names_in(walked) == expected
    assert lines_about(walked, "pkg/dangling.py") == ["pkg/dangling.py:1:1: ReadError: cannot read file: No such file or directory"]
    assert lines_about(walked, "pkg/loop.py") == ["pkg/loop.py:1:1: ReadError: cannot read file: Too many levels of symbolic links"]
    if hasattr(os, "mkfifo"):
        assert lines_about(walked, "pkg/x.py") == ["pkg/x.py:1:1: ReadError: not a regular file (a pipe, socket or device)"]


def test_an_invalid_yaml_config_is_named_once(walked):
    [line] = lines_about(walked, "pkg/config.yaml")
    assert line.startswith("pkg/config.yaml:3:1: YamlError: invalid YAML: ")


def test_a_notebook_whose_cell_sources_are_strings_is_checked(walked):
    assert lines_about(walked, "pkg/source_string.ipynb") == [
        "pkg/source_string.ipynb:cell 1:" + FINDING + " makes the ModelCheckpoint callback save synchronously, "
                                                     "stalling training; pass async_save=True"]


def test_a_walk_does_not_follow_a_folder_symlink_into_a_loop(walked):
    assert not [name for name in names_in(walked) if "/up/" in name]


def test_a_notebook_whose_cells_are_strings_is_not_passed_in_silence(tmp_path):
    (tmp_path / "strings.ipynb").write_text(json.dumps(STRING_CELLS))
    completed = run("strings.ipynb", cwd=tmp_path)
    assert_no_traceback(completed)
    assert "All checks passed!" not in completed.stdout
    assert "strings.ipynb" in completed.stdout + completed.stderr


def test_a_walk_leaves_out_unreadable_files_git_ignores(tmp_path):
    if subprocess.run(["git", "init", "-q", str(tmp_path)], capture_output=True).returncode != 0:
        pytest.skip("git is not available")
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "gone.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "good.py").write_text(GOOD)
    completed = run(".", "--quiet", cwd=tmp_path)
    assert names_in(completed) == ["gone.py", "good.py"]


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize("option", ["--output-file", "--config"])
def test_a_folder_where_a_file_is_expected_is_a_one_line_usage_error(tmp_path, option):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "folder").mkdir()
    completed = run("good.py", option, "folder", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stdout == ""
    [line] = completed.stderr.splitlines()
    assert line.startswith("ms-perflint: error: ") and "folder" in line


def test_a_missing_path_is_named_the_rest_is_checked_and_the_run_exits_2(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    completed = run("good.py", "missing.py", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stdout.splitlines()[0].startswith("good.py:" + FINDING)
    assert completed.stderr.splitlines() == ["ms-perflint: error: missing.py: no such file or folder"]


# --------------------------------------------------------------------------- flake8


def test_flake8_with_every_kind_of_bad_file(tmp_path):
    """flake8 reports its own E902/E999 for unreadable and invalid files; the plugin adds no traceback.

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
    completed = run_flake8("--select", "MSP,E9", "good.py", "broken.py", "latin.py", "empty.py", "weights.py",
                           "gone.py", "model.py", "brackets.py", cwd=tmp_path)
    assert_no_traceback(completed)
    assert completed.returncode == 1
    reported = completed.stdout.splitlines()
    assert any(line.startswith("good.py:3:14: MSP103 ") for line in reported), reported
    assert any(line.startswith("model.py/inner.py:3:14: MSP103 ") for line in reported), reported
    for name in ("broken.py", "weights.py", "gone.py", "brackets.py"):
        assert any(line.startswith(name + ":") and " E9" in line for line in reported), (name, reported)
    # flake8 falls back to latin-1 for undecodable text, so latin.py is checked, and has no finding.
    assert not any(line.startswith(("empty.py:", "latin.py:")) for line in reported), reported


# --------------------------------------------------------------------------- the compiler's warnings about the user's code


#: Invalid escapes ("\l") in the three places Python's compiler reads the user's code: a string literal the
#: analysis evaluates, the module positions are read off, and a setup.py whose requirements are read.
ESCAPES = {
    "pyproject.toml": "[project]\nname = 'x'\n",
    "setup.py": 'from setuptools import setup\nLOGS = "C:\\logs"\nsetup(install_requires=["mindspore==2.3.0"])\n',
    "train.py": GOOD.replace("steps=10)", 'steps=10, directory="C:\\logs\\ckpt")'),
}


def test_the_compilers_warnings_about_the_users_code_never_reach_the_terminal(tmp_path: Path):
    """``<unknown>:815: SyntaxWarning: invalid escape sequence '\\l'`` (3.12+; DeprecationWarning on 3.11, shown
    with -W always) named no file and was not ours to print; under -W error it must not change a finding."""
    for name, text in ESCAPES.items():
        (tmp_path / name).write_text(text)
    plain = run("-q", ".", cwd=tmp_path)
    assert plain.stdout.startswith(f"train.py:{FINDING}"), plain.stdout + plain.stderr
    for flag in ("always", "error"):
        completed = subprocess.run([sys.executable, "-W", flag, "-m", "ms_perflint", "--no-cache", "-q", "."],
                                   cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
        assert (completed.stdout, completed.stderr) == (plain.stdout, ""), completed.stderr


def test_checking_code_with_an_invalid_escape_warns_nothing_in_either_category(tmp_path: Path):
    """In process, every warning recorded: SyntaxWarning (3.12+) and DeprecationWarning (3.11) alike."""
    import warnings

    from ms_perflint.run.session import Session

    for name, text in ESCAPES.items():
        (tmp_path / name).write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [result] = Session().check([str(tmp_path / "train.py")])
    assert "MSP103" in [f.code for f in result.findings]
    assert [w for w in caught if issubclass(w.category, (SyntaxWarning, DeprecationWarning))] == []
