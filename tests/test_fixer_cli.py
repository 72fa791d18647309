"""The fix flags through the real ``ms-perflint`` process: output, files written, exit codes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import run_cli

SAFE_AND_UNSAFE = """\
from mindspore.train import CheckpointConfig

safe = CheckpointConfig(save_checkpoint_steps=10)
unsafe = CheckpointConfig(save_checkpoint_steps=10, async_save=False)
"""
ALL_FIXED = SAFE_AND_UNSAFE.replace("steps=10)", "steps=10, async_save=True)").replace(
    "async_save=False", "async_save=True"
)
SAFE_FIXED = SAFE_AND_UNSAFE.replace("steps=10)", "steps=10, async_save=True)")


def project(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


def test_fix_applies_safe_fixes_and_reports_what_is_left(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    done = run_cli("--fix", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == SAFE_FIXED
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("train.py:4:10: MSP103 ")  # the unsafe one, not marked [*]
    assert "[*]" not in lines[0]
    assert "Fixed 1 finding in 1 file." in lines
    assert "1 more fix available with `--fix --unsafe-fixes`." in lines
    assert done.stderr == ""


def test_unsafe_fixes_fix_everything_and_exit_clean(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE, clean="import mindspore\n")
    done = run_cli("--fix", "--unsafe-fixes", ".", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == ALL_FIXED
    assert (tmp_path / "clean.py").read_text() == "import mindspore\n"
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Fixed 2 findings in 1 file." in done.stdout.splitlines()


def test_show_fixes_lists_each_applied_fix(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    done = run_cli("--fix", "--unsafe-fixes", "--show-fixes", "train.py", cwd=tmp_path)
    assert "train.py:3: MSP103 Add `async_save=True`" in done.stdout.splitlines()
    assert "train.py:4: MSP103 Replace `async_save=False` with `True`" in done.stdout.splitlines()


def test_exit_non_zero_on_fix(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    done = run_cli("--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == ALL_FIXED
    assert done.returncode == 1
    again = run_cli("--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "train.py", cwd=tmp_path)
    assert again.returncode == 0, "nothing left to fix: the second run is clean"


def test_diff_prints_a_diff_writes_nothing_and_exits_1(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    done = run_cli("--diff", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == SAFE_AND_UNSAFE
    assert done.returncode == 1
    assert done.stdout == (
        "--- train.py\n+++ train.py\n@@ -1,4 +1,4 @@\n"
        " from mindspore.train import CheckpointConfig\n \n"
        "-safe = CheckpointConfig(save_checkpoint_steps=10)\n"
        "+safe = CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n"
        " unsafe = CheckpointConfig(save_checkpoint_steps=10, async_save=False)\n"
    )
    assert "Would fix 1 finding in 1 file. 1 more fix available with `--unsafe-fixes`." in done.stderr


def test_diff_without_fixes_exits_0(tmp_path: Path):
    project(tmp_path, train=ALL_FIXED)
    done = run_cli("--diff", "--unsafe-fixes", "train.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")


def test_noqa_lines_are_not_fixed_by_the_cli(tmp_path: Path):
    source = SAFE_AND_UNSAFE.replace("steps=10)", "steps=10)  # noqa: MSP103")
    project(tmp_path, train=source)
    done = run_cli("--fix", "--unsafe-fixes", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == source.replace("async_save=False", "async_save=True")
    assert done.returncode == 0


def test_ignored_code_is_not_fixed(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    done = run_cli("--fix", "--unsafe-fixes", "--ignore", "MSP103", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == SAFE_AND_UNSAFE
    assert done.returncode == 0


def test_read_only_file_is_reported_and_findings_remain(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    os.chmod(tmp_path / "train.py", 0o444)
    done = run_cli("--fix", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text() == SAFE_AND_UNSAFE
    assert "ms-perflint: warning: train.py: not written: file is read-only" in done.stderr
    assert done.returncode == 1
    assert "train.py:3:8: MSP103 [*] " in done.stdout


def test_file_with_syntax_error_is_reported_not_touched(tmp_path: Path):
    broken = "from mindspore.train import CheckpointConfig\nc = CheckpointConfig(\n"
    project(tmp_path, broken=broken, train=SAFE_AND_UNSAFE)
    done = run_cli("--fix", ".", cwd=tmp_path)
    assert (tmp_path / "broken.py").read_text() == broken
    assert (tmp_path / "train.py").read_text() == SAFE_FIXED
    assert done.returncode == 1
    assert any(line.startswith("broken.py:") and "SyntaxError" in line for line in done.stdout.splitlines())
    assert "Traceback" not in done.stderr


def test_unsafe_fixes_flag_marks_unsafe_findings_when_linting(tmp_path: Path):
    project(tmp_path, train=SAFE_AND_UNSAFE)
    plain = run_cli("train.py", cwd=tmp_path)
    marked = run_cli("--unsafe-fixes", "train.py", cwd=tmp_path)
    assert [line.split(" ", 2)[:2] for line in plain.stdout.splitlines()[:2]] == [
        ["train.py:3:8:", "MSP103"],
        ["train.py:4:10:", "MSP103"],
    ]
    assert "[*]" in plain.stdout.splitlines()[0] and "[*]" not in plain.stdout.splitlines()[1]
    assert all("MSP103 [*]" in line for line in marked.stdout.splitlines()[:2])
    assert "[*] 2 fixable with `--fix --unsafe-fixes`." in marked.stdout.splitlines()
    assert (tmp_path / "train.py").read_text() == SAFE_AND_UNSAFE


def test_fix_over_cached_clean_files_never_parses_them(tmp_path: Path):
    import subprocess
    import sys

    project(tmp_path, train=ALL_FIXED, model="import mindspore\nfrom mindspore import nn\n")
    assert run_cli(".", cwd=tmp_path).returncode == 0  # fills the result cache
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "ms_perflint", "--fix", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Fixed 0 findings." in done.stdout.splitlines()
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "ms_perflint.cli" in imported  # the import log is really there
    assert "libcst" not in imported  # nothing to fix: cached results answered, no file was parsed


def test_fix_with_two_jobs_fixes_the_files_that_need_it(tmp_path: Path):
    files = {f"train{index}": SAFE_AND_UNSAFE for index in range(12)}
    files.update({f"clean{index}": "import mindspore\n" for index in range(12)})
    project(tmp_path, **files)
    done = run_cli("--fix", "--jobs", "2", "--no-cache", ".", cwd=tmp_path)
    assert done.returncode == 1
    assert all((tmp_path / f"train{index}.py").read_text() == SAFE_FIXED for index in range(12))
    assert all((tmp_path / f"clean{index}.py").read_text() == "import mindspore\n" for index in range(12))
    assert "Fixed 12 findings in 12 files." in done.stdout.splitlines()
    assert done.stdout.count(": MSP103 ") == 12  # the unsafe ones are left, one per file
